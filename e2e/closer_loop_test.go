//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// probeAnswer is the scripted model's answer to closer's status probe, in
// a fenced block as models tend to write it.
func probeAnswer(status, message string) fakeapi.Turn {
	return fakeapi.Say("Here is my status:\n```json\n{\"status\": \"" + status + "\", \"message\": \"" + message + "\", \"agents_active\": 0, \"tasks_completed\": 1, \"tasks_pending\": 0, \"should_continue\": false, \"next_action\": \"none\"}\n```")
}

// smart-check probes the real CLI's latest session in the project with
// --continue; the scripted model says it is complete; the rescue commits
// what it left.
func TestCloserSmartCheckProbesTheSession(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(fakeapi.Say("I wrote hello.txt."), probeAnswer("complete", "hello.txt is written."))
	s := newSession(t, api)
	base := s.gitRepo()
	r := s.run("Write hello.txt")
	require.Equal(t, 0, r.ExitCode, r.Stderr)
	require.NoError(t, os.WriteFile(filepath.Join(s.Project, "hello.txt"), []byte("hello\n"), 0o644))

	c := s.closer(2*time.Minute, "smart-check", "--baseline", base, "--claude", claudeBinary(t), "--json",
		"--rescue-command", "git add -A && git commit -qm 'rescue: commit what the agent left'")
	assert.Equal(t, 0, c.Code, "stdout: %s\nstderr: %s", c.Stdout, c.Stderr)
	var rep struct {
		Complete   bool   `json:"complete"`
		Status     string `json:"status"`
		NewCommits int    `json:"new_commits"`
		ProbesUsed int    `json:"probes_used"`
		Rescued    bool   `json:"rescued"`
		SessionID  string `json:"session_id"`
		Probe      struct {
			Status, Message string
		} `json:"probe"`
	}
	require.NoError(t, json.Unmarshal([]byte(c.Stdout), &rep), c.Stdout)
	assert.True(t, rep.Complete)
	assert.Equal(t, "rescued", rep.Status)
	assert.Equal(t, 1, rep.NewCommits)
	assert.Equal(t, 1, rep.ProbesUsed)
	assert.True(t, rep.Rescued)
	assert.Equal(t, "complete", rep.Probe.Status)
	assert.Equal(t, "hello.txt is written.", rep.Probe.Message)
	assert.Equal(t, r.SessionID, rep.SessionID, "the probe continued the agent's session")
	assert.Equal(t, "rescue: commit what the agent left", s.git("log", "-1", "--format=%s"))

	main := api.Of("main")
	require.Len(t, main, 2)
	assert.Contains(t, main[1].LastUserText(), "Status check from the outer loop running you (closer)")
	assert.Contains(t, main[1].AllText(), "I wrote hello.txt.", "the probe saw the agent's conversation")
	assert.False(t, api.Exhausted())
}

// loop: the scripted agent commits through the real Bash tool in the
// second iteration and the loop stops complete; the project's donegate
// hooks run as usual.
func TestCloserLoopStopsComplete(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		fakeapi.Say("I will write work.txt next."),
		probeAnswer("working", "work.txt is not written yet."),
		fakeapi.Call("Bash", map[string]any{"command": "echo done > work.txt && git add work.txt && git commit -qm 'add work.txt'", "description": "Write and commit work.txt"}),
		fakeapi.Say("Committed work.txt."),
	)
	s := newSession(t, api)
	s.gitRepo()
	s.projectHooks()
	prompt := filepath.Join(t.TempDir(), "prompt.md")
	require.NoError(t, os.WriteFile(prompt, []byte("Write work.txt and commit it.\n"), 0o644))

	c := s.closer(4*time.Minute, "loop", "--prompt-file", prompt, "--claude", claudeBinary(t), "--max-probes", "1", "--probe-interval", "0s", "--json",
		"--", "--allowedTools", "Bash")
	assert.Equal(t, 0, c.Code, "stdout: %s\nstderr: %s", c.Stdout, c.Stderr)
	lines := strings.Split(strings.TrimSpace(c.Stdout), "\n")
	require.Len(t, lines, 3, c.Stdout)
	var it1, it2 struct {
		Iteration  int  `json:"iteration"`
		Complete   bool `json:"complete"`
		NewCommits int  `json:"new_commits"`
		SmartCheck struct {
			Status string `json:"status"`
		} `json:"smart_check"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &it1))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &it2))
	assert.Equal(t, "timeout", it1.SmartCheck.Status)
	assert.False(t, it1.Complete)
	assert.Equal(t, "commits_created", it2.SmartCheck.Status)
	assert.True(t, it2.Complete)
	assert.Equal(t, 1, it2.NewCommits)
	assert.JSONEq(t, `{"event":"summary","iterations":2,"commits":1,"rescues":0,"stopped":"complete"}`, withoutKeys(t, lines[2], "elapsed_s", "baseline"))
	assert.Equal(t, "add work.txt", s.git("log", "-1", "--format=%s"))

	main := api.Of("main")
	require.Len(t, main, 4)
	assert.Contains(t, main[2].LastUserText(), "No commit was made in the last iteration (timeout: ", "the retry prompt reached the agent")
	assert.Contains(t, main[2].AllText(), "Write work.txt and commit it.", "the second iteration continued the session")
	assert.False(t, api.Exhausted())
}

// loop: an agent that never commits stops at the circuit breaker.
func TestCloserLoopCircuitBreaker(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		fakeapi.Say("Thinking about it."), probeAnswer("working", "Still thinking."),
		fakeapi.Say("Still thinking about it."), probeAnswer("working", "Still thinking."),
	)
	s := newSession(t, api)
	s.gitRepo()
	prompt := filepath.Join(t.TempDir(), "prompt.md")
	require.NoError(t, os.WriteFile(prompt, []byte("Write work.txt and commit it.\n"), 0o644))

	c := s.closer(4*time.Minute, "loop", "--prompt-file", prompt, "--claude", claudeBinary(t), "--max-probes", "1", "--probe-interval", "0s", "--no-progress-limit", "2")
	assert.Equal(t, 1, c.Code, "stdout: %s\nstderr: %s", c.Stdout, c.Stderr)
	assert.Regexp(t, `^iteration 1/10 \d+s commits 0 ✗ incomplete: smart-check: timeout — no commit since [0-9a-f]{12} after 1 status probe\(s\)\n`+
		`iteration 2/10 \d+s commits 0 ✗ incomplete: smart-check: timeout — no commit since [0-9a-f]{12} after 1 status probe\(s\)\n`+
		`loop stopped: circuit_breaker after 2 iteration\(s\), \d+s; 0 commit\(s\) since [0-9a-f]{12}, 0 rescue\(s\)\. No progress in 2 iterations in a row`, c.Stdout)
	assert.Len(t, api.Of("main"), 4)
	assert.False(t, api.Exhausted())
}

// withoutKeys drops keys from a JSON object.
func withoutKeys(t *testing.T, line string, drop ...string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(line), &m), line)
	for _, k := range drop {
		delete(m, k)
	}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return string(out)
}
