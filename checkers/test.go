package checkers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/feedback"
	"github.com/donegate/donegate/internal/treecache"
)

// Test runs a shell command in the project dir and is complete when it
// exits 0. It is the way to require green tests, a clean lint, a build.
// Without a command it runs the project's own test command, detected from
// its files when it is checked (see DetectTestCommand), and a project
// whose files name none passes: this is what the embedded default runs,
// and a config that holds every project it is used in for nothing, or
// refuses them all, would be worse than one that checks what exists.
//
// With Cache set, a result is remembered by the state of the working tree
// (see package treecache) and reused while the tree is unchanged, failures
// included: a Stop hook fires on every turn, and rerunning a slow suite on
// a tree nobody touched only costs time.
type Test struct {
	Command string
	Timeout time.Duration // zero means the default
	Cache   bool
	// IgnoreWeakening turns off the comparison of the tests with the
	// session's baseline (see weakened).
	IgnoreWeakening bool
	// ScopeAll runs the command whole where it could run the changed
	// packages of a workspace only (see workspaceTest).
	ScopeAll bool
}

// TestOptions are a test checker's options.
type TestOptions struct {
	// Command is run with sh -c in the project dir; it passes when it
	// exits 0. Left out: the project's test command, detected from its
	// files when checked as closer init detects it (a Bazel workspace:
	// bazel test //...; go.mod: go test ./...;
	// a go.work at a root that is no module: go test ./MOD/... for each
	// module it uses; package.json's "test" script: npm test; pytest;
	// cargo test; a Makefile's test target: make test); none detected
	// passes.
	Command string `json:"command"`
	// Timeout bounds one run. Left out: 5m.
	Timeout config.Duration `json:"timeout,omitempty" validate:"gte=0"`
	// Cache reuses the result of the command while the working tree is
	// unchanged; false for a command whose result depends on more than
	// the tree. Left out: true.
	Cache *bool `json:"cache,omitempty"`
	// Weakening is what a passing run whose change weakened the tests
	// (skip or focus markers added, tests deleted, the test command made
	// a no-op; compared in git with HEAD when the session began) counts
	// as: "hold", not a pass, or "ignore". Left out: "hold".
	Weakening string `json:"weakening,omitempty" validate:"omitempty,oneof=hold ignore"`
	// Scope is what a detected command that tests a workspace's packages
	// runs (`npm test` whose script runs them with --workspaces, `pnpm
	// -r` or `yarn workspaces foreach -A`, `cargo test` at a virtual
	// Cargo manifest): "changed", the tests of the packages the agent
	// changed since the session began and of those that depend on them
	// (declared, or found in their files), each result reused by what it
	// depends on; or "all", the command whole. Left out: "changed".
	Scope string `json:"scope,omitempty" validate:"omitempty,oneof=changed all"`
}

// CacheEnabled reports whether the checker may reuse results.
func (o *TestOptions) CacheEnabled() bool { return cacheOn(o.Cache) }

// testTypeName is the test checker type's name in a config.
const testTypeName = "test"

// The test checker type. It checks the project, not one
// agent: every subagent's stop would run the suite.
var _ = declare(testTypeName, func() *Type {
	t := register(Type{
		Name:         testTypeName,
		ProjectState: true,
		Summary:      "the project's tests pass: `sh -c COMMAND`, run in the project dir, exits 0; `command` left out: detected from the project's files (a Bazel workspace, go.mod, go.work, package.json, pytest, Cargo.toml, a Makefile `test` target), none detected passes",
		DefaultOn:    projectReasons,
		Patterns:     []string{"test-failed", "tests-weakened"},
		Example:      `{"type": "test", "command": "x", "timeout": "1m", "cache": true, "weakening": "ignore", "scope": "all"}`,
	}, func(o *TestOptions) (Checker, error) {
		return Test{Command: o.Command, Timeout: o.Timeout.D(), Cache: o.CacheEnabled(), IgnoreWeakening: o.Weakening == weakeningIgnore, ScopeAll: o.Scope == "all"}, nil
	}, func(o *TestOptions) string {
		if o.Command != "" {
			return "`" + o.Command + "` passes"
		}
		return "the project's own test command passes (detected from its files when checked: " + detectedExamples + "; none detected: nothing to run)"
	})
	commands(t, func(o *TestOptions, dir string) ([]ProjectCommand, error) {
		if o.Command != "" {
			return []ProjectCommand{{Checker: "test", Command: o.Command}}, nil
		}
		d, err := DetectTestCommand(dir)
		if err != nil || d.Command == "" {
			return nil, err
		}
		return []ProjectCommand{d.ProjectCommand()}, nil
	})
	return t
})

// DefaultTimeout applies when a test checker sets none.
const DefaultTimeout = 5 * time.Minute

// tailLines is how many output lines a failure reports.
const tailLines = 40

// Check implements Checker: the command must exit 0, and the feedback
// speaks of tests.
// commandCheck is the command check t runs in c's project: its command,
// else the one the project's files name; ok is false when they name none.
func (t Test) commandCheck(c *Context) (k commandCheck, ok bool, err error) {
	k = commandCheck{kind: "test", command: t.Command, timeout: t.Timeout, cache: t.Cache, voice: &testVoice, wholeOnly: t.ScopeAll, weakening: !t.IgnoreWeakening}
	var d DetectedTest
	if k.command == "" {
		var err error
		if d, err = DetectTestCommand(c.ProjectDir); err != nil {
			return k, false, fmt.Errorf("detecting the project's test command: %w", err)
		}
		k.command, k.from, k.definition = d.Command, d.From, d.Definition
	} else if found, err := DetectTestCommand(c.ProjectDir); err == nil && found.Command == k.command && found.From != "" {
		// The config names the very command the project's files give
		// (closer init writes it so): it runs as the detected one does,
		// a workspace's packages one by one and the runner's report
		// read; its consent stays the config's command's.
		d, k.from, k.named = found, found.From, true
	}
	if d.Command != "" {
		if j, roots, ok := goJSONCommand(d.Command, d.From); ok {
			k.jsonCommand, k.goRoots = j, roots
		}
		k.ran = ranRunnerOf(d.Command, d.From, c.ProjectDir)
	}
	return k, k.command != "", nil
}

func (t Test) Check(ctx context.Context, c *Context) (Result, error) {
	k, ok, err := t.commandCheck(c)
	switch {
	case err != nil:
		return Result{}, err
	case !ok:
		return OK(fmt.Sprintf("No test command detected in %s (looked for %s): nothing to run.", c.ProjectDir, TestSigns())), nil
	}
	command := k.command
	r, err := k.check(ctx, c)
	if err != nil || (!r.Complete && !r.NotRun) || !k.weakening {
		return r, err
	}
	// It passed, or did not run for want of consent: either way a change
	// that weakened the tests holds the agent, and says so first.
	found, base, werr := weakened(ctx, c)
	if werr == nil && base != "" && r.Complete && !r.NotRun && r.ran != nil && k.ran != nil {
		// A runner's report: judged by the session's earlier stops.
		var rep ranReport
		if err := json.Unmarshal(r.ran, &rep); err == nil {
			more := fromStart(ctx, c.ProjectDir, base, ranWeaknesses(k.ran, c.ranEarlier(k.ran), rep))
			found = appendUntold(found, more)
			c.ranRemember(k.ran, rep)
		}
	} else if werr == nil && base != "" && r.Complete && !r.NotRun && r.ran != nil {
		// go test -json's: judged by the session's start.
		var rep goReport
		if err := json.Unmarshal(r.ran, &rep); err == nil {
			roots := k.goRoots
			if rep.Roots != nil {
				roots = rep.Roots // the modules a workspace's stop ran or reused
			}
			var more []weakness
			var note string
			var err error
			if len(roots) > 0 {
				more, note, err = goWeaknesses(ctx, c, base, roots, rep)
			}
			switch {
			case err != nil && ctx.Err() == nil:
				r.Feedback += fmt.Sprintf("\n(donegate could not compare the tests that ran with those of the session's start: %v)", err)
			case note != "":
				r.Feedback += "\n(" + note + ")"
			}
			found = appendUntold(found, more)
		}
	}
	switch {
	case werr != nil && ctx.Err() == nil:
		r.Feedback += fmt.Sprintf("\n(donegate could not compare the tests with the session's baseline: %v)", werr)
		return r, nil
	case len(found) == 0:
		return r, nil
	}
	more := max(len(found)-maxWeaknesses, 0)
	list := make([]map[string]any, 0, min(len(found), maxWeaknesses))
	for _, w := range found[:len(found)-more] {
		list = append(list, map[string]any{"File": w.File, "Line": w.Line, "Test": w.Test, "What": w.What})
	}
	// tests-weakened: Command, the test command; Ran, whether it ran (and
	// passed); Baseline, the commit compared with, abbreviated;
	// Weaknesses, each {File, Line (0: the whole file), Test ("" when
	// unknown), What}; More, how many more were found.
	w := c.Fail("tests-weakened", map[string]any{"Command": command, "Ran": !r.NotRun, "Baseline": short(base), "Weaknesses": list, "More": more})
	if !r.Complete {
		// Withheld for want of consent: that is open too.
		w.Feedback += "\n" + r.Feedback
	}
	return w, nil
}

// appendUntold appends to found the weaknesses of more whose test found
// does not name already: a deleted test is told once, as the diff rules
// tell it.
func appendUntold(found, more []weakness) []weakness {
	told := map[string]bool{}
	for _, w := range found {
		if w.Test != "" {
			told[w.Test] = true
		}
	}
	for _, w := range more {
		if !told[w.Test] {
			found = append(found, w)
		}
	}
	return found
}

// detectedExamples names the commands a test checker without one may
// detect, for descriptions.
const detectedExamples = "`bazel test //...`, `go test ./...`, `npm test`, `pytest`, `cargo test` or `make test`"

// testVoice is how a test checker speaks. Scripts and the end-to-end
// tests match the sentences of its template (test-failed): keep them.
var testVoice = voice{
	noun:    "test command",
	pattern: "test-failed",
	passed: func(k commandCheck) string {
		if k.graph != "" {
			return fmt.Sprintf("The test command `%s` passed: %s ran the tests of the packages changed since the session began and of those that depend on them.", k.command, k.graph)
		}
		return fmt.Sprintf("The test command `%s` passed.", k.command)
	},
}

// fingerprintShare: fingerprinting the tree gets at most this fraction of
// the time the command would have, so that when it cannot finish (an
// untracked 8 GB file once took 22.8 s of a 3 s budget) the command still
// runs, uncached, with the rest.
const fingerprintShare = 4

// fingerprint is what fingerprinting the tree cost before a run, so that a
// run cut short by the budget is not blamed for that time.
type fingerprint struct {
	took     time.Duration
	cutShort bool // it did not finish in time: the command runs uncached
}

// cached runs a command-running checker's run at most once per state of
// the working tree (see package treecache): a result remembered for the
// current state, failures included, is returned instead. parts name what
// else the result depends on (the checker's type, its command). run says
// whether its command was stopped by a timeout or the budget, which says
// nothing about the tree.
func cached(ctx context.Context, c *Context, own time.Duration, parts []string,
	run func(context.Context, fingerprint) (r Result, ended bool, err error)) (Result, error) {
	start := time.Now()
	state, err := c.treeState(ctx, own) // one look per run, shared by the chain
	if err != nil && c.Early {
		return Result{Complete: true, NotRun: true, Feedback: fmt.Sprintf("Not started early: the working tree could not be fingerprinted (%v).", err)}, nil
	}
	if err != nil {
		c.noteFresh(fmt.Sprintf("%s: the working tree could not be fingerprinted (%v)", strings.Join(parts, " "), err))
		// Too large, changing right now, or out of time: run uncached.
		fp := fingerprint{took: time.Since(start), cutShort: errors.Is(err, context.DeadlineExceeded)}
		r, _, err := run(ctx, fp)
		return r, err
	}
	took := time.Since(start)
	key := c.resultKey(parts, state)
	slot := treecache.Key(append(parts, c.ProjectDir)...)
	keep := func() bool {
		// Remember the result only if the run left the tree as it found
		// it: a command that writes files git does not ignore changes the
		// state, and its result would belong to neither state. The
		// command made the run's shared look stale, so this is a new
		// look, which the next cached checker of the chain then reuses.
		after, err := c.treeState(ctx, own)
		return err == nil && after == state && key == c.resultKey(parts, after)
	}
	r, e, err := c.runOnce(ctx, slot, key, func(ctx context.Context) (Result, bool, error) {
		c.noteFresh(strings.Join(parts, " ") + ": no result for this state of the working tree")
		return run(ctx, fingerprint{took: took})
	}, keep)
	if e != nil {
		r = c.reuse(*e)
		r.Feedback += fmt.Sprintf("\n(donegate reused the result of %s at %s: the working tree has not changed since.)",
			e.RunBy(), e.At.UTC().Format(time.RFC3339))
		return r, nil
	}
	return r, err
}

// resultKey is the key of a result of the check parts names for the
// working tree in state, and for the files the agent wrote through its
// edit tools (see editedState) where there are any.
func (c *Context) resultKey(parts []string, state string) string {
	parts = append(slices.Clip(parts), c.ProjectDir, state)
	if edited := c.editedState(c.ProjectDir); edited != "" {
		parts = append(parts, edited)
	}
	return treecache.Key(parts...)
}

// runOnce returns the entry remembered for key, or runs run and
// remembers its result when keep says so (a run cut short, ended, never
// is): in either case at most one process at a time runs the check of
// slot, and a process that finds it running for key waits for that run
// and takes its result (see treecache.Claim). An early run (Context.Early)
// that finds another run in the way, for its tree or a stop's, returns
// a result that says so, and its run ends when a stop wants another tree.
// Where the runs cannot be ordered (the cache dir is not writable), it
// runs on its own.
func (c *Context) runOnce(ctx context.Context, slot, key string, run func(context.Context) (Result, bool, error), keep func() bool) (r Result, reused *treecache.Entry, err error) {
	cache := c.cache()
	if e, ok := cache.Get(key); ok && c.mayReuse(e) {
		return Result{}, &e, nil
	}
	e, hit, cl, err := cache.Claim(ctx, slot, key, c.Early)
	switch {
	case hit && c.mayReuse(e):
		return Result{}, &e, nil
	case hit:
		// The agent's own run, which may not stand for the check: run
		// here, beside the runs the claim orders.
	case err != nil && c.Early:
		// Another run is in the way, or the runs cannot be ordered: the
		// stop runs it.
		return Result{Complete: true, NotRun: true, Feedback: fmt.Sprintf("Not started early: %v.", err)}, nil, nil
	case err != nil && ctx.Err() != nil:
		// The budget ran out while another process ran it: run says so,
		// and this says whose run it waited for.
		r, _, err := run(ctx)
		r.Feedback += "\n(donegate waited for a run of it already going for this working tree, started after the agent's last edit or by another hook, until the budget ran out: that run goes on, and the next stop takes its result.)"
		return r, nil, err
	case err == nil:
		var cancel context.CancelFunc
		ctx, cancel = cl.Watch(ctx)
		defer cl.Release() // after the Put below, and after cancel
		defer cancel()
	}
	r, ended, err := run(ctx)
	if err != nil || ended {
		// A run cut short says nothing about the tree: never remember it.
		return r, nil, err
	}
	if keep() {
		e := entryOf(r)
		if c.Early {
			e.By = treecache.ByEarly
		}
		_ = cache.Put(key, e)
	}
	return r, nil, nil
}

// mayReuse reports whether a remembered entry may stand for a run: an
// entry of the agent's own run (treecache.ByAgent) only where the config
// the person allowed says so (Context.ReuseAgentRuns). What the agent's
// shell printed, it could have made up: a function or alias named like
// the command, a shim on its PATH.
func (c *Context) mayReuse(e treecache.Entry) bool {
	return e.By != treecache.ByAgent || c.ReuseAgentRuns
}

// reuse is the result a remembered entry stands for, counted as reused.
// A failure is worded again with today's templates, from what the run
// found: a template changed since (or a user's) applies to it too.
func (c *Context) reuse(e treecache.Entry) Result {
	c.reused.Add(1)
	if !e.Complete && e.Pattern != "" {
		return c.Fail(e.Pattern, feedback.Normalize(e.Params))
	}
	return Result{Complete: e.Complete, Feedback: e.Feedback, ran: e.Ran}
}

// entryOf is what the result cache keeps of a run's result.
func entryOf(r Result) treecache.Entry {
	return treecache.Entry{Complete: r.Complete, Feedback: r.Feedback, Pattern: r.Pattern, Params: r.Params, Ran: r.ran, At: time.Now()}
}

// note tells, in a budget message, what fingerprinting the tree took of
// the budget when that is a tenth of it or more, or when it was cut short
// and the command ran uncached.
func (fp fingerprint) note(budget time.Duration, ran bool) string {
	notable := fp.took > 0 && fp.took*10 >= budget
	took := fp.took.Round(time.Millisecond)
	if fp.took >= time.Second {
		took = fp.took.Round(100 * time.Millisecond)
	}
	switch {
	case ran && fp.cutShort:
		return fmt.Sprintf(" Fingerprinting the working tree for the result cache took %s of the budget before it and did not finish, so the command ran uncached.", took)
	case ran && notable:
		return fmt.Sprintf(" Fingerprinting the working tree for the result cache took %s of the budget before it.", took)
	case notable:
		return fmt.Sprintf(" Fingerprinting the working tree for the result cache took %s of it.", took)
	}
	return ""
}

func logBlock(title, log string) string {
	if log == "" {
		return " It printed nothing."
	}
	return "\n" + title + ":\n" + log
}

// lastLines returns the last n lines of out, escape codes removed.
func lastLines(out []byte, n int) string {
	s := hookio.StripANSI(string(bytes.TrimRight(out, "\r\n")))
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		// A progress bar redraws with \r: keep what was last drawn.
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			lines[i] = l[j+1:]
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
