//go:build !windows

package proc

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/proctest"
)

func TestRunOutcomes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, shell string
		code        int
		signal      string
		output      string
	}{
		{"success", "echo ok", 0, "", "ok\n"},
		{"exit code", "echo bad >&2; exit 3", 3, "", "bad\n"},
		{"stdout and stderr interleaved", "echo 1; echo 2 >&2; echo 3", 0, "", "1\n2\n3\n"},
		{"runs in Dir", "pwd", 0, "", dir + "\n"},
		{"env added", "echo $DONEGATE_TEST_VALUE", 0, "", "v1\n"},
		{"killed by a signal", "kill -9 $$", -1, "killed", ""},
		{"missing command", "no-such-command-donegate", 127, "", "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := Run(context.Background(), Command{Shell: tt.shell, Dir: dir, Env: []string{"DONEGATE_TEST_VALUE=v1"}})
			require.NoError(t, err)
			assert.Equal(t, tt.code, o.ExitCode)
			assert.Equal(t, tt.signal, o.Signal)
			assert.False(t, o.Ended)
			assert.Contains(t, string(o.Output), tt.output)
		})
	}
}

func TestRunKeepsABoundedTail(t *testing.T) {
	// 2 MiB of numbered lines: only the last MaxOutputBytes survive, and
	// the cut first line is dropped.
	o, err := Run(context.Background(), Command{Shell: "i=0; while [ $i -lt 150000 ]; do echo line-$i-padding-padding; i=$((i+1)); done", Dir: t.TempDir()})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(o.Output), MaxOutputBytes)
	assert.True(t, strings.HasPrefix(string(o.Output), "line-"), "first kept line is whole")
	assert.True(t, strings.HasSuffix(string(o.Output), "line-149999-padding-padding\n"))
}

// TestRunKillsTheGroup: a command that ignores SIGTERM and leaves a child
// behind is killed, child and all, when the context ends.
func TestRunKillsTheGroup(t *testing.T) {
	old := Grace
	Grace = 200 * time.Millisecond
	defer func() { Grace = old }()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	// It ignores SIGTERM and never ends: only the SIGKILL ends the run.
	var o Outcome
	var err error
	proctest.WithinAMinute(t, func() {
		o, err = Run(ctx, Command{Shell: `trap "" TERM; sleep 60 & echo $! > child.pid; while :; do sleep 1; done`, Dir: dir})
	})
	require.NoError(t, err)
	assert.True(t, o.Ended)
	assert.Equal(t, "killed", o.Signal)

	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	requireGone(t, string(data))
}

// TestRunReapsLeftovers: a command that exits normally but leaves a
// background child in its group does not leave it running.
func TestRunReapsLeftovers(t *testing.T) {
	dir := t.TempDir()
	o, err := Run(context.Background(), Command{Shell: `sleep 60 > /dev/null 2>&1 & echo $!`, Dir: dir})
	require.NoError(t, err)
	assert.Equal(t, 0, o.ExitCode)
	requireGone(t, string(o.Output))
}

// requireGone waits for the process whose pid a command printed to exit.
func requireGone(t *testing.T, pidText string) {
	t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(pidText))
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return proctest.Gone(pid)
	}, 20*time.Second, 10*time.Millisecond, "child %d outlived the command", pid)
}

// waitForPipesAnHour makes a Run that waits for a pipe held by a process
// outside the group wait an hour, for the test.
func waitForPipesAnHour(t *testing.T) {
	old := drainWait
	drainWait = time.Hour
	t.Cleanup(func() { drainWait = old })
}

// TestRunArgsAndStreams: a command given as arguments runs without a
// shell, stdin is given and closed, and SplitStdout keeps the answer on
// stdout apart from the messages on stderr.
func TestRunArgsAndStreams(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prog"), []byte("#!/bin/sh\necho \"prog in $(pwd) got $1\"\n"), 0o755))
	big := strings.Repeat("x", 3<<20) // well over a pipe's buffer
	tests := []struct {
		name      string
		cmd       Command
		code      int
		stdout    string // with SplitStdout
		output    string
		cut       bool
		outputCut bool
	}{
		{name: "arguments are not shell words", cmd: Command{Args: []string{"printf", "%s|", "a b", "$HOME", "*"}}, output: "a b|$HOME|*|"},
		{name: "relative program is relative to Dir", cmd: Command{Args: []string{"./prog", "x"}}, output: "prog in " + dir + " got x\n"},
		{name: "exit code", cmd: Command{Args: []string{"sh", "-c", "exit 7"}}, code: 7},
		{name: "stdin given and closed", cmd: Command{Args: []string{"cat"}, Stdin: []byte("in\n")}, output: "in\n"},
		{name: "stdin to a shell command", cmd: Command{Shell: "read l; echo got $l", Stdin: []byte("line\n")}, output: "got line\n"},
		{name: "stdin the command does not read", cmd: Command{Args: []string{"true"}, Stdin: []byte(big)}},
		{name: "no stdin is empty", cmd: Command{Args: []string{"cat"}}},
		{name: "stdout apart", cmd: Command{Shell: "echo answer; echo message >&2; exit 3", SplitStdout: true}, code: 3, stdout: "answer\n", output: "message\n"},
		{name: "stdout apart, arguments", cmd: Command{Args: []string{"cat"}, Stdin: []byte(`{"complete":true}`), SplitStdout: true}, stdout: `{"complete":true}`},
		{name: "stdout over the bound is cut, the command not blocked", cmd: Command{Args: []string{"cat"}, Stdin: []byte(big), SplitStdout: true},
			stdout: big[:MaxStdoutBytes], cut: true},
		{name: "a larger bound of its own", cmd: Command{Args: []string{"cat"}, Stdin: []byte(big), SplitStdout: true, MaxStdout: len(big)},
			stdout: big},
		{name: "a smaller bound of its own", cmd: Command{Args: []string{"cat"}, Stdin: []byte(big), SplitStdout: true, MaxStdout: 10},
			stdout: big[:10], cut: true},
		{name: "output over its bound is a tail", cmd: Command{Shell: "printf 'one\\ntwo\\nthree\\n'", MaxOutput: 9},
			output: "three\n", outputCut: true},
		{name: "output within a larger bound is whole", cmd: Command{Args: []string{"cat"}, Stdin: []byte(big), MaxOutput: len(big)},
			output: big},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cmd.Dir = dir
			o, err := Run(context.Background(), tt.cmd)
			require.NoError(t, err)
			assert.Equal(t, tt.code, o.ExitCode)
			assert.False(t, o.Ended)
			assert.Equal(t, tt.output, string(o.Output))
			assert.Equal(t, tt.stdout, string(o.Stdout))
			assert.Equal(t, tt.cut, o.StdoutCut)
			assert.Equal(t, tt.outputCut, o.OutputCut)
		})
	}
}

// TestRunArgsKilledWithStdinUnread: a program that neither reads its
// stdin nor exits is stopped at the context's end like a shell command,
// and the unread stdin does not keep Run waiting.
func TestRunArgsKilledWithStdinUnread(t *testing.T) {
	waitForPipesAnHour(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var o Outcome
	var err error
	proctest.WithinAMinute(t, func() {
		o, err = Run(ctx, Command{Args: []string{"sleep", "60"}, Dir: t.TempDir(), Stdin: []byte(strings.Repeat("x", 1<<20)), SplitStdout: true})
	})
	require.NoError(t, err)
	assert.True(t, o.Ended)
	assert.Equal(t, "terminated", o.Signal, "ended by SIGTERM, not by the SIGKILL of Grace later")
}
