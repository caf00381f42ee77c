package closer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// grace is how long a process group has after SIGTERM before SIGKILL.
var grace = 3 * time.Second

// maxStdout bounds what is kept of a program's stdout (a claude result is
// a few KB; git's lists of changes can be longer).
const maxStdout = 16 << 20

// maxStderr bounds the kept tail of stderr, shown in messages.
const maxStderr = 64 << 10

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

// runProgram runs name with args in dir, in its own process group, until it
// exits, timeout passes or ctx ends; then the whole group is sent SIGTERM
// and, after grace, SIGKILL. Whatever it left running in its group is
// killed when it exits. The error is non-nil only when it could not start.
func runProgram(ctx context.Context, dir string, timeout time.Duration, env []string, name string, args ...string) (execResult, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return execResult{}, fmt.Errorf("%s: %w", name, errNotFound)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c := exec.Command(path, args...)
	c.Dir = dir
	c.Env = append(os.Environ(), env...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout := &capped{max: maxStdout, head: true}
	stderr := &capped{max: maxStderr}
	c.Stdout, c.Stderr = stdout, stderr
	// Pipes held open by grandchildren must not keep us waiting.
	c.WaitDelay = time.Second
	start := time.Now()
	if err := c.Start(); err != nil {
		return execResult{}, fmt.Errorf("start %s: %w", name, err)
	}
	pgid := c.Process.Pid
	done := make(chan struct{})
	var wg sync.WaitGroup
	var ended bool
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-done:
		case <-runCtx.Done():
			ended = true
			_ = syscall.Kill(-pgid, syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(grace):
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
		}
	}()
	waitErr := c.Wait()
	close(done)
	wg.Wait()
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	res := execResult{Stdout: stdout.bytes(), Stderr: stderr.bytes(), Elapsed: time.Since(start)}
	res.ExitCode = c.ProcessState.ExitCode()
	if ended {
		res.Interrupted = ctx.Err() != nil
		res.TimedOut = !res.Interrupted
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return res, fmt.Errorf("wait for %s: %w", name, waitErr)
	}
	return res, nil
}

// capped keeps the first (head) or last max bytes written to it.
type capped struct {
	mu   sync.Mutex
	buf  []byte
	max  int
	head bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(p)
	if c.head {
		if room := c.max - len(c.buf); room > 0 {
			c.buf = append(c.buf, p[:min(room, len(p))]...)
		}
		return n, nil
	}
	c.buf = append(c.buf, p...)
	if over := len(c.buf) - c.max; over > 0 {
		c.buf = append(c.buf[:0], c.buf[over:]...)
	}
	return n, nil
}

func (c *capped) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf)
}

// tailText is the last n lines of b, trimmed, for messages.
func tailText(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
