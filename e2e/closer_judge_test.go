//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// judgeAnswer is a checklist as the judge's StructuredOutput call gives it.
func judgeAnswer(all bool, items ...map[string]any) map[string]any {
	pending := []any{}
	for _, it := range items {
		if !it["completed"].(bool) {
			pending = append(pending, "finish "+it["description"].(string))
		}
	}
	return map[string]any{"checklist": items, "allComplete": all, "summary": "reviewed", "pendingActions": pending}
}

func criterion(id, description string, done bool, evidence string) map[string]any {
	return map[string]any{"id": id, "description": description, "completed": done, "evidence": evidence}
}

// fixtureDir holds closer's recordings of the real CLI.
func fixtureDir(t *testing.T) string {
	return filepath.Join(repoRoot(t), "internal", "closer", "testdata", "claude")
}

// keys returns the sorted top-level keys of a JSON object.
func keys(t *testing.T, data []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &m), "%s", data)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// The fixtures closer's unit tests feed to a fake claude are what the real
// CLI prints for -p --output-format json, with and without --json-schema.
// -update-closer records them again; otherwise the real CLI's output must
// still have the recorded shape.
func TestCloserFixturesAreTheRealCLIsOutput(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file   string
		turn   fakeapi.Turn
		schema bool
	}{
		{"result-text.json", fakeapi.Say("Status:\n```json\n{\"status\": \"working\", \"message\": \"Writing the tests.\", \"agents_active\": 1, \"tasks_completed\": 1, \"tasks_pending\": 2, \"should_continue\": true, \"next_action\": \"write the tests\"}\n```"), false},
		{"result-structured.json", fakeapi.Call("StructuredOutput", judgeAnswer(false,
			criterion("1", "hello.txt says hello", true, "hello.txt holds 'hello'"),
			criterion("2", "the change is committed", false, "git status shows hello.txt untracked"))), true},
	} {
		t.Run(tt.file, func(t *testing.T) {
			s := newSession(t, fakeapi.New(tt.turn))
			if tt.schema {
				s.Args = []string{"--json-schema", judgeSchemaForTests}
			}
			r := s.run("Report")
			require.Equal(t, 0, r.ExitCode, r.Stderr)
			path := filepath.Join(fixtureDir(t), tt.file)
			if *updateCloser {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, []byte(r.Stdout), 0o644))
			}
			recorded, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./e2e -run CloserFixtures -update-closer")
			assert.Equal(t, keys(t, recorded), keys(t, []byte(r.Stdout)), "the real CLI's result has another shape than the fixture; record it again")
			if tt.schema {
				assert.NotEmpty(t, r.StructuredOutput)
			}
		})
	}
}

// judgeSchemaForTests is closer's checklist schema (closer judge passes
// the same to --json-schema).
const judgeSchemaForTests = `{"type":"object","additionalProperties":false,"required":["checklist","allComplete","summary","pendingActions"],"properties":{"checklist":{"type":"array","minItems":1,"items":{"type":"object","additionalProperties":false,"required":["id","description","completed","evidence"],"properties":{"id":{"type":"string"},"description":{"type":"string"},"completed":{"type":"boolean"},"evidence":{"type":"string"}}}},"allComplete":{"type":"boolean"},"summary":{"type":"string"},"pendingActions":{"type":"array","items":{"type":"string"}}}}`

// closer judge asks the real CLI with --json-schema and reads its
// structured_output; the project's own hooks (donegate's, with a check
// that never passes) do not hold the judge; a judge that says "all
// complete" with an open item is incomplete.
func TestCloserJudgeReadsStructuredOutput(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		fakeapi.Call("StructuredOutput", judgeAnswer(true,
			criterion("1", "hello.txt says hello", true, "hello.txt holds 'hello'"),
			criterion("2", "the change is committed", false, "hello.txt is untracked"))),
		fakeapi.Call("StructuredOutput", judgeAnswer(true,
			criterion("1", "hello.txt says hello", true, "hello.txt holds 'hello'"))),
	)
	s := newSession(t, api)
	s.gitRepo()
	require.NoError(t, os.WriteFile(filepath.Join(s.Project, "hello.txt"), []byte("hello\n"), 0o644))
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}]}`)
	s.projectHooks()
	claude := claudeBinary(t)

	r := s.closer(2*time.Minute, "judge", "--claude", claude, "--json", "--criteria-text", "hello.txt says hello, and the change is committed")
	assert.Equal(t, 1, r.Code, "stderr: %s", r.Stderr)
	var ans struct {
		AllComplete bool `json:"allComplete"`
		Checklist   []struct {
			ID        string `json:"id"`
			Completed bool   `json:"completed"`
			Evidence  string `json:"evidence"`
		} `json:"checklist"`
		PendingActions []string `json:"pendingActions"`
		Reason         string   `json:"reason"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &ans), r.Stdout)
	assert.False(t, ans.AllComplete)
	require.Len(t, ans.Checklist, 2)
	assert.Equal(t, "hello.txt is untracked", ans.Checklist[1].Evidence)
	assert.Equal(t, []string{"finish the change is committed"}, ans.PendingActions)
	assert.Equal(t, "the judge said all complete, but item(s) 2 are not", ans.Reason)

	main := api.Of("main")
	require.Len(t, main, 1, "the judge's StructuredOutput was accepted at once: the project's hooks did not run")
	prompt := string(fakeapi.FirstUserText(main[0].Body))
	assert.Contains(t, prompt, "hello.txt says hello, and the change is committed")
	assert.Contains(t, prompt, "Untracked files:\n .claude/donegate.json\n .claude/settings.json\n hello.txt\n")
	assert.Contains(t, prompt, "- FAIL files: required files exist: never.txt\n    Missing required files: never.txt")

	// A second judge, in text: every item done, exit 0.
	r = s.closer(2*time.Minute, "judge", "--claude", claude, "--criteria-text", "hello.txt says hello")
	assert.Equal(t, 0, r.Code, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	assert.Contains(t, r.Stdout, "✓ 1. hello.txt says hello\n    hello.txt holds 'hello'\n")
	assert.Contains(t, r.Stdout, "Complete: the judge found every criterion met.")
	assert.False(t, strings.Contains(r.Stdout, "\x1b["), "no colour in a pipe")
	assert.Len(t, api.Of("main"), 2)
}
