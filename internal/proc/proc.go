// Package proc runs a shell command the way a hook must: in its own process
// group, under a context, with the whole group killed when the context ends
// (SIGTERM, then SIGKILL after a grace period) and when the command exits,
// so nothing a test suite started can outlive the hook, not even when the
// hook itself gets SIGTERM or SIGINT. On Linux, processes that left the
// group (setsid) are adopted while commands run and killed when the last
// one ends (see orphans_linux.go). Output is captured as a bounded tail.
package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// GuardEnv is set in every command's environment to the session being
// checked, so a donegate hook started inside a checked command (say, a test
// suite that runs Claude Code) can tell it is being asked about the very
// session it is checking and must not recurse.
const GuardEnv = "DONEGATE_CHECKING_SESSION"

// Grace is how long a group has to exit after SIGTERM before SIGKILL.
var Grace = 3 * time.Second

// MaxOutputBytes bounds the captured output tail.
const MaxOutputBytes = 256 << 10

// Command is a shell command to run.
type Command struct {
	Shell string   // run as sh -c Shell
	Dir   string   // working directory; required
	Env   []string // added to the current environment
}

// Outcome is how a command ended.
type Outcome struct {
	ExitCode int    // -1 when killed by a signal
	Signal   string // the signal that ended it, if any
	Output   []byte // the tail of stdout and stderr, interleaved
	Elapsed  time.Duration
	// Ended is true when ctx ended before the command did.
	Ended bool
}

// EndOnSignal returns a copy of ctx that also ends when the process gets
// SIGTERM or SIGINT, until stop is called. A hook stopped by its host
// (Claude Code sends SIGTERM at its hook timeout) or by ^C must take the
// commands it started with it; callers catch the signals only while one
// runs, so that hook calls that run none do not pay for the goroutine and
// thread that catching costs (a tenth of a hook's time).
func EndOnSignal(ctx context.Context) (_ context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// Run runs cmd until it exits or ctx ends. The error is non-nil only when
// the command could not be started.
func Run(ctx context.Context, cmd Command) (Outcome, error) {
	if cmd.Dir == "" {
		return Outcome{}, errors.New("proc: no working directory")
	}
	c := exec.Command("/bin/sh", "-c", cmd.Shell)
	c.Dir = cmd.Dir
	c.Env = append(os.Environ(), cmd.Env...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// An *os.File as stdout means no copying goroutine inside os/exec, so
	// Wait returns when the shell exits even if a grandchild still holds
	// the pipe; we then kill the group and drain the pipe ourselves.
	pr, pw, err := os.Pipe()
	if err != nil {
		return Outcome{}, fmt.Errorf("pipe for %q: %w", cmd.Shell, err)
	}
	defer pr.Close()
	c.Stdout, c.Stderr = pw, pw

	ctx, stopSignals := EndOnSignal(ctx)
	defer stopSignals()

	// Called after the group kill below, or on return if Start fails.
	release := sync.OnceFunc(adopt())
	defer release()
	start := time.Now()
	err = c.Start()
	pw.Close()
	if err != nil {
		return Outcome{}, fmt.Errorf("start %q in %s: %w", cmd.Shell, cmd.Dir, err)
	}
	pgid := c.Process.Pid
	out := &tail{max: MaxOutputBytes}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(out, pr)
		close(copied)
	}()

	done := make(chan struct{})
	var ended bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-done:
		case <-ctx.Done():
			ended = true
			_ = syscall.Kill(-pgid, syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(Grace):
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
		}
	}()
	err = c.Wait()
	close(done)
	wg.Wait()
	// Whatever the command left running in its group goes with it, and
	// what left the group (setsid) too, unless other commands still run.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	release()
	select {
	case <-copied:
	case <-time.After(time.Second):
		// A process that left the group (setsid) still holds the pipe:
		// on Linux one adopted while another command still runs, or one
		// that could not be killed.
		pr.Close()
		<-copied
	}

	o := Outcome{Output: out.bytes(), Elapsed: time.Since(start), Ended: ended}
	o.ExitCode = c.ProcessState.ExitCode()
	if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		o.Signal = ws.Signal().String()
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return o, fmt.Errorf("wait for %q: %w", cmd.Shell, err)
	}
	return o, nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
	cut bool
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		t.cut = true
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := bytes.Clone(t.buf)
	if t.cut {
		// Drop the partial first line: a cut line misleads.
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b
}
