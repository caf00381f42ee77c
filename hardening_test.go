//go:build !windows

// The end-to-end tests of the Linux binaries (sh, FIFOs, process groups);
// the Windows binaries have their own, under Wine (e2e/windows_test.go).

package donegate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/limit"
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/internal/testsupport/consenttest"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/proctest"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// hooks builds the real executables once for the process-level tests.
func hooks(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "donegate-bin-")
		if buildErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", binDir+"/", "./cmd/stop-hook", "./cmd/posttooluse-hook").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binDir
}

// hookRun is one finished hook process. How long it took is not kept:
// on a loaded machine that says nothing about the hook.
type hookRun struct {
	stdout, stderr string
	code           int
}

// runHook runs a hook binary on event with a clean environment.
func runHook(t *testing.T, hook string, event any, env []string, args ...string) hookRun {
	t.Helper()
	data, err := json.Marshal(event)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(hooks(t), hook), args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	cmd.Stdin = bytes.NewReader(data)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	r := hookRun{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

// project makes a project dir whose config requires a missing file, so
// every stop is blocked until max_blocks.
func project(t *testing.T, cfg string) string {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "donegate.json"), []byte(cfg), 0o644))
	return dir
}

func stopEvent(dir, session, prompt string) map[string]any {
	return map[string]any{"session_id": session, "prompt_id": prompt, "cwd": dir, "hook_event_name": "Stop",
		"transcript_path": filepath.Join(dir, "none.jsonl")}
}

func counters(t *testing.T, stateDir, session string) map[string]*limit.Counter {
	data, err := os.ReadFile(filepath.Join(stateDir, state.FileName(session)))
	require.NoError(t, err)
	var s state.Session
	require.NoError(t, json.Unmarshal(data, &s))
	return s.Counters
}

// TestConcurrentStopsCountExactly: a Stop and subagent stops of one session
// arriving together, and many sessions at once, keep exact counts.
func TestConcurrentStopsCountExactly(t *testing.T) {
	// "on" includes subagent stops, where a files checker does not run by
	// default: every gate must count.
	dir := project(t, `{"checkers":[{"type":"files","paths":["missing"],"on":["stop","subagent_stop"]}],"limits":{"max_blocks":1000}}`)
	stateDir := t.TempDir()
	env := []string{"DONEGATE_STATE_DIR=" + stateDir}
	const perGate, agents, sessions = 12, 3, 4
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for s := 0; s < sessions; s++ {
		for g := 0; g <= agents; g++ {
			for i := 0; i < perGate; i++ {
				ev := stopEvent(dir, fmt.Sprintf("sess-%d", s), "p1")
				if g > 0 {
					ev["hook_event_name"] = "SubagentStop"
					ev["agent_id"] = fmt.Sprintf("agent-%d", g)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := runHook(t, "stop-hook", ev, env)
					if r.code != 0 || !strings.Contains(r.stdout, `"decision":"block"`) {
						mu.Lock()
						failures = append(failures, fmt.Sprintf("exit %d: %s %s", r.code, r.stdout, r.stderr))
						mu.Unlock()
					}
				}()
			}
		}
	}
	wg.Wait()
	require.Empty(t, failures)
	for s := 0; s < sessions; s++ {
		got := counters(t, stateDir, fmt.Sprintf("sess-%d", s))
		require.Len(t, got, agents+1)
		assert.Equal(t, perGate, got["stop"].Blocks, "session %d main", s)
		for g := 1; g <= agents; g++ {
			assert.Equal(t, perGate, got[fmt.Sprintf("subagent:agent-%d", g)].Blocks, "session %d agent %d", s, g)
		}
	}
}

// TestStaleLockIsRecovered: a hook killed while holding the session lock
// leaves nothing that blocks the next one (the kernel drops flock locks).
func TestStaleLockIsRecovered(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("flock(1) not installed")
	}
	dir := project(t, `{"checkers":[{"type":"files","paths":["missing"]}]}`)
	stateDir := t.TempDir()
	lock := filepath.Join(stateDir, state.FileName("s1"))
	require.NoError(t, os.MkdirAll(stateDir, 0o700))
	// flock(1) and its child both hold the lock: kill the whole group, as
	// a host that kills a hook does.
	// The child writes held once flock(1) has the lock, and flock -n then
	// finds it taken: the hook below meets a lock that was really held.
	held := filepath.Join(t.TempDir(), "held")
	holder := exec.Command("flock", lock, "sh", "-c", `: > "$0"; exec sleep 60`, held)
	holder.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, holder.Start())
	t.Cleanup(func() { _ = syscall.Kill(-holder.Process.Pid, syscall.SIGKILL) })
	require.Eventually(t, func() bool { _, err := os.Stat(held); return err == nil }, time.Minute, 10*time.Millisecond,
		"flock(1) never took the lock")
	var exit *exec.ExitError
	require.ErrorAs(t, exec.Command("flock", "-n", lock, "true").Run(), &exit, "flock -n took the lock the holder has")
	require.Equal(t, 1, exit.ExitCode(), "flock -n: the lock is held")
	require.NoError(t, syscall.Kill(-holder.Process.Pid, syscall.SIGKILL))
	_ = holder.Wait()
	r := runHook(t, "stop-hook", stopEvent(dir, "s1", "p1"), []string{"DONEGATE_STATE_DIR=" + stateDir})
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, `"decision":"block"`)
	assert.Equal(t, 1, counters(t, stateDir, "s1")["stop"].Blocks)
}

// TestHostileIDs: ids from the event never become paths.
func TestHostileIDs(t *testing.T) {
	dir := project(t, `{"checkers":[{"type":"plan"},{"type":"files","paths":["missing"]}]}`)
	home := t.TempDir()
	claude := filepath.Join(home, ".claude")
	// A task list outside the tasks dir that a traversal would find.
	secret := filepath.Join(claude, "secret")
	require.NoError(t, os.MkdirAll(secret, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(secret, "1.json"), []byte(`{"subject":"LEAKED","status":"pending"}`), 0o644))
	for _, id := range []string{"../secret", "..", "a/b", "a\x00b", strings.Repeat("x", 10_000), "../../../../etc/passwd"} {
		stateDir := t.TempDir()
		ev := stopEvent(dir, id, "../"+id)
		ev["agent_id"] = "../" + id
		r := runHook(t, "stop-hook", ev, []string{"DONEGATE_STATE_DIR=" + stateDir, "CLAUDE_CONFIG_DIR=" + claude})
		require.Equal(t, 0, r.code, r.stderr)
		assert.NotContains(t, r.stdout, "LEAKED")
		assert.Contains(t, r.stdout, "Missing required files: missing")
		entries, err := os.ReadDir(stateDir)
		require.NoError(t, err)
		for _, e := range entries {
			if e.Name() == "decisions.jsonl" {
				continue // the decision log: one file of fixed name
			}
			assert.Regexp(t, `^[0-9a-f]{32}\.json$`, e.Name())
		}
	}
}

// TestTestCommandGroupIsKilled: a test command that ignores SIGTERM and
// leaves children behind is killed with its whole group at its timeout.
func TestTestCommandGroupIsKilled(t *testing.T) {
	dir := project(t, `{"checkers":[{"type":"test","command":"trap '' TERM; sleep 120 & echo $! > child.pid; sleep 120","timeout":"300ms","cache":false}]}`)
	r := runHook(t, "stop-hook", stopEvent(dir, "s1", "p1"), []string{"DONEGATE_STATE_DIR=" + allowed(t, dir)})
	assert.Equal(t, 0, r.code)
	// Had the group outlived the timeout, the hook would still wait for
	// the command's `sleep 120` and runHook would kill it (code -1).
	assert.Contains(t, r.stdout, "timed out after 300ms")
	data, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return proctest.Gone(pid) }, 20*time.Second, 50*time.Millisecond,
		"the background child %d must be dead", pid)
}

// TestTerminatedHookKillsTestCommand: when the host stops a hook with
// SIGTERM (Claude Code does at its hook timeout) or SIGINT while a test
// command runs, the command's whole group goes with it, and the hook
// answers nothing that holds.
func TestTerminatedHookKillsTestCommand(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := project(t, `{"checkers":[{"type":"test","command":"sleep 120 & echo $! > child.pid; sleep 120","cache":false}]}`)
			data, err := json.Marshal(stopEvent(dir, "s1", "p1"))
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(hooks(t), "stop-hook"))
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "DONEGATE_STATE_DIR=" + allowed(t, dir)}
			cmd.Stdin = bytes.NewReader(data)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			require.NoError(t, cmd.Start())

			pidFile := filepath.Join(dir, "child.pid")
			var pid int
			require.Eventually(t, func() bool {
				b, err := os.ReadFile(pidFile)
				pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
				return err == nil && pid > 0
			}, 20*time.Second, 20*time.Millisecond, "the test command never started")
			require.NoError(t, cmd.Process.Signal(sig))
			_ = cmd.Wait()
			// A hook that did not end at the signal waits for the
			// command's `sleep 120` and is killed at the test's minute.
			require.NoError(t, ctx.Err(), "the hook must end after %v", sig)
			assert.True(t, cmd.ProcessState.Exited(), "the hook ends on its own after %v: %v", sig, cmd.ProcessState)
			assert.Eventually(t, func() bool { return proctest.Gone(pid) }, 20*time.Second, 50*time.Millisecond,
				"the test command's background child %d must be dead", pid)
			// Whatever the hook still wrote is a well-formed answer that
			// holds nothing (a stop the host or the person ends is no
			// hold), and stderr says why.
			out := bytes.TrimSpace(stdout.Bytes())
			require.NotEmpty(t, out, "the hook answers")
			assert.True(t, json.Valid(out), "stdout: %s", out)
			assert.NotContains(t, string(out), `"decision"`)
			assert.Contains(t, string(out), "donegate was stopped by a signal before its checks ended, so it holds nothing")
			assert.Contains(t, stderr.String(), "stopped by a signal (the host's hook timeout, or ^C) while a check ran: holding nothing")
		})
	}
}

// TestMissingToolsOnPath: without git on PATH the test checker still runs
// (uncached); nothing crashes.
func TestMissingToolsOnPath(t *testing.T) {
	dir := project(t, `{"checkers":[{"type":"test","command":"exit 4"}]}`)
	sh, err := exec.LookPath("sh")
	require.NoError(t, err)
	bin := t.TempDir()
	require.NoError(t, os.Symlink(sh, filepath.Join(bin, "sh")))
	ev := stopEvent(dir, "s1", "p1")
	data, _ := json.Marshal(ev)
	cmd := exec.Command(filepath.Join(hooks(t), "stop-hook"))
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir(), "DONEGATE_STATE_DIR=" + allowed(t, dir)}
	cmd.Stdin = bytes.NewReader(data)
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "failed with exit code 4")
}

// TestStdoutClosed: when the reader of stdout has gone away the hook says
// so on stderr and exits 1, instead of dying of SIGPIPE or panicking.
func TestStdoutClosed(t *testing.T) {
	dir := project(t, `{"checkers":[{"type":"files","paths":["missing"]}]}`)
	data, _ := json.Marshal(stopEvent(dir, "s1", "p1"))
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, pr.Close()) // nobody will read the answer
	defer pw.Close()
	cmd := exec.Command(filepath.Join(hooks(t), "stop-hook"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "DONEGATE_STATE_DIR=" + t.TempDir()}
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stdout = pw
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.ExitCode(), "exit code (a negative one means a signal): %s", stderr.String())
	assert.Contains(t, stderr.String(), "write answer")
	assert.Contains(t, stderr.String(), "broken pipe")
	assert.NotContains(t, stderr.String(), "panic")
}

// TestTranscriptTruncatedMidLine: a half-written last line is skipped and
// the TodoWrite before it counts.
func TestTranscriptTruncatedMidLine(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "s.jsonl")
	full := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[{"content":"Ship it","status":"pending"}]}}]}}` + "\n" +
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[{"content":"Ship it","status":"compl`
	require.NoError(t, os.WriteFile(tr, []byte(full), 0o644))
	ev := map[string]any{"session_id": "s1", "hook_event_name": "Stop", "cwd": dir, "transcript_path": tr}
	r := runHook(t, "stop-hook", ev, []string{"DONEGATE_STATE_DIR=" + t.TempDir()})
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "You have 1 incomplete task(s) out of 1.")
	assert.Contains(t, r.stdout, "Ship it")
}

// TestUnreadableTranscript fails open with a message (root reads anything,
// so the case uses a directory in place of the file).
func TestUnreadableTranscript(t *testing.T) {
	dir := t.TempDir()
	ev := map[string]any{"session_id": "s1", "hook_event_name": "Stop", "cwd": dir, "transcript_path": dir}
	r := runHook(t, "stop-hook", ev, []string{"DONEGATE_STATE_DIR=" + t.TempDir()})
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, `"systemMessage":"donegate could not check whether the work is done, so the agent may stop: checker 1 (plan): transcript `)
	assert.Contains(t, r.stderr, "not a regular file")
}

// TestHugeEvent: an event over the 16 MiB bound is refused with a clear
// error, not read whole.
func TestHugeEvent(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 17<<20)
	event := append([]byte(`{"hook_event_name":"Stop","session_id":"s1","last_assistant_message":"`), big...)
	event = append(event, `"}`...)
	cmd := exec.Command(filepath.Join(hooks(t), "stop-hook"))
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "DONEGATE_STATE_DIR=" + t.TempDir()}
	cmd.Stdin = bytes.NewReader(event)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 1, ee.ExitCode())
	assert.Empty(t, stdout.String())
	assert.Equal(t, "stop-hook: bad hook event: stdin holds more than 16 MiB; a hook event is a single small JSON object\n", stderr.String())
}

// TestFeedbackIsCleanedAndBounded: a test command that prints terminal
// escapes and megabytes of output yields a clean, bounded reason.
func TestFeedbackIsCleanedAndBounded(t *testing.T) {
	dir := project(t, `{"checkers":[{"type":"test","command":"printf '\\033]0;pwned\\007\\033[2J'; for i in $(seq 1 40); do head -c 400 /dev/zero | tr '\\0' 'x'; echo; done; exit 1","cache":false}]}`)
	r := runHook(t, "stop-hook", stopEvent(dir, "s1", "p1"), []string{"DONEGATE_STATE_DIR=" + allowed(t, dir)})
	require.Equal(t, 0, r.code, r.stderr)
	var answer struct{ Decision, Reason string }
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &answer))
	assert.Equal(t, "block", answer.Decision)
	assert.NotContains(t, answer.Reason, "\x1b")
	assert.NotContains(t, answer.Reason, "\x07")
	_, log, ok := strings.Cut(answer.Reason, "Last 40 lines of output:\n")
	require.True(t, ok, answer.Reason)
	assert.NotContains(t, log, "pwned", "the OSC title sequence is removed with its text")
	assert.LessOrEqual(t, len([]rune(answer.Reason)), 8000)
	assert.Contains(t, answer.Reason, "[donegate: feedback cut, ")
}

// runRaw runs a hook binary on raw stdin bytes, killing it after a minute
// so that a hook that hangs (a blocking open(2) never ends) fails the test
// instead of hanging it; a hook answers in milliseconds, and a minute
// holds on the most loaded machine.
func runRaw(t *testing.T, hook string, stdin []byte, env []string, args ...string) hookRun {
	t.Helper()
	const limit = time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(hooks(t), hook), args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := hookRun{stdout: stdout.String(), stderr: stderr.String()}
	require.NoError(t, ctx.Err(), "%s still running after %v; stderr: %s", hook, limit, r.stderr)
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

// TestDeeplyNestedEvent: an event nested six million levels deep (inside
// the 16 MiB bound) once overflowed the stack of gjson's recursive
// validator, and Go died with exit 2 and a trace of 290 lines. It is now
// refused with exit 1 and one line, by both hooks, gated tool or not.
func TestDeeplyNestedEvent(t *testing.T) {
	deep := strings.Repeat("[", 6_000_000)
	tests := []struct {
		name, hook, event string
	}{
		{"Stop", "stop-hook", `{"hook_event_name":"Stop","session_id":"s1","x":` + deep + `}`},
		{"PostToolUse of a gated tool", "posttooluse-hook", `{"hook_event_name":"PostToolUse","session_id":"s1","tool_name":"StructuredOutput","tool_input":` + deep + `}`},
		{"PreToolUse of an ungated tool", "posttooluse-hook", `{"hook_event_name":"PreToolUse","session_id":"s1","tool_name":"Bash","tool_input":` + deep + `}`},
		{"closed arrays", "stop-hook", `{"hook_event_name":"Stop","session_id":"s1","x":` + deep[:1000] + strings.Repeat("]", 1000) + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runRaw(t, tt.hook, []byte(tt.event), []string{"DONEGATE_STATE_DIR=" + t.TempDir()})
			assert.Equal(t, 1, r.code, "stderr: %.300s", r.stderr)
			assert.Empty(t, r.stdout)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line on stderr: %.300s", r.stderr)
			assert.NotContains(t, r.stderr, "goroutine")
			assert.Equal(t, tt.hook+": bad hook event: stdin nests arrays or objects more than 512 levels deep; a hook event is a single small JSON object\n", r.stderr)
		})
	}
}

// TestNonRegularFilesDoNotHang: a FIFO (or a symbolic link) where donegate
// expects a regular file once hung the hook in open(2) until the host
// killed it. Each kind now answers at once, as documented per file.
func TestNonRegularFilesDoNotHang(t *testing.T) {
	mkfifo := func(t *testing.T, p string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		fifotest.Make(t, p)
	}
	type setup struct {
		dir, stateDir, home string
		event               map[string]any
		args                []string
	}
	tests := []struct {
		name    string
		hook    string
		arrange func(t *testing.T, s *setup)
		stdout  string // a substring of the answer
		stderr  string // a substring of the one stderr line
	}{
		{
			name: "transcript FIFO: the check cannot run, fails open", hook: "stop-hook",
			arrange: func(t *testing.T, s *setup) {
				mkfifo(t, s.event["transcript_path"].(string))
			},
			stdout: `"systemMessage":"donegate could not check whether the work is done, so the agent may stop: checker 1 (plan): transcript `,
			stderr: "s1.jsonl: not a regular file (a FIFO)",
		},
		{
			name: "task file FIFO: an open item naming it", hook: "stop-hook",
			arrange: func(t *testing.T, s *setup) {
				tasks := filepath.Join(s.home, ".claude", "tasks", "s1")
				require.NoError(t, os.MkdirAll(tasks, 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(tasks, "1.json"), []byte(`{"subject":"Write tests","status":"completed"}`), 0o644))
				mkfifo(t, filepath.Join(tasks, "2.json"))
			},
			stdout: `"decision":"block","reason":"You have 1 incomplete task(s) out of 2. Please either complete all remaining tasks or update the plan to remove tasks that are no longer needed before producing output: task file 2.json (unreadable: not a regular file (a FIFO))"`,
		},
		{
			name: "project config FIFO: a config error", hook: "stop-hook",
			arrange: func(t *testing.T, s *setup) {
				mkfifo(t, filepath.Join(s.dir, ".claude", "donegate.json"))
			},
			stdout: `"systemMessage":"donegate is not checking this session, its config is broken: config `,
			stderr: "donegate.json: not a regular file (a FIFO); a config is a JSON file",
		},
		{
			name: "--config FIFO at posttooluse-hook: a config error", hook: "posttooluse-hook",
			arrange: func(t *testing.T, s *setup) {
				p := filepath.Join(s.dir, "cfg.json")
				mkfifo(t, p)
				s.args = []string{"--config", p}
				s.event["hook_event_name"] = "PreToolUse"
				s.event["tool_name"] = "StructuredOutput"
				s.event["tool_input"] = map[string]any{}
			},
			stdout: `"systemMessage":"donegate is not checking this session, its config is broken: config `,
			stderr: "cfg.json: not a regular file (a FIFO); a config is a JSON file",
		},
		{
			name: "state file FIFO: cannot keep its block count, fails open", hook: "stop-hook",
			arrange: func(t *testing.T, s *setup) {
				writeConfig(t, s.dir, `{"checkers":[{"type":"files","paths":["missing"]}]}`)
				mkfifo(t, filepath.Join(s.stateDir, state.FileName("s1")))
			},
			stdout: `"systemMessage":"donegate cannot keep its block count (state: open `,
			stderr: "not a regular file (a FIFO)",
		},
		{
			name: "state file symlink: not followed, fails open", hook: "stop-hook",
			arrange: func(t *testing.T, s *setup) {
				writeConfig(t, s.dir, `{"checkers":[{"type":"files","paths":["missing"]}]}`)
				require.NoError(t, os.MkdirAll(s.stateDir, 0o700))
				require.NoError(t, os.Symlink(filepath.Join(s.dir, "precious"), filepath.Join(s.stateDir, state.FileName("s1"))))
			},
			stdout: `is a symbolic link, which is not followed), so it lets the agent stop; still open: Missing required files: missing`,
			stderr: "is a symbolic link, which is not followed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &setup{dir: t.TempDir(), home: t.TempDir()}
			s.stateDir = filepath.Join(t.TempDir(), "state")
			require.NoError(t, os.WriteFile(filepath.Join(s.dir, "precious"), []byte("keep me"), 0o644))
			s.event = map[string]any{"session_id": "s1", "prompt_id": "p1", "hook_event_name": "Stop", "cwd": s.dir,
				"transcript_path": filepath.Join(s.dir, "s1.jsonl")}
			tt.arrange(t, s)
			data, err := json.Marshal(s.event)
			require.NoError(t, err)
			env := []string{"DONEGATE_STATE_DIR=" + s.stateDir, "CLAUDE_CONFIG_DIR=" + filepath.Join(s.home, ".claude")}
			r := runRaw(t, tt.hook, data, env, s.args...)
			assert.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, tt.stdout)
			if tt.stderr == "" {
				assert.Empty(t, r.stderr)
			} else {
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
				assert.Contains(t, r.stderr, tt.stderr)
			}
			precious, err := os.ReadFile(filepath.Join(s.dir, "precious"))
			require.NoError(t, err)
			assert.Equal(t, "keep me", string(precious), "no file is written through a link")
		})
	}
}

// allowed is a new state dir in which the project in dir is allowed to
// run its commands, as closer allow allows it (see consenttest.Allow):
// for a hook run on dir after its config and files are written.
func allowed(t *testing.T, dir string) string {
	t.Helper()
	stateDir := t.TempDir()
	consenttest.Allow(t, stateDir, dir)
	return stateDir
}

// writeConfig writes the project config of dir.
func writeConfig(t *testing.T, dir, cfg string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "donegate.json"), []byte(cfg), 0o644))
}

// TestTestCommandDaemonIsKilled: a test command that starts a process in
// a session of its own (`setsid server &`), out of reach of the group
// kill, once left it running after the hook. The hook now adopts it and
// kills it before it answers.
func TestTestCommandDaemonIsKilled(t *testing.T) {
	dir := project(t, `{"checkers":[{"type":"test","command":"setsid sh -c 'echo $$ > daemon.tmp; mv daemon.tmp daemon.pid; exec sleep 300' </dev/null >/dev/null 2>&1 & while [ ! -s daemon.pid ]; do sleep 0.01; done; exit 1","cache":false}]}`)
	r := runHook(t, "stop-hook", stopEvent(dir, "s1", "p1"), []string{"DONEGATE_STATE_DIR=" + allowed(t, dir)})
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"decision":"block"`)
	data, err := os.ReadFile(filepath.Join(dir, "daemon.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	if !assert.True(t, proctest.Gone(pid), "the daemon %d outlived the hook", pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
