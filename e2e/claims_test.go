//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// seedsSchema is the completion schema of the design documents' seeds:
// a status, a next action, claims under validation, evidence.
const seedsSchema = `{"type":"object","properties":{` +
	`"status":{"type":"string","enum":["completed","blocked","failed","in_progress"]},` +
	`"summary":{"type":"string"},` +
	`"next_action":{"type":"object","properties":{"action":{"type":"string","enum":["continue","complete","closing","retry"]},"reason":{"type":"string"}},"required":["action"]},` +
	`"validation":{"type":"object","properties":{"git_clean":{"type":"boolean"},"type_check_passed":{"type":"boolean"},"tests_passed":{"type":"boolean"},"lint_passed":{"type":"boolean"},"format_check_passed":{"type":"boolean"}}},` +
	`"evidence":{"type":"array","items":{"type":"string"}}},` +
	`"required":["status","summary"]}`

// seedsSignal is the seeds' completion signal, as the README shows it.
const seedsSignal = `"completion_signal": [
	{"path": "status", "equals": "completed"},
	{"path": "next_action.action", "matches": "^(complete|closing)$"}]`

// A project whose test fails until add.sh adds.
func addProject(t *testing.T, dir string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "add.sh"), []byte("echo $(($1 - $2))\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test.sh"), []byte("touch ran-tests\ngot=$(sh add.sh 2 3)\n[ \"$got\" = 5 ] || { echo \"FAIL: add 2 3: want 5, got $got\"; exit 1; }\necho ok\n"), 0o644))
}

// The first StructuredOutput claims validation.tests_passed while the
// project's tests fail: denied, and the model is told the claim is false
// with the test's output. It fixes add.sh with the Write tool; the same
// answer is then accepted.
func TestFalseClaimIsDenied(t *testing.T) {
	t.Parallel()
	answer := map[string]any{
		"status": "completed", "summary": "Implemented add.",
		"next_action": map[string]any{"action": "complete"},
		"validation":  map[string]any{"tests_passed": true, "lint_passed": false},
		"evidence":    []any{"sh test.sh passes"},
	}
	s := newSession(t, fakeapi.New())
	api := fakeapi.New(
		fakeapi.Call("StructuredOutput", answer),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "add.sh"), "content": "echo $(($1 + $2))\n"}),
		fakeapi.Call("StructuredOutput", answer),
	)
	s.API = api
	t.Cleanup(api.Close)
	addProject(t, s.Project)
	s.config(`{` + seedsSignal + `,
		"checkers": [{"type": "claims", "claims": [
			{"path": "validation.tests_passed", "checker": {"type": "test", "command": "sh test.sh"}},
			{"path": "validation.lint_passed", "checker": {"type": "command", "command": "touch ran-lint"}}]}]}`)
	s.Args = []string{"--json-schema", seedsSchema, "--permission-mode", "acceptEdits"}
	s.useDonegate()
	r := s.run("Implement add")

	denied := mainTurn(t, api, 1)
	assert.Contains(t, denied, "PreToolUse:StructuredOutput hook error: ")
	assert.Contains(t, denied, "Your StructuredOutput output claims what is not so.")
	assert.Contains(t, denied, "- validation.tests_passed is true, but the check that `sh test.sh` passes fails:\nThe test command `sh test.sh` failed with exit code 1.")
	assert.Contains(t, denied, "FAIL: add 2 3: want 5, got -1")
	assert.NotContains(t, denied, "lint_passed", "a claim of false is not checked")
	assert.NoFileExists(t, filepath.Join(s.Project, "ran-lint"))

	assert.Equal(t, 1, strings.Count(mainTurn(t, api, 2), "hook error"), "the Write is not gated")
	want, err := json.Marshal(answer)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(r.StructuredOutput), "the second answer is the result")
	assert.False(t, r.IsError, r.Stdout)
	assert.False(t, api.Exhausted())
	assert.Len(t, api.Of("main"), 3)
}

// With the seeds' completion_signal, an answer of "blocked" is let
// through at once although the plan is open and the tests fail: no
// checker runs (the command would leave ran-check). The checkers are set
// to tool_use: the CLI runs the Stop hook after the accepted output too
// (and ignores its answer).
func TestCompletionSignalLetsBlockedThrough(t *testing.T) {
	t.Parallel()
	answer := map[string]any{
		"status": "blocked", "summary": "The tests need a database the sandbox does not have.",
		"next_action": map[string]any{"action": "retry", "reason": "needs a database"},
		"validation":  map[string]any{"tests_passed": false},
	}
	api := fakeapi.New(
		loadTools("TaskCreate", "TaskUpdate"),
		fakeapi.Call("TaskCreate", map[string]any{"subject": "Make the tests pass", "description": "All of them"}),
		fakeapi.Call("StructuredOutput", answer),
	)
	s := newSession(t, api)
	addProject(t, s.Project)
	s.Env = taskTools
	s.config(`{` + seedsSignal + `,
		"checkers": [
			{"type": "command", "command": "touch ran-check; exit 1", "on": ["tool_use"]},
			{"type": "plan", "on": ["tool_use"]},
			{"type": "test", "command": "sh test.sh", "on": ["tool_use"]}]}`)
	s.Args = []string{"--json-schema", seedsSchema}
	s.useDonegate()
	r := s.run("Make the tests pass")

	assert.Equal(t, 0, strings.Count(mainTurn(t, api, 2), "hook error"))
	want, err := json.Marshal(answer)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(r.StructuredOutput), "the first answer is the result")
	assert.False(t, r.IsError, r.Stdout)
	assert.Len(t, api.Of("main"), 3)
	assert.NoFileExists(t, filepath.Join(s.Project, "ran-check"), "no checker ran")
	assert.NoFileExists(t, filepath.Join(s.Project, "ran-tests"), "no checker ran")

	// The same config holds an answer that declares completion.
	api = fakeapi.New(
		loadTools("TaskCreate", "TaskUpdate"),
		fakeapi.Call("TaskCreate", map[string]any{"subject": "Make the tests pass", "description": "All of them"}),
		fakeapi.Call("StructuredOutput", map[string]any{"status": "completed", "summary": "Done."}),
		fakeapi.Call("StructuredOutput", answer),
	)
	s.API = api
	t.Cleanup(api.Close)
	r = s.run("Make the tests pass")
	assert.Contains(t, mainTurn(t, api, 3), "PreToolUse:StructuredOutput hook error: ")
	assert.FileExists(t, filepath.Join(s.Project, "ran-check"))
	assert.JSONEq(t, string(want), string(r.StructuredOutput), "then it hands in blocked, which passes")
}
