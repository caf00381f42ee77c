package proc

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/proctest"
)

// helperEnv makes the test binary a helper process (see TestMain): a tree
// of Windows processes whose pids the test knows, with no tool but Go.
const helperEnv = "DONEGATE_PROC_HELPER"

// TestMain runs the helpers:
//   - "tree PIDFILE": starts a copy of itself that sleeps, writes its own
//     pid and the copy's to PIDFILE, and sleeps (never ends by itself);
//   - "leave PIDFILE": the same, but exits at once, leaving the copy;
//   - "sleep": sleeps a minute;
//   - "cat": copies stdin to stdout.
func TestMain(m *testing.M) {
	args := strings.Fields(os.Getenv(helperEnv))
	if len(args) == 0 {
		os.Exit(m.Run())
	}
	switch args[0] {
	case "tree", "leave":
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), helperEnv+"=sleep")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		pids := fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)
		if err := os.WriteFile(args[1], []byte(pids), 0o644); err != nil {
			os.Exit(2)
		}
		if args[0] == "leave" {
			os.Exit(0)
		}
		time.Sleep(time.Minute)
	case "sleep":
		time.Sleep(time.Minute)
	case "cat":
		_, _ = io.Copy(os.Stdout, os.Stdin)
	}
	os.Exit(0)
}

// helper is a Command that runs the test binary as the helper args.
func helper(dir string, args ...string) Command {
	return Command{Args: []string{os.Args[0]}, Dir: dir, Env: []string{helperEnv + "=" + strings.Join(args, " ")}}
}

func TestRunOutcomesWindows(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, shell string
		code        int
		output      string
	}{
		{"success", "echo ok", 0, "ok\r\n"},
		{"exit code", "echo bad 1>&2 & exit /b 3", 3, "bad"},
		{"runs in Dir", "cd", 0, dir + "\r\n"},
		{"env added", "echo %DONEGATE_TEST_VALUE%", 0, "v1\r\n"},
		{"a .cmd script, as npm.cmd", "check.cmd", 4, "from the script"},
		// cmd's own code for a command it cannot find.
		{"missing command", "no-such-command-donegate", 9009, "no-such-command-donegate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "check.cmd"), []byte("@echo off\r\necho from the script\r\nexit /b 4\r\n"), 0o644))
			o, err := Run(context.Background(), Command{Shell: tt.shell, Dir: dir, Env: []string{"DONEGATE_TEST_VALUE=v1"}})
			require.NoError(t, err)
			assert.Equal(t, tt.code, o.ExitCode)
			assert.Empty(t, o.Signal)
			assert.False(t, o.Ended)
			assert.Contains(t, string(o.Output), tt.output)
		})
	}
}

// TestRunKillsTheTreeWindows: a command that never ends and started a
// child is stopped, child and all, when the context ends: the Job Object
// holds every process the command starts.
func TestRunKillsTheTreeWindows(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var o Outcome
	var err error
	proctest.WithinAMinute(t, func() { o, err = Run(ctx, helper(dir, "tree", pidFile)) })
	require.NoError(t, err)
	assert.True(t, o.Ended)
	requireAllGone(t, pidFile)
}

// TestStartOwnKillsTheTreeWindows: a command the result cache runs (git,
// which may be a git.cmd, or run a git per submodule) is ended with
// everything it started at its context's end, as a check's command is.
func TestStartOwnKillsTheTreeWindows(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, os.Args[0])
	c.Dir = dir
	c.Env = append(os.Environ(), helperEnv+"=tree "+pidFile)
	OwnGroup(c)
	var err error
	proctest.WithinAMinute(t, func() {
		var done func()
		done, err = StartOwn(c)
		require.NoError(t, err)
		err = c.Wait()
		done()
	})
	assert.Error(t, err, "ended by its context")
	requireAllGone(t, pidFile)
}

// TestRunReapsLeftoversWindows: a command that exits but leaves a child
// running does not leave it running.
func TestRunReapsLeftoversWindows(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	var o Outcome
	var err error
	proctest.WithinAMinute(t, func() { o, err = Run(context.Background(), helper(dir, "leave", pidFile)) })
	require.NoError(t, err)
	assert.Equal(t, 0, o.ExitCode)
	assert.False(t, o.Ended)
	requireAllGone(t, pidFile)
}

// TestRunShellTreeWindows: cmd.exe's own children (ping, started by the
// shell command) go with it at the context's end.
func TestRunShellTreeWindows(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var o Outcome
	var err error
	start := time.Now()
	proctest.WithinAMinute(t, func() { o, err = Run(ctx, Command{Shell: "ping -n 60 127.0.0.1", Dir: t.TempDir()}) })
	require.NoError(t, err)
	assert.True(t, o.Ended)
	assert.Less(t, time.Since(start), 30*time.Second)
}

func TestRunArgsAndStreamsWindows(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 3<<20)
	cat := helper(dir, "cat")
	for _, tt := range []struct {
		name   string
		stdin  []byte
		split  bool
		max    int
		stdout string
		output string
		cut    bool
	}{
		{name: "stdin given and closed", stdin: []byte("in\n"), output: "in\n"},
		{name: "no stdin is empty"},
		{name: "stdout apart", stdin: []byte(`{"complete":true}`), split: true, stdout: `{"complete":true}`},
		{name: "stdout over the bound is cut", stdin: []byte(big), split: true, stdout: big[:MaxStdoutBytes], cut: true},
		{name: "a smaller bound of its own", stdin: []byte(big), split: true, max: 10, stdout: big[:10], cut: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := cat
			cmd.Stdin, cmd.SplitStdout, cmd.MaxStdout = tt.stdin, tt.split, tt.max
			o, err := Run(context.Background(), cmd)
			require.NoError(t, err)
			assert.Equal(t, 0, o.ExitCode)
			assert.Equal(t, tt.output, string(o.Output))
			assert.Equal(t, tt.stdout, string(o.Stdout))
			assert.Equal(t, tt.cut, o.StdoutCut)
		})
	}
}

// requireAllGone waits for every process whose pid the helper wrote to
// have exited.
func requireAllGone(t *testing.T, pidFile string) {
	t.Helper()
	var data []byte
	require.Eventually(t, func() bool {
		var err error
		data, err = os.ReadFile(pidFile)
		return err == nil && len(strings.Fields(string(data))) == 2
	}, 20*time.Second, 10*time.Millisecond, "the helper wrote no pids")
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return proctest.Gone(pid) }, 20*time.Second, 10*time.Millisecond, "process %d outlived the command", pid)
	}
}
