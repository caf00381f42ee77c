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
	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// The agent writes a file, runs the suite itself through Bash (it
// passes), and says it is done; the config opts in ("reuse_agent_runs"). Claude Code tells posttooluse-hook, at
// PostToolUse of Bash, that the run exited 0 (it sends PostToolUse for a
// Bash call only then): the pass stands for the test checker's run on
// that tree, and the stop does not run the suite again. Without the
// PostToolUse registration of Bash (an install from before closer init
// wrote it), the stop runs it a second time.
func TestAgentsOwnPassingRunIsNotRepeated(t *testing.T) {
	t.Parallel()
	for _, registered := range []bool{true, false} {
		name := "not registered at Bash: the stop runs it again"
		if registered {
			name = "registered at Bash: the stop reuses the agent's run"
		}
		t.Run(name, func(t *testing.T) {
			runs := filepath.Join(t.TempDir(), "runs.log")
			command := "echo run >> " + runs + " && test -f done.txt"
			s, api := agentRunSession(t, command)
			s.useDonegate() // as settings.example.json: at PostToolUse of Bash too
			if !registered {
				for i, e := range s.Hooks["PostToolUse"] {
					if e.Matcher == "StructuredOutput|Bash" {
						s.Hooks["PostToolUse"][i].Matcher = "StructuredOutput"
					}
				}
			}
			s.Args = []string{"--allowedTools", "Bash", "--permission-mode", "acceptEdits"}
			r := s.run("Write done.txt and run the tests")
			assertEnded(t, api, r, "Done: the tests pass.", 3)

			data, err := os.ReadFile(runs)
			require.NoError(t, err)
			n := strings.Count(string(data), "run\n")
			explain := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, "DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state")},
				closerBinary(t), "log", "--json")
			if registered {
				assert.Equal(t, 1, n, "the agent's run only")
				assert.Contains(t, explain.Stdout, `"reused":true`, "the stop reused the agent's run")
			} else {
				assert.Equal(t, 2, n, "the agent's run and the stop's")
			}
		})
	}
}

// Qwen Code (0.24.4) sends PostToolUse for a run_shell_command that
// exited 0, PostToolUseFailure otherwise: closer init --host qwen
// registers posttooluse-hook there, and the agent's own passing run of
// the suite stands for the stop's. Without that entry the stop runs the
// suite a second time.
func TestQwenAgentsOwnPassingRunIsNotRepeated(t *testing.T) {
	t.Parallel()
	for _, registered := range []bool{true, false} {
		name := "not registered at PostToolUse: the stop runs it again"
		if registered {
			name = "registered by closer init: the stop reuses the agent's run"
		}
		t.Run(name, func(t *testing.T) {
			runs := filepath.Join(t.TempDir(), "runs.log")
			command := "echo run >> " + runs + " && test -f done.txt"
			s := newQwenSession(t)
			require.NoError(t, os.RemoveAll(filepath.Join(s.Project, ".qwen")))
			gitInit(t, s.Project)
			s.useAPI(fakeapi.NewChat(
				fakeapi.Call("run_shell_command", map[string]any{"command": "echo done > done.txt", "is_background": false}),
				fakeapi.Call("run_shell_command", map[string]any{"command": command, "is_background": false}),
				fakeapi.Say("Done: the tests pass."),
			))
			path := closerInit(t, "qwen", s.Project, s.Home)
			s.config(`{"hold_unchanged": true, "reuse_agent_runs": true, "checkers": [{"type": "test", "command": "` + command + `"}]}`)
			settings := filepath.Join(s.Project, ".qwen", "settings.json")
			data, err := os.ReadFile(settings)
			require.NoError(t, err)
			require.Equal(t, "run_shell_command", gjson.GetBytes(data, "hooks.PostToolUse.0.matcher").Str, "%s", data)
			if !registered {
				out, err := sjsonDelete(data, "hooks.PostToolUse")
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(settings, out, 0o644))
			}
			s.Env = append(s.Env, "PATH="+path)
			r := s.run("Write done.txt and run the tests")
			s.assertEnded(r, "Done: the tests pass.", 3)

			data, err = os.ReadFile(runs)
			require.NoError(t, err)
			n := strings.Count(string(data), "run\n")
			if registered {
				assert.Equal(t, 1, n, "the agent's run only")
			} else {
				assert.Equal(t, 2, n, "the agent's run and the stop's")
			}
		})
	}
}

// sjsonDelete removes the key at path (a dotted gjson path of object
// keys) from the JSON object data.
func sjsonDelete(data []byte, path string) ([]byte, error) {
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	keys := strings.Split(path, ".")
	m := v
	for _, k := range keys[:len(keys)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			return data, nil
		}
		m = next
	}
	delete(m, keys[len(keys)-1])
	return json.Marshal(v)
}

// agentRunSession is the scenario of both tests: a git project whose test
// checker runs command, and an agent that writes done.txt, runs command
// through Bash, and says it is done.
func agentRunSession(t *testing.T, command string) (*session, *fakeapi.Server) {
	t.Helper()
	s := newSession(t, fakeapi.New())
	api := fakeapi.New(
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "done.txt"), "content": "done\n"}),
		fakeapi.Call("Bash", map[string]any{"command": command, "description": "run the tests"}),
		fakeapi.Say("Done: the tests pass."),
	)
	s.API = api
	t.Cleanup(api.Close)
	gitInit(t, s.Project)
	s.config(`{"hold_unchanged": true, "reuse_agent_runs": true, "checkers": [{"type": "test", "command": "` + command + `"}]}`)
	return s, api
}

// The same, with the hooks as closer init writes them in the project's
// .claude/settings.json (bare names, found on PATH), which the real CLI
// reads itself: no entry of the harness's. Its one PostToolUse group for
// posttooluse-hook, "StructuredOutput|Bash", brings the agent's passing
// run to the hook, and the stop does not run the suite again.
func TestCloserInitsSettingsReuseTheAgentsRun(t *testing.T) {
	t.Parallel()
	runs := filepath.Join(t.TempDir(), "runs.log")
	// Who ran it: donegate runs a check with DONEGATE_CHECKING_SESSION set
	// (its recursion guard), the agent's Bash without.
	command := "echo run${DONEGATE_CHECKING_SESSION:+-by-donegate} >> " + runs + " && test -f done.txt"
	s, api := agentRunSession(t, command)
	path := "PATH=" + hookBinaries(t) + string(os.PathListSeparator) + os.Getenv("PATH")
	state := "DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state")
	init := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, state, path}, closerBinary(t), "init", "--dir", s.Project)
	require.Equal(t, 0, init.ExitCode, "closer init: %s", init.Stderr)
	settings, err := os.ReadFile(filepath.Join(s.Project, ".claude", "settings.json"))
	require.NoError(t, err)
	require.Equal(t, "StructuredOutput|Bash", gjson.GetBytes(settings, `hooks.PostToolUse.#(hooks.0.command=="posttooluse-hook").matcher`).Str, "%s", settings)
	require.Empty(t, s.Hooks, "the CLI reads init's file, not the harness's entries")
	s.Env = []string{path}
	s.Args = []string{"--allowedTools", "Bash", "--permission-mode", "acceptEdits"}
	r := s.run("Write done.txt and run the tests")
	assertEnded(t, api, r, "Done: the tests pass.", 3)

	data, err := os.ReadFile(runs)
	require.NoError(t, err)
	// init registers the early start too: after the Write it may run the
	// check once for that tree, in the background; the agent runs it once;
	// the stop runs nothing and reuses a run.
	assert.Equal(t, 1, strings.Count(string(data), "run\n"), "the agent's run: %q", data)
	assert.LessOrEqual(t, strings.Count(string(data), "run-by-donegate\n"), 1, "at most the early start's run: %q", data)
	log := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, state}, closerBinary(t), "log", "--json")
	assert.Contains(t, log.Stdout, `"reused":true`, "the stop reused a run")
}

// TestForgedRunIsNotReused: the shell-snapshot forgery, on the real
// Claude Code. The agent appends a go() function to its shell snapshot
// (sourced by every later Bash call), so that go test ./... prints a pass,
// runs it, and says it is done. The default config does not reuse the
// agent's own runs: the stop runs go test itself, and TestAdd's failure
// holds the agent.
func TestForgedRunIsNotReused(t *testing.T) {
	t.Parallel()
	s := newSession(t, fakeapi.New())
	s.Env = goProject(t, s.Project, s.Home)
	gitInit(t, s.Project)
	forge := `for f in "$HOME"/.claude/shell-snapshots/*; do echo 'go() { echo "ok  	example.com/calc	0.001s"; }' >> "$f"; done`
	api := fakeapi.New(
		fakeapi.Call("Bash", map[string]any{"command": "true", "description": "start"}),
		fakeapi.Call("Bash", map[string]any{"command": forge, "description": "forge"}),
		fakeapi.Call("Bash", map[string]any{"command": "go test ./...", "description": "tests"}),
		fakeapi.Say("Done: the tests pass."),
		fakeapi.Say("Done."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.consent()
	s.useDonegate()
	s.Args = []string{"--allowedTools", "Bash"}
	r := s.run("Make Add correct")
	require.Equal(t, 0, r.ExitCode, r.Stderr)
	assert.Contains(t, mainTurn(t, api, 3), "ok  \texample.com/calc\t0.001s", "the forged pass, as the agent saw it")
	fb := mainTurn(t, api, 4)
	assert.Contains(t, fb, heldWith+goTestFailure, "the stop ran go test itself")
	assert.Contains(t, fb, "Add(2, 3) = -1, want 5")
}
