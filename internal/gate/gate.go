// Package gate is the body of the two hook executables: it reads one event,
// resolves the config and paths, runs the checker chain under the time
// budget, applies the limits that keep an agent from being trapped, and
// writes the answer. The main packages only wire it to the process.
//
// Evaluate is the decision, apart from the hook's IO: the hooks print its
// answer, and closer explain runs it with Options.DryRun (nothing written
// to the state dir) and Options.Explain (every checker's outcome), so that
// what explain shows cannot drift from what the hook does.
//
// Exit codes are an API shared with Claude Code: 0 with a JSON answer, or
// 1 with one line on stderr for input or usage we cannot act on (the host
// shows it and carries on). Never 2: Claude Code would feed our stderr to
// the model as a reason to keep going.
package gate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/limit"
	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/internal/version"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
)

// Env is the process environment a hook sees; tests replace it.
type Env struct {
	Getenv func(string) string
	Now    func() time.Time
	// Environ is the whole environment, for the exporter the hooks start
	// (otlp.Kick); nil is os.Environ.
	Environ func() []string
}

// environ is e.Environ, else os.Environ.
func (e Env) environ() []string {
	if e.Environ != nil {
		return e.Environ()
	}
	return os.Environ()
}

// OSEnv is the real environment. Its clock reads UTC, which the records
// and the decision log are written in: a time in the local zone would
// load the zone's file at every stop (0.04 ms of a process's start,
// docs/performance.md) for an offset no record needs.
func OSEnv() Env { return Env{Getenv: os.Getenv, Now: utcNow} }

func utcNow() time.Time { return time.Now().UTC() }

// survive turns a panic of the hook's own goroutine into exit 1 with the
// panic and where on stderr: a hook that died of one would exit 2, which
// Claude Code reads as a block with the Go stack as its reason, and the
// hooks never exit 2. (A check's panic is its error: checkers.Run.)
func survive(code *int, stderr io.Writer) {
	if p := recover(); p != nil {
		lines := strings.SplitN(string(debug.Stack()), "\n", 17)
		fmt.Fprintf(stderr, "donegate: internal error, nothing decided (a bug; please report it with these lines): %v\n%s\n", p, strings.Join(lines[:min(len(lines), 16)], "\n"))
		*code = ExitError
	}
}

// Version is the stamped release version, else the module version from
// build info (see internal/version).
func Version() string { return version.String() }

// Options are what a run is given beyond its event: the hooks' flags,
// and what closer explain adds.
type Options struct {
	ConfigPath string // --config
	Dialect    string // --dialect
	StateDir   string // --state-dir
	// Host (--host) names the host that sent the event, instead of
	// hookio.DetectHost's guess.
	Host string
	// ProjectDir, when set, is the project dir instead of
	// $CLAUDE_PROJECT_DIR or the event's cwd (closer explain --dir).
	ProjectDir string
	// DryRun reads the block counts and the result cache but writes
	// neither, nor anything else under the state dir.
	DryRun bool
	// Explain records every top-level checker's outcome in the Report and
	// runs, after the hook's chain, those the chain stopped before.
	Explain bool
	// Criteria (stop-hook --criteria) answers SessionStart and
	// UserPromptSubmit with what will be checked, instead of checking.
	Criteria bool
	// SchemaTold replays a kept event whose hook found its host ran with
	// an output schema (see hookio.Event.SchemaTold): closer explain.
	SchemaTold bool
	// Start (stop-hook --start), registered to run in the background
	// after the agent's edits, starts the stop's cached command checks
	// for the tree as it is, so that the stop finds their results (see
	// start).
	Start bool
}

// newFlagSet is the flag set of the hook name, parsing into opts; version
// is set by --version.
func newFlagSet(name string, opts *Options) (fs *flag.FlagSet, version *bool) {
	fs = flag.NewFlagSet(name, flag.ContinueOnError)
	// A hook's stderr is shown to the person as one line: report a usage
	// error ourselves instead of letting the flag package print the usage.
	fs.SetOutput(io.Discard)
	fs.StringVar(&opts.ConfigPath, "config", "", "config `file` (default: $DONEGATE_CONFIG, then .claude/donegate.json and .donegate.json in the project dir, then in the event's cwd, then the embedded default)")
	fs.StringVar(&opts.Dialect, "dialect", "", "answer `dialect`: claude-code or sdk (overrides the config)")
	fs.StringVar(&opts.Host, "host", "", "the agent `host` that runs the hook: "+hostNames()+" (default: told from the event)")
	fs.StringVar(&opts.StateDir, "state-dir", "", "`dir` for block counts (default: $DONEGATE_STATE_DIR, %LOCALAPPDATA%\\donegate on Windows, $XDG_STATE_HOME/donegate, ~/.local/state/donegate)")
	if name == StopHookName {
		fs.BoolVar(&opts.Criteria, "criteria", false, "at SessionStart and UserPromptSubmit: tell the agent what will be checked before it may stop (register it for those events); checks nothing")
		fs.BoolVar(&opts.Start, "start", false, "at PostToolUse of the edit tools, run in the background (Claude Code's \"async\": true): start the stop's cached command checks for the tree the agent just wrote, so that the stop finds their results or joins the run; answers nothing, holds nothing")
	}
	return fs, fs.Bool("version", false, "print the version and exit")
}

// FlagSet is the flag set of the hook name (StopHookName or
// ToolHookName), as the hook parses it, with its summary: what
// docs/flags.md is generated from.
func FlagSet(name string) (fs *flag.FlagSet, summary string) {
	fs, _ = newFlagSet(name, new(Options))
	switch name {
	case StopHookName:
		summary = stopSummary()
	case ToolHookName:
		summary = toolSummary()
	}
	return fs, summary
}

// parseFlags parses args. done is true when the run is over (help,
// version, or a usage error) and code is its exit code.
func parseFlags(name string, summary func() string, args []string, stdout, stderr io.Writer) (opts Options, code int, done bool) {
	fs, version := newFlagSet(name, &opts)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags] < event.json\n\n%s\n\nFlags:\n", name, summary())
		cli.PrintFlags(fs.Output(), fs)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return opts, ExitOK, true
		}
		fmt.Fprintf(stderr, "%s: %s (see %s --help)\n", name, cli.FlagError(err), name)
		return opts, ExitError, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q; the event comes on stdin\n", name, fs.Arg(0))
		return opts, ExitError, true
	}
	if *version {
		fmt.Fprintf(stdout, "%s %s\n", name, Version())
		return opts, ExitOK, true
	}
	if opts.Dialect != "" {
		if _, err := hookio.ParseDialect(opts.Dialect); err != nil {
			fmt.Fprintf(stderr, "%s: --dialect: %v\n", name, err)
			return opts, ExitError, true
		}
	}
	if opts.Host != "" {
		if _, err := hookio.ParseHost(opts.Host); err != nil {
			fmt.Fprintf(stderr, "%s: --host: %v\n", name, err)
			return opts, ExitError, true
		}
	}
	return opts, ExitOK, false
}

// hostNames lists the hosts --host takes.
func hostNames() string {
	names := make([]string, len(hookio.Hosts))
	for i, h := range hookio.Hosts {
		names[i] = string(h)
	}
	return strings.Join(names, ", ")
}

// detectHost is the host that sent raw: --host, else what the event and
// the environment tell (hookio.DetectHost).
func detectHost(opts Options, env Env, raw []byte) hookio.Host {
	if opts.Host != "" {
		return hookio.Host(opts.Host)
	}
	return hookio.DetectHost(raw, env.Getenv)
}

// run is one hook invocation after the event has been read.
type run struct {
	// toldAlready: see Report.ToldAlready.
	toldAlready []string
	name        string
	opts        Options
	env         Env
	event       *hookio.Event
	raw         []byte // the event as received, for external checkers
	stderr      io.Writer
	// checkers is filled in when opts.Explain is set (see explainCheck).
	checkers []Outcome
	// newTurn: hostTurn gave the event a new turn, for keepTurn to
	// keep with the count.
	newTurn bool
	// consent is what was found of the person's consent (see config).
	consent *Consent
	// modeEnv is $DONEGATE_MODE's mode ("" for none), mode the run's
	// (see settleMode); modeNotice tells the person of a mode ignored.
	modeEnv, mode, modeNotice string
	// setAside are the project's checks a session whose agent changed
	// nothing did not run (see unchangedSince).
	setAside []string
	// recordErr is the failure with the session's record told last
	// (see recordFailed).
	recordErr string
	// peek is the session's record as the run found it (see session).
	peek struct {
		once sync.Once
		sess *state.Session
		err  error
	}
	// flaky are the test commands that failed, then passed when run
	// again: the person is told.
	flaky []checkers.Flaky
	// checked is the context the chain runs with, whose look at the tree
	// the session rule, the checks and the look for progress share (see
	// check); nil before the chain.
	checked *checkers.Context
}

// readOnly reports whether the run may write none of its bookkeeping:
// closer explain's dry run, and observe mode, which holds nobody and so
// counts no continuation.
func (r *run) readOnly() bool { return r.opts.DryRun || r.mode == config.ModeObserve }

// newRun starts a run of ev. The event's paths are expanded here, once,
// so that every use (the claude dir, the plan, the project dir) sees the
// same path: a transcript_path of "~/.claude/projects/..." once made the
// claude dir "~/.claude", the Task files were not found and an open plan
// passed.
func newRun(name string, opts Options, env Env, ev *hookio.Event, stderr io.Writer) *run {
	r := &run{name: name, opts: opts, env: env, stderr: stderr}
	e := *ev
	e.TranscriptPath = paths.Expand(r.env.Getenv, e.TranscriptPath)
	e.AgentTranscriptPath = paths.Expand(r.env.Getenv, e.AgentTranscriptPath)
	e.Cwd = paths.Expand(r.env.Getenv, e.Cwd)
	r.event = &e
	// Every later read of the environment sees the person's variables
	// only (see personsEnv), the mode's first.
	r.env, r.modeNotice = personsEnv(r.env, r.projectDir)
	if r.modeNotice != "" {
		fmt.Fprintf(r.stderr, "%s: %s\n", r.name, r.modeNotice)
	}
	r.modeEnv = r.envMode()
	if e.IsStop() && e.PromptID == "" {
		id, err := e.Turn(peekedSlot{r, turnSlot})
		if err != nil {
			fmt.Fprintf(r.stderr, "%s: cannot tell the %s turn, counting blocks per session: %v\n", r.name, e.Host.Title(), err)
		}
		e.PromptID = id
	}
	return r
}

// projectDir is --dir (explain only), else the host's project dir
// ($CLAUDE_PROJECT_DIR, else $GEMINI_PROJECT_DIR), else the event's cwd
// (Cursor's first workspace root), else ours.
func (r *run) projectDir() string {
	if r.opts.ProjectDir != "" {
		return r.opts.ProjectDir
	}
	if d := envProjectDir(r.env); d != "" {
		return d
	}
	if r.event.Cwd != "" {
		return r.event.Cwd
	}
	d, _ := os.Getwd()
	return d
}

// stateDir is --state-dir, else the environment's (see paths.StateDir).
func (r *run) stateDir() string {
	if r.opts.StateDir != "" {
		return r.opts.StateDir
	}
	return paths.StateDir(r.env.Getenv)
}

// envProjectDir is the project dir the host names in the hook's
// environment (see paths.ProjectDir).
func envProjectDir(env Env) string { return paths.ProjectDir(env.Getenv) }

func lookup(opts Options, env Env, cwd string) config.Lookup {
	l := config.Lookup{
		Flag:       opts.ConfigPath,
		Env:        env.Getenv("DONEGATE_CONFIG"),
		ProjectDir: envProjectDir(env),
		Cwd:        cwd,
	}
	if opts.ProjectDir != "" {
		l.ProjectDir, l.Cwd = opts.ProjectDir, ""
	}
	return l
}

// loadConfig loads the config file found, as it is on disk.
func (r *run) loadConfig() (*config.Config, config.File, error) {
	return config.ResolveFile(lookup(r.opts, r.env, r.event.Cwd))
}

// config is the config in force: the one on disk when the person allowed
// it, else the one they allowed (see resolveConsent), with what was found
// of their consent.
func (r *run) config() (*config.Config, error) {
	c, file, err := r.loadConfig()
	c, r.consent, err = r.resolveConsent(c, file, err)
	return c, err
}

func (r *run) dialect(c *config.Config) hookio.Dialect {
	if r.opts.Dialect != "" {
		return hookio.Dialect(r.opts.Dialect)
	}
	if c != nil && c.Dialect != "" {
		return hookio.Dialect(c.Dialect)
	}
	return hookio.DialectClaudeCode
}

// check runs the configured chain for reason under the config's budget.
func (r *run) check(ctx context.Context, c *config.Config, reason checkers.StopReason) (checkers.Result, error) {
	// One look at the tree serves the run: the session rule's below, the
	// checks' (a command renews it) and the look for progress after them.
	cc := r.checkerContext(c, reason)
	r.checked = cc
	specs := checkers.At(c.Checkers, reason)
	if (reason == checkers.ReasonStop || reason == checkers.ReasonSubagentStop) && !c.HoldUnchanged {
		if unchanged, since := r.unchangedSince(ctx, cc); unchanged {
			var dropped []string
			specs, dropped = checkers.AgentOnly(specs)
			if len(dropped) > 0 {
				r.setAside = dropped
				fmt.Fprintf(r.stderr, "%s: the agent has changed nothing since the session began (%s): the project's checks (%s) do not hold it\n",
					r.name, since.Local().Format("15:04:05"), strings.Join(dropped, ", "))
			}
		}
	}
	chain, err := checkers.Chain(specs)
	if err != nil {
		return checkers.Result{}, err
	}
	budget := c.Limits.Budget.D()
	if d := r.event.Host.HookDeadline(); d > 0 && budget > d-deadlineMargin {
		// The host gives up on a hook at d whatever its timeout (Qwen
		// Code: 60 s, and the agent's turn is lost): a check that runs
		// on is cut at the budget instead, and the agent is told so.
		fmt.Fprintf(r.stderr, "%s: %s waits %d s for a hook: limits.budget %s is cut to %s\n", r.name, r.event.Host.Title(), int(d/time.Second), budget, d-deadlineMargin)
		budget = d - deadlineMargin
	}
	// Its timer starts when a check first waits on it (see budgetContext).
	ctx, cancel := withBudget(ctx, budget)
	defer cancel()
	cc.Budget, cc.Continued = budget, sync.OnceValues(r.continued)
	if r.consent == nil {
		// config() was not called: nothing is known to be allowed.
		r.consent = &Consent{Project: r.projectDir()}
		cc.Consent = r.consent
	}
	// A user's retry template renders within what is left of the budget.
	cc.RenderBy, _ = ctx.Deadline()
	// A user's retry template that failed to render was replaced by the
	// built-in one; say which, once, where the user looks.
	defer func() {
		if err := cc.TemplateError(); err != nil {
			fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		}
	}()
	if r.opts.Explain {
		return r.explainCheck(ctx, chain, cc)
	}
	// Each member's outcome is kept for the decision log.
	watched, out := watch(chain)
	res, err := watched.Check(ctx, cc)
	r.consent.NotRun = cc.NotRun()
	r.checkers = out
	r.flaky = cc.Flakies()
	return res, err
}

// deadlineMargin is what a stop leaves of a host's hook deadline (see
// hookio.Host.HookDeadline) for the hook's start and answer: Qwen Code's
// 60 s give a budget of 50 s. A variable for the tests.
var deadlineMargin = 10 * time.Second

// checkerContext is what every run of the config's checkers shares: the
// event, where the project, the cache and the state are, the templates
// and the consent (when the run has resolved it). The stop adds its
// budget and count, an early start its budget.
func (r *run) checkerContext(c *config.Config, reason checkers.StopReason) *checkers.Context {
	cc := &checkers.Context{
		Event:      r.event,
		RawEvent:   r.raw,
		ProjectDir: r.projectDir(),
		Getenv:     r.env.Getenv,
		Home:       paths.Home(r.env.Getenv),
		Reason:     reason,
		CacheDir:   filepath.Join(r.stateDir(), "results"),
		StateDir:   r.stateDir(),
		ReadOnly:   r.opts.DryRun,
		Templates:  c.Templates,
		// The config in force at a stop is the allowed one; at the shell
		// tool's PostToolUse it is the one on disk, whose runs are
		// remembered but reused only where the stop's config says so.
		ReuseAgentRuns: c.ReuseAgentRuns,
	}
	if r.consent != nil {
		cc.Consent = r.consent
	}
	if reason == checkers.ReasonStop || reason == checkers.ReasonSubagentStop {
		cc.Since = r.sessionStart(c)
	}
	return cc
}

// continued reads how many times the agent has been continued in the
// event's prompt at this run's gate, for the iterations checker: before
// the chain runs, from the state dir, changing nothing (the count is
// decide's to change).
func (r *run) continued() (int, error) {
	s, err := r.session()
	if err != nil {
		return 0, fmt.Errorf("block count: %w", err)
	}
	return limit.Continued(s.Counters[gateKey(r.event)], r.event.PromptID), nil
}

// turnSlot is the state slot where a host's turn reader keeps what it
// needs (see hookio.Event.Turn).
const turnSlot = "host.turn"

// peekedSlot is a slot of the session's record as the run found it, for
// a reader that only recalls (hookio.Event.Turn): the record is read at
// the first Recall, not before.
type peekedSlot struct {
	r   *run
	key string
}

func (p peekedSlot) Recall(v any) bool {
	s, err := p.r.session()
	return err == nil && s.Get(p.key, v)
}

func (p peekedSlot) Update(func(func(any) bool) any) error {
	return fmt.Errorf("state slot %s: read only here", p.key)
}

// session is the session's record as the run found it, read once: the
// turn, the release, the session's start, the count and the holds
// without progress are all read from it, and only the count's update
// (decide) reads it again, under the lock. Checkers may ask from several
// goroutines (a parallel composite's iterations).
func (r *run) session() (*state.Session, error) {
	r.peek.once.Do(func() {
		r.peek.sess, r.peek.err = state.Store{Dir: r.stateDir()}.Peek(r.event.SessionID)
	})
	return r.peek.sess, r.peek.err
}

// found takes sess, read under the session's lock by keepEvent, as the
// record the run found, unless the run read it before.
func (r *run) found(sess *state.Session) {
	r.peek.once.Do(func() { r.peek.sess = sess })
}

// gateKey names the counter a verdict is counted under.
func gateKey(ev *hookio.Event) string {
	switch {
	case ev.HookEventName == hookio.EventSubagentStop:
		return limit.SubagentPrefix + ev.AgentID
	case ev.ToolName != "":
		return "tool:" + ev.ToolName
	}
	return "stop"
}

// decide turns a check into a verdict. Open work blocks the agent within
// the limits (package limit decides; this does the IO around it): after
// limits.max_blocks continuations of one gate in one prompt, or once
// limits.deadline has passed since its first block, the agent is let go.
func (r *run) decide(c *config.Config, res checkers.Result, checkErr error) (hookio.Verdict, Decision) {
	var reason string
	var why Decision
	switch {
	case checkErr != nil && c.OnError != "block":
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, checkErr)
		r.reset(gateKey(r.event))
		return hookio.Verdict{SystemMessage: fmt.Sprintf("donegate could not check whether the work is done, so the agent may stop: %v", checkErr)},
			Decision{Kind: KindCheckFailed, Err: checkErr}
	case checkErr != nil:
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, checkErr)
		reason = fmt.Sprintf("donegate could not check whether your work is done: %v\nFix the cause (for example the donegate config) before you finish.", checkErr)
		why.Err = checkErr
	case res.Complete:
		r.reset(gateKey(r.event))
		return hookio.Verdict{}, Decision{Kind: KindComplete}
	default:
		reason = res.Feedback
	}

	lim := limit.Limits{MaxBlocks: c.Limits.MaxBlocks, Deadline: c.Limits.Deadline.D()}
	why.MaxBlocks = lim.MaxBlocks
	now := r.env.Now()
	key := gateKey(r.event)
	look := r.progressLook(context.Background(), key, res, lim, now)
	var d limit.Decision
	count := func(s *state.Session) error {
		for _, k := range limit.Prune(s.Counters, key, r.event.PromptID, now) {
			delete(s.Counters, k)
		}
		var next limit.Counter
		var keep bool
		d, next, keep = limit.Open(counter(s, key), r.event.PromptID, lim, now)
		if d.Block {
			inRow, since := stalled(s, key, look, r.event)
			switch most := c.Limits.HoldsPerPrompt(); {
			case inRow > lim.MaxBlocks:
				d = limit.Decision{Limit: "no_progress", Why: fmt.Sprintf("%d holds in a row changed nothing: the working tree, the plan and what is open are as they were, and no new prompt came", inRow-1)}
			case since > most:
				d = limit.Decision{Limit: "max_holds_per_prompt", Why: fmt.Sprintf("%d holds since your last prompt (limits.max_holds_per_prompt %d), over the host's own turns", since-1, most)}
			}
		}
		why.Blocks = next.Blocks
		if keep {
			s.Counters[key] = &next
		} else {
			delete(s.Counters, key)
		}
		if d.Block {
			r.event.KeepHeld(s.Slot(turnSlot), reason)
		}
		return r.keepTurn(s, key)
	}
	// A dry run counts on a copy of the stored count, which stays as it is.
	store := state.Store{Dir: r.stateDir(), ReadOnly: r.readOnly()}
	if err := store.Update(r.event.SessionID, count); err != nil {
		// Our own bookkeeping failed: never block on it, and say so.
		r.recordFailed(err)
		why.Kind, why.Err = KindStateFailed, err
		return hookio.Verdict{SystemMessage: fmt.Sprintf("donegate cannot keep its block count (%v), so it lets the agent stop; still open: %s", err, reason)}, why
	}
	if d.Block {
		why.Kind = KindBlocked
		return hookio.Verdict{Block: true, Reason: reason}, why
	}
	why.Kind, why.Limit, why.Why = KindLetGo, d.Limit, d.Why
	return letGo(d.Why, reason), why
}

func letGo(why, reason string) hookio.Verdict {
	return hookio.Verdict{SystemMessage: "donegate: " + why + "; letting the agent stop: " + reason}
}

// reset clears the count of a gate once its work is done, so the next
// unfinished stop of the session starts a fresh count.
func (r *run) reset(key string) {
	if r.readOnly() {
		return
	}
	if s, err := r.session(); err == nil && !counts(s, key) {
		// Nothing to clear in the record as the run found it: no write,
		// and no record made for nothing.
		return
	}
	store := state.Store{Dir: r.stateDir()}
	err := store.Update(r.event.SessionID, func(s *state.Session) error {
		delete(s.Counters, key)
		progressed(s, key)
		return nil
	})
	if err != nil {
		r.recordFailed(err)
	}
}

// recordFailed tells err, a failure to read or write the session's
// record, on stderr: once, though keeping the event and updating the
// count each meet it.
func (r *run) recordFailed(err error) {
	if msg := err.Error(); msg != r.recordErr {
		r.recordErr = msg
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
	}
}

// configFailure is the verdict when no valid config could be loaded. The
// on_error policy of a config we cannot parse is unknown, so the default
// (allow) applies.
func (r *run) configFailure(err error) hookio.Verdict {
	fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
	return hookio.Verdict{SystemMessage: fmt.Sprintf("donegate is not checking this session, its config is broken: %v", err)}
}

// guarded reports whether this hook runs inside a command that donegate
// started to check this very session; checking again would recurse.
func (r *run) guarded() bool {
	g := r.env.Getenv(proc.GuardEnv)
	return g != "" && g == r.event.SessionID
}
