package checkers

import (
	"context"
	"fmt"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/proc"
)

// Command runs a shell command in the project dir and is complete when its
// result meets a condition, the config's success_when: an exit code (0
// unless set), no output, output containing a text or matching a regular
// expression. It runs as Test does, which is a Command that must exit 0
// and speaks of tests: same process group, timeout, budget, output tail,
// environment guard and result cache.
type Command struct {
	Command string
	Timeout time.Duration // zero means DefaultTimeout
	Cache   bool
	when    condition
}

// CommandOptions are a command checker's keys.
type CommandOptions struct {
	// Command is run with sh -c in the project dir.
	Command string `json:"command" validate:"required"`
	// SuccessWhen is when the command counts as passing: "exit_code:N",
	// "empty", "contains:TEXT" or "matches:REGEX" (a Go regular
	// expression). Left out: "exit_code:0".
	SuccessWhen string `json:"success_when"`
	// Timeout bounds one run. Left out: 5m.
	Timeout config.Duration `json:"timeout" validate:"gte=0"`
	// Cache reuses the result while the working tree is unchanged; false
	// for a command whose result depends on more than the tree. Left
	// out: true.
	Cache *bool `json:"cache"`
}

// CheckOptions implements config.OptionsChecker: success_when must be one
// of its forms, and a regular expression must compile, so that a typo is
// a config error at load and not a checker that can never pass.
func (o *CommandOptions) CheckOptions() []config.Problem {
	return checkSuccessWhen(o.SuccessWhen)
}

func checkSuccessWhen(s string) []config.Problem {
	if _, err := parseCondition(s); err != nil {
		return []config.Problem{{Path: "success_when", Message: err.Error()}}
	}
	return nil
}

// CommandType is the command checker's type. Like test, it checks the
// project, not one agent.
var CommandType = register(Type{
	Name:      "command",
	Summary:   "a shell command, run in the project dir, meets `success_when` (default `exit_code:0`)",
	Options:   (*CommandOptions)(nil),
	DefaultOn: projectReasons,
	New: func(spec config.Checker) (Checker, error) {
		o := spec.Options.(*CommandOptions)
		when, err := parseCondition(o.SuccessWhen)
		if err != nil {
			return nil, fmt.Errorf("success_when: %w", err)
		}
		return Command{Command: o.Command, Timeout: o.Timeout.D(), Cache: cacheOn(o.Cache), when: when}, nil
	},
	Describe: func(spec config.Checker) string {
		o := spec.Options.(*CommandOptions)
		when, _ := parseCondition(o.SuccessWhen) // valid: checked at load
		return fmt.Sprintf("`%s` %s", o.Command, when.describe())
	},
})

// cacheOn reads an optional cache key: results are cached unless it says
// false.
func cacheOn(b *bool) bool { return b == nil || *b }

// Check implements Checker.
func (cm Command) Check(ctx context.Context, c *Context) (Result, error) {
	return commandCheck{kind: "command", command: cm.Command, timeout: cm.Timeout, cache: cm.Cache, when: cm.when, voice: &commandVoice}.check(ctx, c)
}

var commandVoice = voice{
	noun: "command",
	passed: func(k commandCheck) string {
		return fmt.Sprintf("The command `%s` passed: it had to %s and did.", k.command, k.when.want())
	},
	failed: func(k commandCheck, out proc.Outcome, log string) string {
		return fmt.Sprintf("The command `%s` must %s (success_when \"%s\"), but %s. Fix that and run it again.%s%s",
			k.command, k.when.want(), k.when.String(), k.when.missed(out), notFound(k, out),
			logBlock(fmt.Sprintf("Last %d lines of output", tailLines), log))
	},
}

// notFound explains exit code 127 when the condition is about exit codes:
// it is the shell's "command not found", and a checker whose tool is not
// installed should say so rather than look like failing work.
func notFound(k commandCheck, out proc.Outcome) string {
	if out.ExitCode != 127 || k.when.form != condExitCode {
		return ""
	}
	return " Exit code 127 is the shell's \"command not found\": is the tool installed and on PATH?"
}

// commandCheck is the one implementation of every command-running checker
// (test, command, type-check, lint, format): what to run, when it passes,
// and how its type words the outcome. The types differ only in those.
type commandCheck struct {
	// kind is the checker type, in cache keys.
	kind    string
	command string
	timeout time.Duration // zero means DefaultTimeout
	cache   bool
	when    condition
	// fix is a command that fixes what it reports (a formatter's), for
	// feedback; "" when there is none to name.
	fix   string
	voice *voice
}

// A voice words a command checker's outcome in its type's language; the
// sentences about time (timeouts, the budget) and signals are shared and
// name the command by noun ("The test command `go test ./...`").
type voice struct {
	noun string
	// findings names what a failure finds, for descriptions: "type errors".
	findings string
	passed   func(k commandCheck) string
	// failed words a run that finished without meeting k.when; log is the
	// tail of its output.
	failed func(k commandCheck, out proc.Outcome, log string) string
}

// check runs the command, through the result cache when it is on.
func (k commandCheck) check(ctx context.Context, c *Context) (Result, error) {
	own := k.timeout
	if own <= 0 {
		own = DefaultTimeout
	}
	run := func(ctx context.Context, fp fingerprint) (Result, bool, error) { return k.run(ctx, c, own, fp) }
	if !k.cache || c.CacheDir == "" {
		r, _, err := run(ctx, fingerprint{})
		return r, err
	}
	// The type is part of the key because the feedback is; the condition
	// because it decides the result. exit_code:0 adds nothing, which keeps
	// the keys of test results remembered before there were conditions.
	parts := []string{k.kind, k.command}
	if !k.when.isDefault() {
		parts = append(parts, k.when.String())
	}
	return cached(ctx, c, own, parts, run)
}

// run runs the command once. ended is true when it was stopped by its
// timeout or the budget, or could not start for want of time.
func (k commandCheck) run(ctx context.Context, c *Context, own time.Duration, fp fingerprint) (r Result, ended bool, err error) {
	subject := fmt.Sprintf("The %s `%s`", k.voice.noun, k.command)
	if ctx.Err() != nil {
		// Starting it only to kill it at once would report a command
		// "stopped after 0s" that never ran.
		return Incomplete(fmt.Sprintf("%s did not run: the hook's time budget (limits.budget %s) was spent before it could start.%s",
			subject, c.Budget, fp.note(c.Budget, false))), true, nil
	}
	runCtx, cancel, ownFirst := within(ctx, own)
	defer cancel()
	env := c.Env
	out, err := c.runner().Run(runCtx, proc.Command{Shell: k.command, Dir: c.ProjectDir, Env: env})
	if err != nil {
		return Result{}, false, fmt.Errorf("%s %q: %w", k.voice.noun, k.command, err)
	}
	log := lastLines(out.Output, tailLines)
	switch {
	case out.Ended && ownFirst:
		return Incomplete(fmt.Sprintf("%s timed out after %s and was stopped.%s",
			subject, own, logBlock("Last output", log))), true, nil
	case out.Ended:
		return Incomplete(fmt.Sprintf("%s did not finish within the hook's time budget (limits.budget %s) and was stopped after %s.%s%s",
			subject, c.Budget, out.Elapsed.Round(time.Second), fp.note(c.Budget, true), logBlock("Last output", log))), true, nil
	case out.Signal != "":
		// Before the condition: a killed command did not finish, so its
		// output and exit code say nothing about the work, even when
		// empty or matching.
		return Incomplete(fmt.Sprintf("%s was killed by %s.%s", subject, out.Signal, logBlock("Last output", log))), false, nil
	case k.when.met(out):
		return OK(k.voice.passed(k)), false, nil
	}
	return Incomplete(k.voice.failed(k, out, log)), false, nil
}
