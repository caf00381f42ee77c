package checkers

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/proc"
)

// Test runs a shell command in the project dir and is complete when it
// exits 0. It is the way to require green tests, a clean lint, a build.
type Test struct {
	Command string
	Timeout time.Duration // zero means the default
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
	runCtx, cancel, ownFirst := within(ctx, own)
	defer cancel()
	env := append([]string{}, c.Env...)
	if c.Event != nil && c.Event.SessionID != "" {
		env = append(env, proc.GuardEnv+"="+c.Event.SessionID)
	}
	out, err := c.runner().Run(runCtx, proc.Command{Shell: t.Command, Dir: c.ProjectDir, Env: env})
	if err != nil {
		return Result{}, fmt.Errorf("test command %q: %w", t.Command, err)
	}
	log := lastLines(out.Output, tailLines)
	switch {
	case out.Ended && ownFirst:
		return Incomplete(fmt.Sprintf("The test command `%s` timed out after %s and was stopped.%s",
			t.Command, own, logBlock("Last output", log))), nil
	case out.Ended:
		return Incomplete(fmt.Sprintf("The test command `%s` did not finish within the hook's time budget (limits.budget %s) and was stopped after %s.%s",
			t.Command, c.Budget, out.Elapsed.Round(time.Second), logBlock("Last output", log))), nil
	case out.ExitCode == 0:
		return OK(fmt.Sprintf("The test command `%s` passed.", t.Command)), nil
	case out.Signal != "":
		return Incomplete(fmt.Sprintf("The test command `%s` was killed by %s.%s", t.Command, out.Signal, logBlock("Last output", log))), nil
	}
	return Incomplete(fmt.Sprintf("The test command `%s` failed with exit code %d. Fix the failures and run it again.%s",
		t.Command, out.ExitCode, logBlock(fmt.Sprintf("Last %d lines of output", tailLines), log))), nil
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
