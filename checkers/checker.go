// Package checkers holds donegate's task-completion checkers: small values
// that look at one aspect of an agent's work (its plan, required files, a
// test command) and say whether that aspect is done.
//
// The protocol is deliberately tiny, like golang.org/x/tools/go/analysis:
// a Checker returns a Result — findings are data — and an error only when
// the check itself could not run. "Work is open" is never an error.
//
// Checkers must not print, exit or know the hook wire format; package
// hookio and the hooks' runner do that.
package checkers

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/feedback"
	"github.com/donegate/donegate/internal/treecache"
)

// Result is a checker's finding.
type Result struct {
	Complete bool
	// Feedback says what is left (when incomplete) or what was verified.
	// It is written for the agent: exact, short, actionable.
	Feedback string
	// Pattern names what failed ("test-failed", see feedback.Patterns),
	// and Params are its parameters: the data its retry template renders
	// into Feedback (see Context.Fail). Both are empty for a complete
	// result. An "any" composite none of whose members is complete
	// carries those of its most actionable alternative, which its
	// Feedback tells first, followed by the others.
	Pattern string
	Params  map[string]any
	// NotRun marks the result of a check that did not run for want of
	// the person's consent (see Consent): Complete, so that it never
	// holds the agent, unless the Consent withholds it (a project the
	// person allowed whose command changed since: open, saying why);
	// skipped by an "any" composite, so that it never passes one either.
	NotRun bool
	// ran is the runner's report of the tests a passing run ran (see
	// goReport), kept with the result in the cache; nil where there is
	// none.
	ran json.RawMessage
}

// OK returns a complete result.
func OK(feedback string) Result { return Result{Complete: true, Feedback: feedback} }

// Incomplete returns a result that says work is open.
func Incomplete(feedback string) Result { return Result{Complete: false, Feedback: feedback} }

// Checker checks one aspect of the work. ctx carries the deadline of the
// whole chain. An error means the check could not run.
type Checker interface {
	Check(ctx context.Context, c *Context) (Result, error)
}

// Run runs ch's check, with a panic in it (a bug in donegate, or in a
// checker) returned as an error: the check could not run, which the
// config's on_error decides, rather than the hook dying with exit 2
// (what Claude Code reads as a block, the Go stack as the reason). A
// panic in a goroutine the check starts is not caught here.
func Run(ctx context.Context, ch Checker, c *Context) (r Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = Result{}, fmt.Errorf("the check panicked (a bug; please report it with this line): %v\n%s", p, firstFrames(debug.Stack(), 12))
		}
	}()
	return ch.Check(ctx, c)
}

// firstFrames is the first n lines of a stack: enough to find the bug,
// short enough for a log line.
func firstFrames(stack []byte, n int) string {
	lines := strings.SplitN(string(stack), "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// StopReason says what the agent is trying to do.
type StopReason string

// Stop reasons: the config's events (config.Events, the one list), as
// the checkers are asked at them.
const (
	ReasonStop         StopReason = config.OnStop         // the main agent ends its turn
	ReasonSubagentStop StopReason = config.OnSubagentStop // a subagent ends
	ReasonToolUse      StopReason = config.OnToolUse      // the agent calls a gated tool, such as StructuredOutput
	ReasonManual       StopReason = config.OnManual       // asked from the command line
)

// SessionStart is what the hooks saw of a session's start.
type SessionStart struct {
	// At is when the session began.
	At time.Time
	// Head is the commit HEAD was at then (treecache.NoCommit for a
	// branch with none), "" where it could not be read.
	Head string
	// Edited are the files (absolute) the agent wrote through its edit
	// tools since, git-ignored ones included; EditedMany says there were
	// more than were kept, so any file may be one.
	Edited     []string
	EditedMany bool
}

// Context is what checkers may look at. Its fields are resolved by the
// caller (environment, paths), so checkers never read the environment
// (the host's readers are handed Getenv).
type Context struct {
	// Event is the hook event; for a command-line check it is synthetic.
	Event *hookio.Event
	// RawEvent is the event as the host sent it, for checkers that hand it
	// on (external); nil for a command-line check.
	RawEvent []byte
	// ProjectDir is $CLAUDE_PROJECT_DIR, else the event's cwd.
	ProjectDir string
	// Home is the user's home dir: a Qwen Code session whose transcript
	// path does not show its Qwen dir keeps its todos under Home/.qwen
	// (see transcript.QwenDir). "" leaves only the transcript path.
	Home string
	// Getenv is the hook's environment, for the host's own readers to
	// find where it keeps the plan ($CLAUDE_CONFIG_DIR, say: see
	// hookio.PlanQuery); checkers themselves read no variable, but for
	// the user's config files a detected command's program reads
	// (~/.npmrc, ~/.bazelrc: see userNpmrc), which they find as that
	// program does, from the environment it inherits: the process's.
	// nil: none is set.
	Getenv func(string) string
	// Reason says what the agent is trying to do.
	Reason StopReason
	// Budget is the whole chain's time budget, for messages.
	Budget time.Duration
	// Runner runs commands; nil means the real one.
	Runner Runner
	// Env is added to the environment of commands that checkers run.
	Env []string
	// CacheDir holds remembered command results; "" disables the cache.
	CacheDir string
	// StateDir holds per-session records (git-commits' baselines); ""
	// when there is none.
	StateDir string
	// ReadOnly keeps checkers from writing under CacheDir and StateDir:
	// remembered results are used but none is added, and git-commits
	// reads its baseline without recording one. closer explain sets it to
	// show what a hook would decide without changing what the next hook
	// sees.
	ReadOnly bool
	// ReuseAgentRuns lets the agent's own passing run of a check's
	// command through its shell tool stand for the check while the tree
	// is unchanged (the config's "reuse_agent_runs"; see RecordAgentRun
	// and mayReuse). Off, such a run is neither remembered nor reused.
	ReuseAgentRuns bool
	// Templates word failures (see Fail); nil means the built-in ones.
	Templates *feedback.Set
	// RenderBy is when a user's template must have rendered: the end of
	// the chain's budget (zero: feedback's own bound). See
	// feedback.Set.RenderBy.
	RenderBy time.Time
	// Continued returns how many times the agent has been continued in
	// the event's prompt at the gate this run decides for (the main
	// agent's stop, this subagent's, this gated tool): the block count
	// kept in the state dir, read without changing it. The hooks set it
	// to read the count only when a checker asks, so a chain without an
	// iterations checker reads nothing more. nil when there is no count
	// to read, as for a check from the command line.
	Continued func() (int, error)
	// Consent decides whether a command of the project may run (see
	// ProjectCommand); nil lets every command run, as for a check the
	// person runs from the command line. The hooks always set it.
	Consent Consent
	// Early says the checks start before the stop (stop-hook --start,
	// after the agent's edits): a cached command check runs only when no
	// result is remembered for the tree and no other process runs it for
	// that tree, gives way to a stop's run for another tree, stops when a
	// stop wants another tree, and only remembers what it finds (see
	// runOnce). Nothing else runs.
	Early bool
	// Since is what the hooks saw of the session's start; nil where none
	// was seen (a check from the command line, a host with no start
	// event) or the config holds the agent for what it did not change.
	// A workspace's test check runs only the packages the agent changed
	// since, and those that depend on them (see workspaceTest).
	Since *SessionStart

	// notesMu guards what the run notes for the hook to tell: the
	// commands Consent kept from running (see NotRun), why each command
	// ran rather than being reused (Fresh), the test commands that failed
	// and then passed (Flakies). Checkers of a parallel composite note at
	// once.
	notesMu sync.Mutex
	notRun  []ProjectCommand
	fresh   []string
	flaky   []Flaky

	// templateErrs are the user templates that failed to render in this
	// run, which the built-in ones replaced (see TemplateError).
	templateMu   sync.Mutex
	templateErrs []error

	// reused counts results taken from the cache (see Reused).
	reused atomic.Int64

	// tree is the run's shared look at the working tree (see tree); a
	// Context is used by pointer, one per run.
	tree tree
}

// noteFresh records why a command ran rather than its result being
// reused.
func (c *Context) noteFresh(why string) {
	c.notesMu.Lock()
	c.fresh = append(c.fresh, why)
	c.notesMu.Unlock()
}

// Fresh returns why each command of the run from the n-th on ran rather
// than its result being reused, and how many there are now: the
// decision log's record.
func (c *Context) Fresh(n int) ([]string, int) {
	c.notesMu.Lock()
	defer c.notesMu.Unlock()
	if n > len(c.fresh) {
		n = len(c.fresh)
	}
	return slices.Clone(c.fresh[n:]), len(c.fresh)
}

// Reused returns how many results this run took from the cache instead
// of running a command or asking gh: closer explain tells a reused result
// from a fresh one by it.
func (c *Context) Reused() int64 { return c.reused.Load() }

// cache is the run's result cache.
func (c *Context) cache() treecache.Cache {
	return treecache.Cache{Dir: c.CacheDir, ReadOnly: c.ReadOnly}
}

// runner returns the Runner to run commands with. Each command run starts
// a new look at the tree (see tree).
func (c *Context) runner() Runner {
	r := c.Runner
	if r == nil {
		r = execRunner{}
	}
	var session string
	if c.Event != nil {
		session = c.Event.SessionID
	}
	return treeRunner{Runner: r, tree: &c.tree, session: session}
}

// Fail returns an incomplete result of pattern whose feedback is
// pattern's template rendered with params. A user's template that fails
// to render is replaced by the built-in one and remembered for
// TemplateError: checkers do not print.
func (c *Context) Fail(pattern string, params map[string]any) Result {
	if onFail != nil {
		onFail(pattern)
	}
	text, err := c.Templates.RenderBy(c.RenderBy, pattern, params)
	switch {
	case err != nil && text == "":
		// A built-in template that cannot render is our bug; the agent
		// still gets the pattern's name.
		text = fmt.Sprintf("%s (donegate could not word it: %v)", pattern, err)
	case err != nil:
		c.templateMu.Lock()
		if !slices.ContainsFunc(c.templateErrs, func(e error) bool { return e.Error() == err.Error() }) {
			c.templateErrs = append(c.templateErrs, err)
		}
		c.templateMu.Unlock()
	}
	return Result{Feedback: text, Pattern: pattern, Params: params}
}

// onFail, when set, is told each pattern Fail is asked for: the package's
// tests collect them to check that every pattern a checker reports is
// declared by its type and has a template (see TestMain).
var onFail func(pattern string)

// TemplateError says which of the user's retry templates failed to render
// in this run (each once), in one line, for the hook to print; nil when
// none did.
func (c *Context) TemplateError() error {
	c.templateMu.Lock()
	defer c.templateMu.Unlock()
	if len(c.templateErrs) == 0 {
		return nil
	}
	msgs := make([]string, len(c.templateErrs))
	for i, e := range c.templateErrs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("retry template %s", strings.Join(msgs, "; "))
}
