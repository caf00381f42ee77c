package closer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/proctest"
)

func TestJudge(t *testing.T) {
	item := func(id string, done bool) map[string]any {
		return map[string]any{"id": id, "description": "criterion " + id, "completed": done, "evidence": "seen " + id}
	}
	answer := func(all bool, items ...map[string]any) map[string]any {
		return map[string]any{"checklist": items, "allComplete": all, "summary": "s", "pendingActions": []string{}}
	}
	for _, tt := range []struct {
		name       string
		call       string // 1.json, or 1.sh when script is set
		script     bool
		timeout    string
		wantCode   int
		wantAll    bool
		wantReason string
		wantStderr string
	}{
		{name: "the recorded structured output: one item open", call: recorded(t, "result-structured.json", nil), wantCode: 1},
		{name: "every item done", call: recorded(t, "result-structured.json", map[string]any{"structured_output": answer(true, item("1", true), item("2", true))}), wantCode: 0, wantAll: true},
		{name: "all complete with an open item is incomplete", call: recorded(t, "result-structured.json", map[string]any{"structured_output": answer(true, item("1", true), item("2", false))}),
			wantCode: 1, wantReason: "the judge said all complete, but item(s) 2 are not"},
		{name: "no structured output: JSON in the text, fenced", call: recorded(t, "result-text.json", map[string]any{"result": "Verdict:\n```json\n{\"checklist\":[{\"id\":\"1\",\"description\":\"d\",\"completed\":true,\"evidence\":\"e\"},{\"id\":\"2\",\"description\":\"d\",\"completed\":true,\"evidence\":\"e\"}],\"allComplete\":true,\"summary\":\"ok\",\"pendingActions\":[]}\n```"}),
			wantCode: 0, wantAll: true},
		{name: "a criterion left out", call: recorded(t, "result-structured.json", map[string]any{"structured_output": answer(true, item("1", true))}),
			wantCode: 1, wantReason: "the judge gave no checklist item for criterion 2"},
		{name: "one completed item about something else entirely", call: recorded(t, "result-structured.json", map[string]any{"structured_output": answer(true, item("x", true))}),
			wantCode: 1, wantReason: `the judge gave no checklist item for criteria 1, 2; completed item(s) ["x"] answer no criterion and were left out`},
		{name: "malformed answer", call: recorded(t, "result-structured.json", map[string]any{"structured_output": map[string]any{"checklist": []any{map[string]any{"description": "d"}}, "allComplete": true, "summary": "s"}}),
			wantCode: 1, wantReason: "the judge's answer cannot be used: answer is malformed: checklist[0].id is required; checklist[0].completed is required"},
		{name: "text without JSON", call: recorded(t, "result-text.json", map[string]any{"result": "Looks good to me!"}),
			wantCode: 1, wantReason: `the judge's answer cannot be used: no JSON object in the answer "Looks good to me!"`},
		{name: "is_error", call: recorded(t, "result-text.json", map[string]any{"is_error": true, "subtype": "error_max_turns", "result": "max turns"}),
			wantCode: 1, wantReason: "the judge gave no verdict: " + "CLAUDE reported an error (error_max_turns): max turns"},
		{name: "garbage", call: "echo 'Welcome to claude!'", script: true,
			wantCode: 1, wantReason: `the judge gave no verdict: CLAUDE printed no JSON result: output "Welcome to claude!" is not a result object`},
		{name: "non-zero exit", call: "echo 'Error: Invalid API key' >&2; exit 1", script: true,
			wantCode: 1, wantReason: "the judge gave no verdict: CLAUDE exited with code 1: Error: Invalid API key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo, _ := newRepo(t)
			name := "1.json"
			if tt.script {
				name = "1.sh"
			}
			claude, calls := fakeClaude(t, map[string]string{name: tt.call})
			code, out, stderr := run(t, "judge", "--dir", repo, "--claude", claude, "--criteria-text", "- hello.txt says hello\n- the change is committed", "--json")
			assert.Equal(t, tt.wantCode, code, "stdout: %s\nstderr: %s", out, stderr)
			assert.Empty(t, stderr)
			var a JudgeAnswer
			require.NoError(t, json.Unmarshal([]byte(out), &a), out)
			assert.Equal(t, tt.wantAll, a.AllComplete)
			assert.Equal(t, replaceClaude(tt.wantReason, claude), a.Reason)
			args := callArgs(t, calls, "1")
			assert.Equal(t, "-p", args[0])
			assert.Contains(t, args[1], "## Completion criteria\n\n1. hello.txt says hello\n2. the change is committed\n\n")
			assert.Equal(t, []string{"--output-format", "json", "--json-schema", judgeSchema, "--settings", noHooks}, args[2:])
		})
	}
}

// A judge checker in the config is not run by closer judge: it would ask
// a model the question closer judge asks, a second session for one
// verdict. The other checkers still reach the judge's prompt.
func TestJudgeDoesNotRunTheConfigsJudge(t *testing.T) {
	repo, _ := newRepo(t)
	claude, calls := fakeClaude(t, map[string]string{"1.json": recorded(t, "result-structured.json", nil)})
	cfg := fmt.Sprintf(`{"checkers": [
		{"type": "judge", "criteria": "the config's own criterion", "claude": %q},
		{"type": "files", "paths": ["NOTES.md"]}]}`, claude)
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".claude", "donegate.json"), []byte(cfg), 0o644))
	code, out, stderr := run(t, "judge", "--dir", repo, "--claude", claude, "--criteria-text", "it works", "--json")
	assert.Equal(t, 1, code, "stdout: %s\nstderr: %s", out, stderr)
	count, err := os.ReadFile(filepath.Join(calls, "count"))
	require.NoError(t, err)
	assert.Equal(t, "1\n", string(count), "claude was asked once, by closer judge")
	prompt := callArgs(t, calls, "1")[1]
	assert.Contains(t, prompt, "NOTES.md", "the files checker's result is in the prompt")
	assert.NotContains(t, prompt, "the config's own criterion")
}

func replaceClaude(s, claude string) string {
	const placeholder = "CLAUDE"
	for i := 0; i+len(placeholder) <= len(s); i++ {
		if s[i:i+len(placeholder)] == placeholder {
			return s[:i] + claude + s[i+len(placeholder):]
		}
	}
	return s
}

// A judge that hangs is stopped at --timeout with everything it started.
func TestJudgeTimeoutKillsTheProcessGroup(t *testing.T) {
	repo, _ := newRepo(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	claude, _ := fakeClaude(t, map[string]string{"1.sh": "sleep 300 & echo $! > " + pidFile + "; wait"})
	var code int
	var out, stderr string
	proctest.WithinAMinute(t, func() {
		code, out, stderr = run(t, "judge", "--dir", repo, "--claude", claude, "--criteria-text", "x", "--timeout", "500ms")
	})
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, out, "Note: the judge gave no verdict: "+claude+" timed out after 500ms and was stopped with its process group\n")
	assert.Contains(t, out, "Incomplete. Next: fix the cause above and run closer judge again\n")
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(string(data[:len(data)-1]))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return proctest.Gone(pid) }, 20*time.Second, 20*time.Millisecond, "the hung claude's child was killed")
}

func TestJudgeBadInput(t *testing.T) {
	repo, _ := newRepo(t)
	notRepo := t.TempDir()
	claude, _ := fakeClaude(t, map[string]string{"last.json": recorded(t, "result-structured.json", nil)})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no criteria", []string{"--dir", repo}, "give the criteria with exactly one of --criteria FILE or --criteria-text TEXT"},
		{"both criteria", []string{"--dir", repo, "--criteria", "f", "--criteria-text", "t"}, "give the criteria with exactly one of"},
		{"criteria file missing", []string{"--dir", repo, "--criteria", "nope.md"}, "--criteria: open nope.md: no such file or directory"},
		{"not a repository", []string{"--dir", notRepo, "--criteria-text", "x"}, notRepo + " is not a git repository"},
		{"baseline not a commit", []string{"--dir", repo, "--criteria-text", "x", "--baseline", "nosuchref"}, "--baseline nosuchref is not a commit in " + repo},
		{"claude missing", []string{"--dir", repo, "--criteria-text", "x", "--claude", "/nonexistent/claude"}, `claude executable "/nonexistent/claude" not found (install Claude Code, or name it with --claude PATH)`},
		{"claude not on PATH", []string{"--dir", repo, "--criteria-text", "x", "--claude", "no-such-claude-here"}, `claude executable "no-such-claude-here" not found`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"judge", "--claude", claude}, tt.args...)
			code, out, stderr := run(t, args...)
			assert.Equal(t, ExitUsage, code)
			assert.Empty(t, out)
			assert.Contains(t, stderr, "closer judge: "+tt.want)
			assert.Equal(t, 1, countLines(stderr), stderr)
		})
	}
}

func countLines(s string) int {
	n := 0
	for _, c := range s {
		if c == '\n' {
			n++
		}
	}
	return n
}
