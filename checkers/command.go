package checkers

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/treecache"
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
	// expression, matched as grep does: ^ and $ at each line's start and
	// end, \A and \z at the output's). Left out: "exit_code:0".
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

// The command checker type. Like test, it checks the
// project, not one agent.
var _ = declare("command", func() *Type {
	t := register(Type{
		Name:         "command",
		ProjectState: true,
		Summary:      "a shell command, run in the project dir, meets `success_when` (default `exit_code:0`)",
		DefaultOn:    projectReasons,
		Patterns:     []string{"command-failed"},
		Example:      `{"type": "command", "name": "n", "on": ["stop"], "command": "x", "success_when": "empty", "timeout": "1m", "cache": false}`,
	}, func(o *CommandOptions) (Checker, error) {
		when, err := parseCondition(o.SuccessWhen)
		if err != nil {
			return nil, fmt.Errorf("success_when: %w", err)
		}
		return Command{Command: o.Command, Timeout: o.Timeout.D(), Cache: cacheOn(o.Cache), when: when}, nil
	}, func(o *CommandOptions) string {
		when, _ := parseCondition(o.SuccessWhen) // valid: checked at load
		return fmt.Sprintf("`%s` %s", o.Command, when.describe())
	})
	commands(t, func(o *CommandOptions, _ string) ([]ProjectCommand, error) {
		return []ProjectCommand{{Checker: "command", Command: o.Command}}, nil
	})
	return t
})

// cacheOn reads an optional cache key: results are cached unless it says
// false.
func cacheOn(b *bool) bool { return b == nil || *b }

// Check implements Checker.
func (cm Command) Check(ctx context.Context, c *Context) (Result, error) {
	return cm.commandCheck().check(ctx, c)
}

func (cm Command) commandCheck() commandCheck {
	return commandCheck{kind: "command", command: cm.Command, timeout: cm.Timeout, cache: cm.Cache, when: cm.when, voice: &commandVoice}
}

var commandVoice = voice{
	noun:    "command",
	pattern: "command-failed",
	passed: func(k commandCheck) string {
		return fmt.Sprintf("The command `%s` passed: it had to %s and did.", k.command, k.when.want())
	},
}

// notFound reports the shell's "command not found" (exit code 127 from
// sh, 9009 from cmd.exe) under a condition about exit codes: a checker
// whose tool is not installed should say so rather than look like failing
// work.
func notFound(k commandCheck, out proc.Outcome) bool {
	return out.ExitCode == proc.ShellNotFound && k.when.form == condExitCode
}

// program returns the program a shell command runs: its first word that
// is not a variable assignment (FOO=1 make test runs make), "" if none.
func program(command string) string {
	for _, w := range strings.Fields(command) {
		if !strings.Contains(w, "=") {
			return w
		}
	}
	return ""
}

// commandCheck is the one implementation of every command-running checker
// (test, command, type-check, lint, format): what to run, when it passes,
// and how its type words the outcome. The types differ only in those.
type commandCheck struct {
	// kind is the checker type, in cache keys.
	kind    string
	command string
	// from is the file a detected command was detected from, and
	// definition the digest of what defines it (see ProjectCommand); ""
	// for a command the config names. named is set where the config names
	// the very command detection gives (as closer init writes it): it
	// runs as the detected one (from is set), and its consent is the
	// config's command's.
	from, definition string
	named            bool
	timeout          time.Duration // zero means DefaultTimeout
	cache            bool
	when             condition
	// fix is a command that fixes what it reports (a formatter's), for
	// feedback; "" when there is none to name.
	fix   string
	voice *voice
	// wholeOnly runs the command whole even where it could run package by
	// package (scope "all", see workspaceTest).
	wholeOnly bool
	// graph names the build system whose graph chose what command runs
	// (see graphCommand), "" for none; env is added to the command's
	// environment (see graphEnv).
	graph string
	env   []string
	// weakening: a pass is followed by the look for weakened tests (the
	// test checker's, see weakened).
	weakening bool
	// jsonCommand is the command's go test -json form, run in its place
	// for the runner's report of the tests of goRoots (see goReport); ""
	// for a command that is no detected Go test command.
	jsonCommand string
	goRoots     []string
	// ran is the runner whose output the command prints, read for the
	// tests that ran (see ranReport); nil for none.
	ran *ranRunner
}

// A voice is how a command checker's type speaks: the noun that names its
// command, the failure pattern it reports (whose template words every
// failure, the shared ones about time and signals included) and how it
// words a pass.
type voice struct {
	noun string
	// findings names what a failure finds, for descriptions: "type errors".
	findings string
	pattern  string
	passed   func(k commandCheck) string
}

// check runs the command, through the result cache when it is on.
func (k commandCheck) check(ctx context.Context, c *Context) (Result, error) {
	consent := ProjectCommand{Checker: k.kind, Command: k.command, From: k.from, Definition: k.definition}
	if k.named {
		consent.From, consent.Definition = "", ""
	}
	if r, ok := c.mayRun(consent); !ok {
		return r, nil
	}
	own := k.ownTimeout()
	if c.Early && (!k.cache || c.CacheDir == "") {
		return Result{Complete: true, NotRun: true, Feedback: "Not started early: the result cache is off."}, nil
	}
	if k.kind == "test" && k.from == "package.json" && !k.wholeOnly && c.Since != nil {
		if command, tool, ok := graphCommand(c.ProjectDir, c.Since.Head); ok {
			// The repository's build graph tells what changed since the
			// session began (see workspaces_graph.go); its output is
			// the build system's, and no runner's report is read of it.
			k.command, k.graph, k.ran = command, tool, nil
			var cleanup func()
			k.env, cleanup = graphEnv(tool)
			defer cleanup()
		}
	}
	r, err := k.workspaceTest(ctx, c, own)
	var outside errUncached
	var whole errWhole
	errors.As(err, &whole)
	switch {
	case errors.As(err, &outside):
	case !errors.Is(err, errNoWorkspace):
		return r, err
	case k.cache && c.CacheDir != "":
		if why := cmp.Or(k.ownCache(), k.readsOutside(c.ProjectDir)); why != "" {
			outside = errUncached{why: why}
		}
	}
	run := func(ctx context.Context, fp fingerprint) (Result, bool, error) {
		if whole.why != "" {
			c.noteFresh(fmt.Sprintf("%s %s: run whole, not member by member: %s", k.kind, k.command, whole.why))
		}
		return k.run(ctx, c, own, fp)
	}
	// A workspace run whole says why, whether it ran or was reused.
	annotate := func(r Result, err error) (Result, error) {
		if err == nil && whole.why != "" && !r.NotRun {
			r.Feedback += fmt.Sprintf("\n(`%s` ran whole, not member by member: %s.)", k.command, whole.why)
		}
		return r, err
	}
	if !k.cache || c.CacheDir == "" || outside.why != "" {
		why := "the result cache is off"
		if outside.why != "" {
			// What it reads there is in no state of the work tree: a
			// result remembered for the tree could be stale.
			why = outside.why + ": no result of it is reused"
		}
		if c.Early {
			return Result{Complete: true, NotRun: true, Feedback: "Not started early: " + why + "."}, nil
		}
		c.noteFresh(k.kind + " " + k.command + ": " + why)
		r, _, err := run(ctx, fingerprint{})
		return annotate(r, err)
	}
	// The type is part of the key because the feedback is; the condition
	// because it decides the result. exit_code:0 adds nothing, which keeps
	// the keys of test results remembered before there were conditions
	// (see cacheParts).
	return annotate(cached(ctx, c, own, k.cacheParts(), run))
}

// ownCache says why a command's program keeps its own results, which
// answer better than one of donegate's: Bazel's, local or remote, covers
// its external repositories wherever they are (testdetect_bazel.go). ""
// for other programs.
func (k commandCheck) ownCache() string {
	if p := filepath.Base(program(k.command)); p == "bazel" || p == "bazelisk" {
		return "Bazel's own cache answers for what a change affects"
	}
	return ""
}

// run runs the command once. ended is true when it was stopped by its
// timeout or the budget, or could not start for want of time.
func (k commandCheck) run(ctx context.Context, c *Context, own time.Duration, fp fingerprint) (r Result, ended bool, err error) {
	if ctx.Err() != nil {
		// Starting it only to kill it at once would report a command
		// "stopped after 0s" that never ran.
		return k.fail(c, own, proc.Outcome{}, "not-started", fp.note(c.Budget, false)), true, nil
	}
	runCtx, cancel, ownFirst := within(ctx, own)
	defer cancel()
	cmd := proc.Command{Shell: k.command, Dir: c.ProjectDir, Env: slices.Concat(c.Env, k.env), Background: c.Early}
	if k.jsonCommand != "" {
		cmd.Shell, cmd.SplitStdout, cmd.MaxStdout = k.jsonCommand, true, maxGoJSONBytes
	}
	out, rep, err := k.runRead(runCtx, c, cmd)
	if err != nil {
		return Result{}, false, err
	}
	var report []byte
	var goRep *goReport // go test -json's report, nil where cut
	if k.jsonCommand != "" {
		// The agent reads what go test prints, not its events.
		text, events := readGoTestJSON(out.Stdout)
		out.Output = append(text, out.Output...)
		if !out.StdoutCut {
			goRep = &events
			report, _ = json.Marshal(events)
		}
	}
	switch {
	case rep != nil && k.when.met(out):
		// A pass is judged with its report (see Test.Check).
		report, _ = json.Marshal(rep)
	case rep != nil:
		// A failure's tests ran all the same: a later pass must run
		// them too.
		c.ranRemember(k.ran, *rep)
	}
	switch {
	case out.Ended && errors.Is(context.Cause(ctx), treecache.ErrSuperseded):
		// An early run whose tree is gone: nothing to report.
		return Result{Complete: true, NotRun: true, Feedback: fmt.Sprintf("Stopped after %s: %v.", out.Elapsed.Round(time.Millisecond), context.Cause(ctx))}, true, nil
	case out.HookStopped:
		// Not its timeout, whatever would have come first: the host
		// stopped the hook (its own hook timeout, or ^C).
		return k.fail(c, own, out, "hook-stopped", ""), true, nil
	case out.Ended && ownFirst:
		return k.fail(c, own, out, "timeout", ""), true, nil
	case out.Ended:
		return k.fail(c, own, out, "budget", fp.note(c.Budget, true)), true, nil
	case out.Signal != "":
		// Before the condition: a killed command did not finish, so its
		// output and exit code say nothing about the work, even when
		// empty or matching.
		return k.fail(c, own, out, "signal", ""), false, nil
	case k.when.met(out):
		r := OK(k.voice.passed(k))
		r.ran = report
		return r, false, nil
	}
	if r, ok := k.flaky(ctx, c, own, out, rep, goRep); ok {
		return r, false, nil
	}
	return k.fail(c, own, out, "", ""), false, nil
}

// runRead runs cmd with what k's runner needs to report the tests that
// ran, and reads that report: nil where k has no runner read, or the run
// was stopped, or its report is not whole (nothing is judged by it then);
// empty where the runner gave none.
func (k commandCheck) runRead(ctx context.Context, c *Context, cmd proc.Command) (proc.Outcome, *ranReport, error) {
	if k.ran != nil && c.ranSessionKey(k.ran) == "" {
		// No session's record to judge it by (no session, no cache): the
		// command as it is.
		k.ran = nil
	}
	file := ""
	switch {
	case k.ran != nil && k.ran.toFile != nil:
		dir, err := os.MkdirTemp("", "donegate-report-")
		if err != nil {
			return proc.Outcome{}, nil, fmt.Errorf("a directory for %s's report: %w", k.ran.name, err)
		}
		defer os.RemoveAll(dir)
		file = filepath.Join(dir, "report")
		cmd = k.ran.toFile(cmd, file)
	case k.ran != nil:
		cmd.MaxOutput = maxRanOutputBytes
	}
	out, err := c.runner().Run(ctx, cmd)
	if err != nil {
		return out, nil, fmt.Errorf("%s %q: %w", k.voice.noun, k.command, err)
	}
	if k.ran == nil || out.Ended || out.Signal != "" {
		return out, nil, nil
	}
	data, whole := ranReportData(out, file)
	if !whole {
		return out, nil, nil
	}
	rep, _ := k.ran.read(data, c.ProjectDir)
	return out, &rep, nil
}

// flaky runs a failing test command again (see Flaky) and reports
// whether it passed the second time, with the result to answer then.
// firstRan and firstGo are the failing run's reports (nil: none read):
// with the rerun's, the pass is judged by what ran in both (a rerun of
// the failed tests alone, go test -run's or pytest's --lf, reports those
// only).
func (k commandCheck) flaky(ctx context.Context, c *Context, own time.Duration, first proc.Outcome, firstRan *ranReport, firstGo *goReport) (Result, bool) {
	if k.kind != "test" || notFound(k, first) {
		return Result{}, false
	}
	left := own
	if d, ok := ctx.Deadline(); ok {
		left = min(left, time.Until(d))
	}
	if !rerunWorth(left, first.Elapsed) {
		return Result{}, false
	}
	command, tests := rerun(k.command, string(first.Output))
	runCtx, cancel, _ := within(ctx, own)
	defer cancel()
	cmd := proc.Command{Shell: command, Dir: c.ProjectDir, Env: slices.Concat(c.Env, k.env), Background: c.Early}
	if firstGo != nil {
		// go test's rerun in its -json form, for its report.
		cmd.Shell, cmd.SplitStdout, cmd.MaxStdout = strings.Replace(command, "go test ", "go test -json ", 1), true, maxGoJSONBytes
	}
	out, again, err := k.runRead(runCtx, c, cmd)
	if err != nil || out.Ended || out.Signal != "" || !k.when.met(out) {
		return Result{}, false
	}
	f := Flaky{Command: k.command, Rerun: command, Tests: tests}
	c.noteFlaky(f)
	r := OK(fmt.Sprintf("The test command `%s` failed, then passed when run again (`%s`): a flaky failure, not held.", k.command, command))
	switch {
	case firstRan != nil && again != nil:
		r.ran, _ = json.Marshal(firstRan.then(*again))
	case firstGo != nil && !out.StdoutCut:
		_, rep := readGoTestJSON(out.Stdout)
		both := *firstGo
		both.merge(rep, nil)
		r.ran, _ = json.Marshal(both)
	}
	return r, true
}

// fail reports a run of k that did not pass as its type's pattern. Every
// command pattern has the same parameters, whatever happened, so that a
// template may branch on any of them:
//
//	Command     the command, as configured or detected
//	Stopped     "" (it finished), "not-started" (no budget left to start),
//	            "timeout" (its own timeout), "budget" (the hook's budget),
//	            "hook-stopped" (the hook got SIGTERM or SIGINT) or
//	            "signal" (killed by one)
//	ExitCode    its exit code (0 when it did not finish)
//	Output      at most 40 lines of its output, colour codes removed: all of
//	            it, or an excerpt that keeps its first lines, the lines
//	            that report failures and its last lines (see outputExcerpt)
//	Cut, Lines  how many lines the excerpt left out (0: none) of how many
//	            (templates read them with index: results cached before
//	            they existed have neither)
//	SuccessWhen its condition, as a config writes it ("exit_code:0")
//	Want        what the condition asks, after "it must" ("exit with code 0")
//	Missed      how the run missed it ("it exited with code 1")
//	NotFound    the shell's "command not found" under an exit-code
//	            condition (exit code 127 from sh, 9009 from cmd.exe)
//	Program     the program the command runs, its first word that is not
//	            a variable assignment ("pytest"), for what to install
//	Timeout     its own timeout ("5m0s"); Budget the hook's (limits.budget);
//	            Elapsed how long it ran before the budget stopped it
//	Signal      the signal that killed it ("killed", "terminated")
//	CacheNote   what fingerprinting the tree took of the budget, when that
//	            is worth telling (a sentence, or "")
//	Fix         a command that fixes what it reports ("gofmt -w ."), or ""
//	Files       the files a lister (gofmt -l) named, at most 20; More how
//	            many more it named
func (k commandCheck) fail(c *Context, own time.Duration, out proc.Outcome, stopped, cacheNote string) Result {
	var files []string
	var more int
	if stopped == "" && k.when.form == condEmpty && out.ExitCode == 0 {
		files, more = listed(out)
	}
	output, cut, total := outputExcerpt(out.Output, tailLines)
	return c.Fail(k.voice.pattern, map[string]any{
		"Command":     k.command,
		"Stopped":     stopped,
		"ExitCode":    out.ExitCode,
		"Output":      output,
		"Cut":         cut,
		"Lines":       total,
		"SuccessWhen": k.when.String(),
		"Want":        k.when.want(),
		"Missed":      k.when.missed(out),
		"NotFound":    stopped == "" && notFound(k, out),
		"Program":     program(k.command),
		"Timeout":     own.String(),
		"Budget":      c.Budget.String(),
		"Elapsed":     out.Elapsed.Round(time.Second).String(),
		"Signal":      out.Signal,
		"CacheNote":   cacheNote,
		"Fix":         k.fix,
		"Files":       append([]string{}, files...),
		"More":        more,
	})
}
