package checkers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/proc"
)

// ExternalOptions are the options of an external checker.
type ExternalOptions struct {
	// Command is the checker program: an array of strings, run as it is,
	// or a string, run with sh -c. It runs in the project dir.
	Command config.Argv `json:"command" validate:"required"`
	// Timeout bounds one run. Left out: 5m.
	Timeout config.Duration `json:"timeout,omitempty" validate:"gte=0"`
}

// CheckOptions implements config.OptionsChecker: a command that is there
// but empty, which "required" lets through. Whether the program exists is
// known only when it runs: a project may build its own checker.
func (o *ExternalOptions) CheckOptions() []config.Problem {
	a := o.Command
	switch {
	case a.Args == nil && a.Shell != "" && strings.TrimSpace(a.Shell) == "":
		return []config.Problem{{Path: "command", Message: "must not be blank"}}
	case a.Args != nil && len(a.Args) == 0:
		return []config.Problem{{Path: "command", Message: "must not be an empty array; give the program and its arguments"}}
	case len(a.Args) > 0 && a.Args[0] == "":
		return []config.Problem{{Path: "command[0]", Message: "the program must not be empty"}}
	}
	return nil
}

// The external checker type.
var _ = declare("external", func() *Type {
	t := register(Type{
		Name:         "external",
		ProjectState: true,
		Summary:      `a program of yours, given the check's context as JSON on stdin, answers {"complete": true} on stdout`,
		DefaultOn:    projectReasons,
		Patterns:     []string{"external-incomplete"},
		Example:      `{"type": "external", "command": ["x"], "timeout": "1s"}`,
	}, func(o *ExternalOptions) (Checker, error) {
		return externalChecker{Command: o.Command, Timeout: o.Timeout.D()}, nil
	}, func(o *ExternalOptions) string {
		return fmt.Sprintf("the external checker `%s` answers that the work is complete", o.Command)
	})
	commands(t, func(o *ExternalOptions, _ string) ([]ProjectCommand, error) {
		return []ProjectCommand{{Checker: "external", Command: o.Command.String()}}, nil
	})
	return t
})

// externalChecker asks a program of the user's what the built-in types cannot:
// it gets the check's context as JSON on stdin and answers
// {"complete": bool, "feedback": "..."} on stdout, exiting 0. Anything else
// — another exit, an answer that is not that object, a timeout — means the
// check could not run, and is an error: a broken checker program must not
// hold the agent with feedback it cannot act on, nor let it go as done.
type externalChecker struct {
	Command config.Argv
	Timeout time.Duration // zero means DefaultTimeout
}

// externalInput is what an external checker reads on stdin:
//
//	{"event": EVENT, "project_dir": "...", "reason": "stop"}
//
// EVENT is the hook event byte for byte as the host sent it, fields
// donegate does not know included (encoding/json would re-escape it), and
// null for closer check.
func externalInput(c *Context) ([]byte, error) {
	event := bytes.TrimSpace(c.RawEvent)
	if len(event) == 0 {
		event = []byte("null")
	} else if !json.Valid(event) {
		return nil, fmt.Errorf("the event is not valid JSON (starts %q)", preview(event))
	}
	rest, err := json.Marshal(struct {
		ProjectDir string     `json:"project_dir"`
		Reason     StopReason `json:"reason"`
	}{c.ProjectDir, c.Reason})
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"event":`), event...)
	b = append(b, ',')
	return append(b, rest[1:]...), nil
}

// externalAnswer is what it answers on stdout. Pointers tell a missing
// key from false or "".
type externalAnswer struct {
	Complete *bool   `json:"complete"`
	Feedback *string `json:"feedback"`
}

// stderrLines is how many lines of a failed checker's stderr an error shows.
const stderrLines = 10

// Check implements Checker.
func (e externalChecker) Check(ctx context.Context, c *Context) (Result, error) {
	r, err := e.check(ctx, c)
	if err != nil {
		return Result{}, fmt.Errorf("external checker %q: %w", e.Command, err)
	}
	return r, nil
}

func (e externalChecker) check(ctx context.Context, c *Context) (Result, error) {
	name := e.Command.String()
	if r, ok := c.mayRun(ProjectCommand{Checker: "external", Command: name}); !ok {
		return r, nil
	}
	stdin, err := externalInput(c)
	if err != nil {
		return Result{}, fmt.Errorf("context for stdin: %w", err)
	}
	own := e.Timeout
	if own <= 0 {
		own = DefaultTimeout
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("not run: %w", err)
	}
	runCtx, cancel, ownFirst := within(ctx, own)
	defer cancel()
	env := c.Env
	cmd := proc.Command{Shell: e.Command.Shell, Args: e.Command.Args, Dir: c.ProjectDir, Env: env, Stdin: stdin, SplitStdout: true}
	out, err := c.runner().Run(runCtx, cmd)
	if err != nil {
		return Result{}, startError(e.Command, c.ProjectDir, err)
	}
	stderr := logBlock("Its stderr ends", lastLines(out.Output, stderrLines))
	switch {
	case out.Ended && ownFirst:
		return Result{}, fmt.Errorf("timed out after %s and was stopped (%w).%s", own, context.DeadlineExceeded, stderr)
	case out.Ended:
		return Result{}, fmt.Errorf("%s (%w).%s", budgetStopped(c.Budget, out.Elapsed.Round(time.Millisecond)), context.DeadlineExceeded, stderr)
	case out.Signal != "":
		return Result{}, fmt.Errorf("killed by %s.%s", out.Signal, stderr)
	case out.ExitCode == proc.ShellNotFound && e.Command.Args == nil:
		return Result{}, fmt.Errorf("command: the shell could not find it (exit code %d).%s", out.ExitCode, stderr)
	case out.ExitCode != 0:
		return Result{}, fmt.Errorf(`exited with code %d; a checker answers {"complete": ..., "feedback": ...} and exits 0.%s`, out.ExitCode, stderr)
	case out.StdoutCut:
		return Result{}, fmt.Errorf("answered more than %d bytes on stdout.%s", proc.MaxStdoutBytes, stderr)
	}
	var a externalAnswer
	if err := json.Unmarshal(out.Stdout, &a); err != nil || a.Complete == nil {
		why := "no \"complete\" true or false"
		if err != nil {
			why = err.Error()
		}
		return Result{}, fmt.Errorf(`exited 0 but its stdout is not an answer {"complete": true|false, "feedback": "..."} (%s): %q.%s`,
			why, preview(out.Stdout), stderr)
	}
	feedback := ""
	if a.Feedback != nil {
		feedback = strings.TrimSpace(*a.Feedback)
	}
	switch {
	case *a.Complete && feedback == "":
		return OK(fmt.Sprintf("The external checker `%s` says the work is complete.", name)), nil
	case *a.Complete:
		return OK(feedback), nil
	}
	// external-incomplete: Command, the checker program; Feedback, its
	// own answer's reason, trimmed ("" when it gave none).
	return c.Fail("external-incomplete", map[string]any{"Command": name, "Feedback": feedback}), nil
}

// startError says why a checker program could not start, naming the
// config's field when the program named there is the cause.
func startError(a config.Argv, dir string, err error) error {
	if _, serr := os.Stat(dir); serr != nil {
		// The child's chdir fails as "fork/exec PROGRAM: no such file or
		// directory": do not blame the program.
		return fmt.Errorf("project dir: %w", serr)
	}
	if a.Args == nil {
		return err // the shell itself could not start
	}
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("command: program %q not found in PATH: %w", a.Args[0], err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("command: program %q does not exist (a relative path is relative to the project dir %s): %w", a.Args[0], dir, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("command: program %q cannot be run (is it executable?): %w", a.Args[0], err)
	}
	return fmt.Errorf("command: %w", err)
}

// preview is the start of an answer that could not be read, for errors.
func preview(b []byte) string {
	const n = 200
	b = bytes.TrimSpace(b)
	if len(b) > n {
		return string(bytes.ToValidUTF8(b[:n], []byte("?"))) + "..."
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}
