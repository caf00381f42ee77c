package checkers

import (
	"context"
	"fmt"
	"time"

	"github.com/donegate/donegate/internal/proc"
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

// Check implements Checker: the command must exit 0, and the feedback
// speaks of tests.
func (t Test) Check(ctx context.Context, c *Context) (Result, error) {
	return commandCheck{kind: "test", command: t.Command, timeout: t.Timeout, cache: t.Cache, voice: &testVoice}.check(ctx, c)
}

// testVoice words a test command's outcome. Scripts and the end-to-end
// tests match these sentences: keep them.
var testVoice = voice{
	noun: "test command",
	passed: func(k commandCheck) string {
		return fmt.Sprintf("The test command `%s` passed.", k.command)
	},
	failed: func(k commandCheck, out proc.Outcome, log string) string {
		return fmt.Sprintf("The test command `%s` failed with exit code %d. Fix the failures and run it again.%s",
			k.command, out.ExitCode, logBlock(fmt.Sprintf("Last %d lines of output", tailLines), log))
	},
}
