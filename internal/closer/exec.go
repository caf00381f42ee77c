package closer

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/donegate/donegate/internal/proc"
)

// maxStdout bounds what is kept of a program's stdout (a claude result is
// a few KB; git's lists of changes can be longer).
const maxStdout = 16 << 20

// execResult is how a program ended.
type execResult struct {
	Stdout   []byte
	Stderr   []byte // the tail
	ExitCode int    // -1 when killed by a signal
	Elapsed  time.Duration
	// TimedOut is true when the timeout ended the program; Interrupted
	// when the caller's context did (Ctrl-C).
	TimedOut, Interrupted bool
}

// errNotFound is wrapped when the program does not exist.
var errNotFound = errors.New("not found")

// runProgram runs name with args in dir through internal/proc, the hooks'
// own runner: its own process group, SIGTERM then SIGKILL after a grace
// period when timeout passes or ctx ends (Ctrl-C), whatever it left in its
// group killed when it exits, and pipes held by grandchildren never keep
// us waiting. The error is non-nil only when it could not start.
func runProgram(ctx context.Context, dir string, timeout time.Duration, env []string, name string, args ...string) (execResult, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return execResult{}, fmt.Errorf("%s: %w", name, errNotFound)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := proc.Run(runCtx, proc.Command{
		Args: append([]string{path}, args...), Dir: dir, Env: env,
		SplitStdout: true, MaxStdout: maxStdout,
	})
	if err != nil {
		return execResult{}, fmt.Errorf("run %s: %w", name, err)
	}
	res := execResult{Stdout: out.Stdout, Stderr: out.Output, ExitCode: out.ExitCode, Elapsed: out.Elapsed}
	if out.Ended {
		res.Interrupted = ctx.Err() != nil
		res.TimedOut = !res.Interrupted
	}
	return res, nil
}

// tailText is the last n lines of b, trimmed, for messages.
func tailText(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
