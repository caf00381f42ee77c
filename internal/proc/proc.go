// Package proc runs a command (a shell command, or a program and its
// arguments) the way a hook must: in its own process group (a Job Object
// on Windows), under a context, with the whole group killed when the
// context ends (SIGTERM, then SIGKILL after a grace period; on Windows
// the job is ended at once) and when the command exits, so nothing a test
// suite started can outlive the hook, not even when the hook itself gets
// SIGTERM or SIGINT. On Linux, processes that left the group (setsid) are
// adopted while commands run and killed when the last one ends (see
// orphans_linux.go); on Windows nothing leaves a job. Output is captured
// as a bounded tail; a command whose stdout is an answer can have it kept
// apart, bounded too.
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
	"sync/atomic"
	"syscall"
	"time"
)

// GuardEnv is set (by package checkers) in every command's environment to the session being
// checked, so a donegate hook started inside a checked command (say, a test
// suite that runs Claude Code) can tell it is being asked about the very
// session it is checking and must not recurse.
const GuardEnv = "DONEGATE_CHECKING_SESSION"

// Grace is how long a group has to exit after SIGTERM before SIGKILL.
var Grace = 3 * time.Second

// drainWait bounds how long Run reads, once the command's group is gone,
// from a process that left the group and still holds a pipe. A variable
// so that tests can make a wait for the pipe an hour long, which tells it
// apart from none on any machine.
var drainWait = time.Second

// MaxOutputBytes bounds the captured output tail.
const MaxOutputBytes = 256 << 10

// MaxStdoutBytes bounds the stdout kept apart (see Command.SplitStdout):
// it is an answer to be parsed, a few hundred bytes where it is used.
const MaxStdoutBytes = 1 << 20

// Command is a command to run: Shell or Args, exactly one.
type Command struct {
	Shell string // run as sh -c Shell; on Windows, cmd /d /s /c Shell (see shellCommand)
	// Args is run as it is, without a shell: Args[0] is the program, looked
	// up in PATH unless it holds a slash (a relative path is relative to
	// Dir), as exec.Command does.
	Args []string
	Dir  string   // working directory; required
	Env  []string // added to the current environment
	// Stdin is written to the command's standard input, which is then
	// closed; nil gives it an empty one (the null device).
	Stdin []byte
	// SplitStdout keeps stdout apart from stderr: Outcome.Stdout holds the
	// first MaxStdoutBytes of it and Outcome.Output the tail of stderr
	// alone. Without it both go, interleaved, to Output.
	SplitStdout bool
	// MaxStdout bounds the stdout kept with SplitStdout; 0 means
	// MaxStdoutBytes. closer keeps a claude result whole (16 MiB).
	MaxStdout int
	// MaxOutput bounds the tail kept in Outcome.Output; 0 means
	// MaxOutputBytes. A runner's report read from the output whole
	// (libtest's) needs more.
	MaxOutput int
	// Background runs the command at a lower CPU priority (BackgroundNice),
	// so that it does not slow what the person or the agent runs
	// meanwhile: a check started before the stop.
	Background bool
}

// String names the command in messages: the shell command, or the
// program and its arguments.
func (c Command) String() string {
	if c.Args != nil {
		return fmt.Sprint(c.Args)
	}
	return c.Shell
}

// Outcome is how a command ended.
type Outcome struct {
	ExitCode int    // -1 when killed by a signal
	Signal   string // the signal that ended it, if any
	Output   []byte // the tail of stdout and stderr, interleaved; of stderr alone with SplitStdout
	// OutputCut says Output is a tail: the command wrote more than its
	// bound, the start discarded.
	OutputCut bool
	// Stdout is the head of stdout, with SplitStdout only; StdoutCut says
	// the command wrote more than MaxStdoutBytes, the rest discarded.
	Stdout    []byte
	StdoutCut bool
	Elapsed   time.Duration
	// Ended is true when ctx ended before the command did; HookStopped
	// when what ended it was a SIGTERM or SIGINT to the hook itself, not
	// a deadline (see EndOnSignal).
	Ended, HookStopped bool
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

// stopped is set once a signal ended a command Run ran (see Stopped).
var stopped atomic.Bool

// Stopped reports whether a SIGTERM or SIGINT to this process ended a
// command Run ran (Outcome.HookStopped): the host stopped the hook (its
// own hook timeout) or the person pressed ^C, and what the checks found
// since says nothing of the work.
func Stopped() bool { return stopped.Load() }

// Run runs cmd until it exits or ctx ends. The error is non-nil only when
// the command could not be started.
func Run(ctx context.Context, cmd Command) (Outcome, error) {
	if cmd.Dir == "" {
		return Outcome{}, errors.New("proc: no working directory")
	}
	var c *exec.Cmd
	switch {
	case cmd.Args != nil && cmd.Shell != "":
		return Outcome{}, fmt.Errorf("proc: %q: both a shell command and arguments", cmd.Shell)
	case cmd.Args == nil:
		c = shellCommand(cmd.Shell)
	case len(cmd.Args) == 0 || cmd.Args[0] == "":
		return Outcome{}, errors.New("proc: no program to run")
	default:
		c = exec.Command(cmd.Args[0], cmd.Args[1:]...)
	}
	c.Dir = cmd.Dir
	c.Env = append(os.Environ(), cmd.Env...)
	ownGroup(c)
	// An *os.File as stdout means no copying goroutine inside os/exec, so
	// Wait returns when the command exits even if a grandchild still holds
	// the pipe; we then kill the group and drain the pipe ourselves. The
	// same holds for stdin: os/exec would wait for its writer.
	var p pipes
	defer p.close()
	out := &tail{max: MaxOutputBytes}
	if cmd.MaxOutput > 0 {
		out.max = cmd.MaxOutput
	}
	pw, err := p.read(out)
	if err != nil {
		return Outcome{}, fmt.Errorf("pipe for %q: %w", cmd, err)
	}
	c.Stdout, c.Stderr = pw, pw
	var stdout *head
	if cmd.SplitStdout {
		n := cmd.MaxStdout
		if n <= 0 {
			n = MaxStdoutBytes
		}
		stdout = &head{max: n}
		if c.Stdout, err = p.read(stdout); err != nil {
			return Outcome{}, fmt.Errorf("pipe for %q: %w", cmd, err)
		}
	}
	if cmd.Stdin != nil {
		if c.Stdin, err = p.write(cmd.Stdin); err != nil {
			return Outcome{}, fmt.Errorf("pipe for %q: %w", cmd, err)
		}
	}

	parent := ctx
	ctx, stopSignals := EndOnSignal(ctx)
	defer stopSignals()

	// Called after the group kill below, or on return if Start fails.
	release := sync.OnceFunc(adopt())
	defer release()
	start := time.Now()
	err = c.Start()
	p.started()
	if err != nil {
		return Outcome{}, fmt.Errorf("start %q in %s: %w", cmd, cmd.Dir, err)
	}
	g := joinGroup(c, cmd.Background)
	defer g.close()
	p.copy()

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
			g.stop()
			select {
			case <-done:
			case <-time.After(Grace):
				g.kill()
			}
		}
	}()
	err = c.Wait()
	close(done)
	wg.Wait()
	// Whatever the command left running in its group goes with it, and
	// what left the group (setsid) too, unless other commands still run.
	g.kill()
	release()
	// A process that left the group (setsid) may still hold a pipe: on
	// Linux one adopted while another command still runs, or one that
	// could not be killed.
	p.drain(drainWait)

	// The signal context ended while its parent did not: a signal did it.
	o := Outcome{Elapsed: time.Since(start), Ended: ended, HookStopped: ended && parent.Err() == nil}
	o.Output, o.OutputCut = out.bytes()
	if o.HookStopped {
		stopped.Store(true)
	}
	if stdout != nil {
		o.Stdout, o.StdoutCut = stdout.bytes()
	}
	o.ExitCode = c.ProcessState.ExitCode()
	o.Signal = signalOf(c.ProcessState)
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return o, fmt.Errorf("wait for %q: %w", cmd, err)
	}
	return o, nil
}

// pipes are a command's stdin, stdout and stderr: our ends, the copying
// between them and our buffers, and the command's ends, which we close
// once it has started so that only the command holds them.
type pipes struct {
	ours   []*os.File // read ends of output pipes, write end of stdin
	theirs []*os.File // closed after Start
	jobs   []func()   // the copying, one goroutine each
	wg     sync.WaitGroup
}

// read returns the write end of a pipe whose output is copied to w.
func (p *pipes) read(w io.Writer) (*os.File, error) {
	r, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.ours, p.theirs = append(p.ours, r), append(p.theirs, pw)
	p.jobs = append(p.jobs, func() { _, _ = io.Copy(w, r) })
	return pw, nil
}

// write returns the read end of a pipe that is given data, then closed.
// A command that exits without reading it all makes the write fail
// (EPIPE: the runtime ignores SIGPIPE on files other than 1 and 2).
func (p *pipes) write(data []byte) (*os.File, error) {
	pr, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.ours, p.theirs = append(p.ours, w), append(p.theirs, pr)
	p.jobs = append(p.jobs, func() { _, _ = w.Write(data); _ = w.Close() })
	return pr, nil
}

// started closes the command's ends, which it holds now (or never will).
func (p *pipes) started() {
	for _, f := range p.theirs {
		f.Close()
	}
	p.theirs = nil
}

// copy starts the copying.
func (p *pipes) copy() {
	for _, job := range p.jobs {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			job()
		}()
	}
}

// drain waits up to d for the copying to end at the command's EOFs, then
// closes our ends, which ends it.
func (p *pipes) drain(d time.Duration) {
	finished := make(chan struct{})
	go func() {
		p.wg.Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(d):
		p.close()
		<-finished
	}
}

// close closes every end; closing one twice is harmless.
func (p *pipes) close() {
	for _, f := range append(p.ours, p.theirs...) {
		f.Close()
	}
}

// head keeps the first max bytes written to it and discards the rest, so
// a command that writes more is never blocked on a full pipe.
type head struct {
	mu  sync.Mutex
	buf []byte
	max int
	cut bool
}

func (h *head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(p)
	if room := h.max - len(h.buf); n > room {
		h.cut = true
		p = p[:room]
	}
	h.buf = append(h.buf, p...)
	// All of p counts as written: a short write would stop io.Copy.
	return n, nil
}

func (h *head) bytes() ([]byte, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return bytes.Clone(h.buf), h.cut
}

// tail keeps the last max bytes written to it. It holds up to twice
// that, dropping the older half when full, so that a command writing far
// more than max in small writes costs a copy per max bytes written, not
// one per write.
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
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.cut = true
	}
	return n, nil
}

// bytes returns the tail and whether it is one (the start was cut).
func (t *tail) bytes() ([]byte, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.buf) > t.max {
		t.buf, t.cut = t.buf[len(t.buf)-t.max:], true
	}
	b := bytes.Clone(t.buf)
	if t.cut {
		// Drop the partial first line: a cut line misleads.
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b, t.cut
}
