//go:build e2e && !windows

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// The real Cline CLI (scripts/install-cline: cline 3.0.65 from the npm
// registry) offline against the chat completions stand-in: an
// openai-compatible provider (cline auth) in a throwaway HOME, and
// donegate's Cline hook as closer init --host cline writes it. Its runs
// are `cline --yolo`, whose agent ends a run with submit_and_exit.

type clineSession struct {
	t       *testing.T
	API     *fakeapi.Chat
	Home    string
	Project string
	PATH    string
	Events  string // what the hook handed stop-hook and posttooluse-hook
}

// newClineSession runs closer init --host cline in a fresh Go project
// whose test fails, as a person would, with config as its donegate
// config ("" for none), and points the Cline hook at recorders of the
// events it hands the hooks.
func newClineSession(t *testing.T, config string, turns ...fakeapi.Turn) (*clineSession, []string) {
	t.Helper()
	s := &clineSession{t: t, Home: t.TempDir(), Project: t.TempDir(), Events: filepath.Join(t.TempDir(), "events")}
	s.API = fakeapi.NewChat(turns...)
	t.Cleanup(s.API.Close)
	env := goProject(t, s.Project, s.Home)
	if config != "" {
		require.NoError(t, os.WriteFile(filepath.Join(s.Project, ".donegate.json"), []byte(config), 0o644))
	}
	s.PATH = closerInit(t, "cline", s.Project, s.Home)
	rec := recorder(t, s.Events)
	hooks := t.TempDir()
	for _, h := range []string{"stop-hook", "posttooluse-hook"} {
		require.NoError(t, os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\nexec "+rec+" "+filepath.Join(hookBinaries(t), h)+"\n"), 0o755))
	}
	s.PATH = hooks + string(os.PathListSeparator) + s.PATH
	r := runClient(t, time.Minute, s.Project, s.env(nil), clientPath(t, "DONEGATE_CLINE", "install-cline"),
		"auth", "-p", "openai-compatible", "-k", "fake-key-for-tests", "-m", "fake-model", "-b", s.API.URL())
	require.Equal(t, 0, r.ExitCode, "cline auth\nstdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	return s, env
}

func (s *clineSession) env(env []string) []string {
	return append([]string{"HOME=" + s.Home, "PATH=" + s.PATH, "DONEGATE_STATE_DIR=" + filepath.Join(s.Home, ".local", "state", "donegate")}, env...)
}

func (s *clineSession) run(env []string, prompt string) clientRun {
	s.t.Helper()
	bin := clientPath(s.t, "DONEGATE_CLINE", "install-cline")
	return runClient(s.t, 3*time.Minute, s.Project, s.env(env), bin, "--yolo", "--json", prompt)
}

func (s *clineSession) told(i int) string {
	s.t.Helper()
	reqs := s.API.Of("main")
	require.Greater(s.t, len(reqs), i, "main requests")
	return fakeapi.ChatTail(reqs[i].Body)
}

// toolCalls are the recorded events of calls of tool.
func (s *clineSession) toolCalls(tool string) []clientEvent {
	var out []clientEvent
	for _, e := range clientEvents(s.t, s.Events) {
		if call, _ := e.Fields["tool_call"].(map[string]any); call["name"] == tool {
			out = append(out, e)
		}
	}
	return out
}

// submit is a call of Cline's final tool.
func submit(summary string) fakeapi.Turn {
	return fakeapi.Call("submit_and_exit", map[string]any{"summary": summary, "verified": true})
}

// runCommands is a call of Cline's shell tool.
func runCommands(commands ...string) fakeapi.Turn {
	return fakeapi.Call("run_commands", map[string]any{"commands": commands})
}

// finished reports whether the --json run ended with the run completed.
func finished(stdout string) bool {
	return strings.Contains(stdout, `"type":"run_result","finishReason":"completed"`)
}

// (a) After closer init --host cline, the project's failing test (the
// default config detects go test from go.mod) refuses the agent's
// submit_and_exit until it is fixed; the events are Cline's own
// (recorded in testdata/events/cline/).
func TestClineAfterCloserInitHoldsUntilFixed(t *testing.T) {
	t.Parallel()
	s, env := newClineSession(t, "",
		submit("Done: Add is correct."),
		runCommands("printf '%s' '"+fixedCalc+"' > calc.go"),
		submit("Fixed: Add adds."),
	)
	data, err := os.ReadFile(filepath.Join(s.Project, ".clinerules", "hooks", "PreToolUse.cjs"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "donegate for Cline")
	r := s.run(env, "Make Add correct")
	t.Logf("stdout: %s\nstderr: %s", r.Stdout, r.Stderr)

	assert.Equal(t, 0, r.ExitCode)
	assert.Contains(t, s.told(1), "donegate refused this submit_and_exit")
	assert.Contains(t, s.told(1), goTestFailure)
	assert.Contains(t, s.told(1), "Add(2, 3) = -1, want 5")
	assert.True(t, finished(r.Stdout), "the run completed once the test passed")
	assert.Len(t, s.API.Of("main"), 3)
	calc, err := os.ReadFile(filepath.Join(s.Project, "calc.go"))
	require.NoError(t, err)
	assert.Equal(t, fixedCalc, string(calc))

	submits := s.toolCalls("submit_and_exit")
	require.Len(t, submits, 2)
	p := []string{s.Home, "$HOME", s.Project, "/home/user/project", `"hint": "` + filepath.Base(s.Project) + `"`, `"hint": "project"`}
	checkFixtures(t, "cline", clientEvents(t, s.Events), []fixture{
		{"pretooluse-submit_and_exit.json", func([]clientEvent) (clientEvent, bool) { return submits[0], true }},
		{"pretooluse-run_commands.json", func([]clientEvent) (clientEvent, bool) {
			calls := s.toolCalls("run_commands")
			if len(calls) == 0 {
				return clientEvent{}, false
			}
			return calls[0], true
		}},
	}, p...)
}

// (b) An agent that never finishes is let go after limits.max_blocks:
// Cline has no cap of its own on a refused submission, though it ends a
// run after three failed calls in a row (its "consecutive mistakes"),
// which here a cap of 2 stays below.
func TestClineNeverFinishingAgentIsLetGoAfterMaxBlocks(t *testing.T) {
	t.Parallel()
	var turns []fakeapi.Turn
	for i := 0; i < 6; i++ {
		turns = append(turns, submit("Done, really done now."))
	}
	s, env := newClineSession(t, `{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`, turns...)
	r := s.run(env, "Do it")
	t.Logf("stdout: %s\nstderr: %s", r.Stdout, r.Stderr)

	for i := 1; i <= 2; i++ {
		assert.Contains(t, s.told(i), "Missing required files: never.txt", "continuation %d", i)
	}
	assert.Len(t, s.API.Of("main"), 3, "two holds, then let go")
	assert.True(t, finished(r.Stdout), "let go: the run completed")
	assert.False(t, s.API.Exhausted())
}

// (c) Before Cline's run_commands and editor calls run, the hook asks
// posttooluse-hook, and Cline refuses what it denies: closer release,
// and a write of donegate's hook (or of another hook beside it).
func TestClineGuardRefusesTheAgentsCalls(t *testing.T) {
	t.Parallel()
	hook := ".clinerules/hooks/PreToolUse.cjs"
	s, env := newClineSession(t, `{"checkers":[{"type":"files","paths":["go.mod"]}]}`)
	s.API = fakeapi.NewChat(
		runCommands(closerBinary(t)+" release"),
		fakeapi.Call("editor", map[string]any{"command": "create", "path": filepath.Join(s.Project, ".clinerules", "hooks", "PostToolUse"), "file_text": "#!/bin/sh\necho '{}'\n"}),
		runCommands("echo ok > ran.txt"),
		submit("Done: nothing else to do."),
	)
	t.Cleanup(s.API.Close)
	r := runClient(t, time.Minute, s.Project, s.env(nil), clientPath(t, "DONEGATE_CLINE", "install-cline"),
		"auth", "-p", "openai-compatible", "-k", "fake-key-for-tests", "-m", "fake-model", "-b", s.API.URL())
	require.Equal(t, 0, r.ExitCode, "cline auth: %s %s", r.Stdout, r.Stderr)
	r = s.run(env, "Do it")
	t.Logf("stdout: %s\nstderr: %s", r.Stdout, r.Stderr)

	assert.Contains(t, s.told(1), "donegate refused this run_commands call (its input was dropped, and nothing ran)")
	assert.Contains(t, s.told(1), "`closer release` is the person's command, not yours")
	assert.Contains(t, s.told(2), "donegate refused this editor call")
	assert.NoFileExists(t, filepath.Join(s.Project, ".clinerules", "hooks", "PostToolUse"), "the write was refused")
	assert.FileExists(t, filepath.Join(s.Project, "ran.txt"), "an ordinary command runs")
	assert.FileExists(t, filepath.Join(s.Project, filepath.FromSlash(hook)))
	assert.True(t, finished(r.Stdout), "let go: nothing is open")
}
