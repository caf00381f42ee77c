//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// In a Python project (tests_ran_pytest.txtar's: sub adds, test_sub
// fails), a session of the real Claude Code whose agent makes the test
// skip itself with pytest.importorskip — which no diff rule reads — is
// held by what the real pytest's own report says ran (Debian's pytest
// 7.2.1), fixes the code and is let go.
// pytestProject writes tests_ran_pytest.txtar's project (sub adds,
// test_sub fails) into s's project dir, committed, and returns the
// script's other files by name (the agent's moves).
func pytestProject(t *testing.T, s *session) map[string]string {
	t.Helper()
	needDebianTool(t, "pytest")
	ar, err := txtar.ParseFile(filepath.Join(repoRoot(t), "testdata", "script", "tests_ran_pytest.txtar"))
	require.NoError(t, err)
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
		if f.Name == "stop.json" || f.Name == ".claude/donegate.json" || strings.HasSuffix(f.Name, ".txt") {
			continue // the script's events and config, and the agent's moves
		}
		path := filepath.Join(s.Project, f.Name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, f.Data, 0o644))
	}
	gitInit(t, s.Project)
	commitAll(t, s.Project)
	return files
}

func TestPytestSkipHeldByItsReport(t *testing.T) {
	t.Parallel()
	s := newSession(t, fakeapi.New())
	files := pytestProject(t, s)
	api := fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "tests", "test_calc.py"), "content": files["importorskip.py.txt"]}),
		fakeapi.Say("Done: the tests pass."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "calc.py"), "content": files["fixed.py.txt"]}),
		fakeapi.Call("Bash", map[string]any{"command": "git checkout tests/test_calc.py", "description": "restore the test"}),
		fakeapi.Say("Fixed."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.useDonegate()
	s.Args = []string{"--allowedTools", "Bash", "--permission-mode", "acceptEdits"}
	res := s.run("Fix sub")
	assertEnded(t, api, res, "Fixed.", 6)
	assert.Contains(t, mainTurn(t, api, 1), "The test command `pytest` failed")
	held := mainTurn(t, api, 3)
	assert.Contains(t, held, "The test command `pytest` passes only because your change weakens the tests")
	assert.Contains(t, held, "tests/test_calc.py (test_sub): is ignored now; it ran at an earlier stop of this session (it failed then)")
}

// The agent's own tools against pytest's report, through the real Claude
// Code: held by a failing test, it puts PYTEST_ADDOPTS deselecting the
// test into .claude/settings.local.json through its shell (not a
// DONEGATE_ variable: the guard lets it pass), then writes a config that
// switches pytest's report off and deselects the test through its Write
// tool; each stop holds. The fix is let go.
func TestPytestAgentCannotDeselectItsWayOut(t *testing.T) {
	t.Parallel()
	s := newSession(t, fakeapi.New())
	files := pytestProject(t, s)
	settings := `{"env": {"PYTEST_ADDOPTS": "-k 'not sub'"}}`
	config := strings.Replace(files["pyproject.toml"], "pythonpath = [\".\"]", "pythonpath = [\".\"]\naddopts = \"-p no:junitxml -k 'not sub'\"", 1)
	require.NotEqual(t, files["pyproject.toml"], config)
	api := fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Bash", map[string]any{"command": "mkdir -p .claude && printf '%s' " + cli.ShellQuote(settings) + " > .claude/settings.local.json", "description": "narrow the tests"}),
		fakeapi.Say("Done: the tests pass."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "pyproject.toml"), "content": config}),
		fakeapi.Say("Done: the tests pass now."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "pyproject.toml"), "content": files["pyproject.toml"]}),
		fakeapi.Call("Bash", map[string]any{"command": "rm .claude/settings.local.json", "description": "undo"}),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "calc.py"), "content": files["fixed.py.txt"]}),
		fakeapi.Say("Fixed."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.useDonegate()
	s.Args = []string{"--allowedTools", "Bash", "--permission-mode", "acceptEdits"}
	res := s.run("Fix sub")
	assertEnded(t, api, res, "Fixed.", 9)
	assert.Contains(t, mainTurn(t, api, 1), "The test command `pytest` failed")
	// Each request's tail holds the holds before it too: the last one is
	// this stop's.
	last := func(i int) string {
		held := mainTurn(t, api, i)
		return held[max(0, strings.LastIndex(held, "The test command `pytest`")):]
	}
	assert.True(t, strings.HasPrefix(last(3), "The test command `pytest` failed"),
		"the settings' PYTEST_ADDOPTS does not reach this session's hooks: the test still fails; %s", last(3))
	assert.Contains(t, last(5), "tests/test_calc.py (test_sub): no longer runs", "the config's narrowing held by the report")
}

// The person's route past a hold of pytest's report, in the real Claude
// Code's interactive terminal: held by the failing test, the agent skips
// it (held: "is ignored now"); the person, who allowed the skip, types
// "donegate release" while the agent works, and the stop after it lets
// the agent go.
func TestPersonReleasesAReportHoldInTheTerminal(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "tmux")
	s := newSession(t, fakeapi.New())
	files := pytestProject(t, s)
	api := fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Bash", map[string]any{"command": "printf '%s' " + cli.ShellQuote(files["importorskip.py.txt"]) + " > tests/test_calc.py", "description": "skip test_sub"}),
		fakeapi.Say("Skipped test_sub, as you asked."),
		fakeapi.Call("Bash", map[string]any{"command": "sleep 6; echo checked", "description": "check again"}),
		fakeapi.Say("Done."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.config(`{"hold_unchanged": true, "checkers": [{"type": "test"}]}`)
	s.useDonegate()
	s.Hooks["UserPromptSubmit"] = append(s.Hooks["UserPromptSubmit"], hookEntry{Command: filepath.Join(hookBinaries(t), "stop-hook") + " --criteria"})
	s.consent()

	term := startTerminal(t, s, api)
	term.typeLine("Fix sub, or skip test_sub for now")
	// The fourth request answered the slow Bash call: it runs now.
	term.waitFor("the holds and the slow Bash call", func() bool { return len(api.Of("main")) >= 4 })
	time.Sleep(time.Second)
	term.typeLine("donegate release")
	term.waitFor("the turn's end", func() bool { return len(api.Of("main")) >= 5 && !strings.Contains(term.screen(), "esc to interrupt") })
	time.Sleep(2 * time.Second)

	assert.Contains(t, mainTurn(t, api, 1), "The test command `pytest` failed", "held by the failure first")
	assert.Contains(t, mainTurn(t, api, 3), "tests/test_calc.py (test_sub): is ignored now", "then by pytest's report; the screen:\n%s", term.screen())
	c := s.closer(time.Minute, "explain", "--last", "--json")
	var rep struct{ Why string }
	require.NoError(t, json.Unmarshal([]byte(c.Stdout), &rep), c.Stdout+c.Stderr)
	assert.Equal(t, "released by the person (the person's message): not checked", rep.Why, "the screen:\n%s", term.screen())
}
