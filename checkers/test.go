package checkers

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/treecache"
)

// Test runs a shell command in the project dir and is complete when it
// exits 0. It is the way to require green tests, a clean lint, a build.
//
// With Cache set, a result is remembered by the state of the working tree
// (see package treecache) and reused while the tree is unchanged, failures
// included: a Stop hook fires on every turn, and rerunning a slow suite on
// a tree nobody touched only costs time.
type Test struct {
	Command string
	Timeout time.Duration // zero means the default
	Cache   bool
}

// DefaultTimeout applies when a test checker sets none.
const DefaultTimeout = 5 * time.Minute

// tailLines is how many output lines a failure reports.
const tailLines = 40

// Check implements Checker.
func (t Test) Check(ctx context.Context, c *Context) (Result, error) {
	own := t.Timeout
	if own <= 0 {
		own = DefaultTimeout
	}
	var cache treecache.Cache
	var key string
	if t.Cache && c.CacheDir != "" {
		if state, err := treecache.State(ctx, c.ProjectDir); err == nil {
			cache = treecache.Cache{Dir: c.CacheDir}
			key = treecache.Key("test", t.Command, c.ProjectDir, state)
			if e, ok := cache.Get(key); ok {
				return Result{Complete: e.Complete, Feedback: e.Feedback + fmt.Sprintf(
					"\n(donegate reused the result of the run at %s: the working tree has not changed since.)",
					e.At.UTC().Format(time.RFC3339))}, nil
			}
		}
	}
	r, ended, err := t.run(ctx, c, own)
	if err != nil || ended || key == "" {
		// A run cut short says nothing about the tree: never remember it.
		return r, err
	}
	// Remember the result only if the run left the tree as it found it:
	// a command that writes files git does not ignore changes the state,
	// and its result would belong to neither state.
	if after, err := treecache.State(ctx, c.ProjectDir); err == nil && treecache.Key("test", t.Command, c.ProjectDir, after) == key {
		_ = cache.Put(key, treecache.Entry{Complete: r.Complete, Feedback: r.Feedback, At: time.Now()})
	}
	return r, nil
}

// run runs the command once. ended is true when it was stopped by its
// timeout or the budget.
func (t Test) run(ctx context.Context, c *Context, own time.Duration) (r Result, ended bool, err error) {
	runCtx, cancel, ownFirst := within(ctx, own)
	defer cancel()
	env := append([]string{}, c.Env...)
	if c.Event != nil && c.Event.SessionID != "" {
		env = append(env, proc.GuardEnv+"="+c.Event.SessionID)
	}
	out, err := c.runner().Run(runCtx, proc.Command{Shell: t.Command, Dir: c.ProjectDir, Env: env})
	if err != nil {
		return Result{}, false, fmt.Errorf("test command %q: %w", t.Command, err)
	}
	log := lastLines(out.Output, tailLines)
	switch {
	case out.Ended && ownFirst:
		return Incomplete(fmt.Sprintf("The test command `%s` timed out after %s and was stopped.%s",
			t.Command, own, logBlock("Last output", log))), true, nil
	case out.Ended:
		return Incomplete(fmt.Sprintf("The test command `%s` did not finish within the hook's time budget (limits.budget %s) and was stopped after %s.%s",
			t.Command, c.Budget, out.Elapsed.Round(time.Second), logBlock("Last output", log))), true, nil
	case out.ExitCode == 0:
		return OK(fmt.Sprintf("The test command `%s` passed.", t.Command)), false, nil
	case out.Signal != "":
		return Incomplete(fmt.Sprintf("The test command `%s` was killed by %s.%s", t.Command, out.Signal, logBlock("Last output", log))), false, nil
	}
	return Incomplete(fmt.Sprintf("The test command `%s` failed with exit code %d. Fix the failures and run it again.%s",
		t.Command, out.ExitCode, logBlock(fmt.Sprintf("Last %d lines of output", tailLines), log))), false, nil
}

func logBlock(title, log string) string {
	if log == "" {
		return " It printed nothing."
	}
	return "\n" + title + ":\n" + log
}

// lastLines returns the last n lines of out, escape codes removed.
func lastLines(out []byte, n int) string {
	s := hookio.StripANSI(string(bytes.TrimRight(out, "\n")))
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
