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

// The real Factory Droid (scripts/install-droid: the native droid 0.225.2
// from the npm registry) offline against the chat completions stand-in:
// a custom model of its own key (BYOK: customModels in the throwaway
// HOME's ~/.factory/settings.json, generic-chat-completion-api), no
// login, and donegate's hooks as closer init --host droid registers them.

type droidSession struct {
	t       *testing.T
	API     *fakeapi.Chat
	Home    string
	Project string
	PATH    string
}

// newDroidSession runs closer init --host droid in a fresh Go project
// whose test fails, as a person would.
func newDroidSession(t *testing.T, config string, turns ...fakeapi.Turn) (*droidSession, []string) {
	t.Helper()
	s := &droidSession{t: t, Home: t.TempDir(), Project: t.TempDir()}
	s.API = fakeapi.NewChat(turns...)
	t.Cleanup(s.API.Close)
	env := goProject(t, s.Project, s.Home)
	if config != "" {
		require.NoError(t, os.WriteFile(filepath.Join(s.Project, ".donegate.json"), []byte(config), 0o644))
	}
	s.PATH = closerInit(t, "droid", s.Project, s.Home)
	writeJSON(t, filepath.Join(s.Home, ".factory", "settings.json"), map[string]any{"customModels": []any{map[string]any{
		"model": "fake-model", "displayName": "Fake", "baseUrl": s.API.URL(), "apiKey": "fake-key-for-tests",
		"provider": "generic-chat-completion-api", "maxOutputTokens": 4096,
	}}})
	return s, env
}

func (s *droidSession) run(env []string, prompt string) clientRun {
	s.t.Helper()
	bin := clientPath(s.t, "DONEGATE_DROID", "install-droid")
	env = append([]string{"HOME=" + s.Home, "PATH=" + s.PATH, "DONEGATE_STATE_DIR=" + filepath.Join(s.Home, ".local", "state", "donegate")}, env...)
	return runClient(s.t, 3*time.Minute, s.Project, env, bin, "exec", "--auto", "low", "-m", "fake-model", prompt)
}

func (s *droidSession) told(i int) string {
	s.t.Helper()
	reqs := s.API.Of("main")
	require.Greater(s.t, len(reqs), i, "main requests")
	return fakeapi.ChatTail(reqs[i].Body)
}

// execute is a call of Droid's shell tool.
func execute(command string) fakeapi.Turn {
	return fakeapi.Call("Execute", map[string]any{"summary": "Run the command", "command": command, "riskLevel": "low", "riskLevelReason": "a local file"})
}

// (a) After closer init --host droid, the project's failing test (the
// default config detects go test from go.mod) holds the agent until it
// is fixed; the stops are Droid's own (recorded in testdata/events/droid/).
func TestDroidAfterCloserInitHoldsUntilFixed(t *testing.T) {
	t.Parallel()
	s, env := newDroidSession(t, "",
		fakeapi.Say("Done."),
		execute("printf '%s' '"+fixedCalc+"' > calc.go"),
		fakeapi.Say("Fixed: Add adds."),
	)
	events := filepath.Join(t.TempDir(), "events")
	// The recorder between Droid and the hooks it runs, as registered.
	rec := recorder(t, events)
	settings := filepath.Join(s.Project, ".factory", "settings.json")
	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	hooks := filepath.Join(t.TempDir(), "bin")
	require.NoError(t, os.MkdirAll(hooks, 0o755))
	for _, h := range []string{"stop-hook", "posttooluse-hook"} {
		require.NoError(t, os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\nexec "+rec+" "+filepath.Join(hookBinaries(t), h)+"\n"), 0o755))
	}
	s.PATH = hooks + string(os.PathListSeparator) + s.PATH
	assert.Contains(t, string(data), `"command": "stop-hook"`)
	r := s.run(env, "Make Add correct")
	t.Logf("stdout: %s\nstderr: %s", r.Stdout, r.Stderr)

	assert.Equal(t, 0, r.ExitCode)
	assert.Contains(t, s.told(1), goTestFailure)
	assert.Contains(t, s.told(1), "Add(2, 3) = -1, want 5")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(r.Stdout), "Fixed: Add adds."), r.Stdout)
	assert.Len(t, s.API.Of("main"), 3)
	calc, err := os.ReadFile(filepath.Join(s.Project, "calc.go"))
	require.NoError(t, err)
	assert.Equal(t, fixedCalc, string(calc))

	recorded := clientEvents(t, events)
	stops := ofEvent(recorded, "Stop")
	require.Len(t, stops, 2)
	p := []string{s.Home, "$HOME", s.Project, "/home/user/project",
		"-" + strings.ReplaceAll(strings.TrimPrefix(s.Project, "/"), "/", "-"), "-home-user-project",
		stops[0].str("session_id"), "1902bc9d-eb55-452d-95e8-b16e2cdfc19c"}
	checkFixtures(t, "droid", recorded, []fixture{
		{"stop.json", nthEvent("Stop", 0, "stop_hook_active", false)},
		{"stop-continued.json", nthEvent("Stop", 0, "stop_hook_active", true)},
		{"pretooluse-execute.json", nthEvent("PreToolUse", 0, "tool_name", "Execute")},
	}, p...)
}

// (b) An agent that never finishes is let go after limits.max_blocks:
// Droid has no cap of its own.
func TestDroidNeverFinishingAgentIsLetGoAfterMaxBlocks(t *testing.T) {
	t.Parallel()
	var turns []fakeapi.Turn
	for i := 0; i < 12; i++ {
		turns = append(turns, fakeapi.Say("Done."))
	}
	s, env := newDroidSession(t, `{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":3}}`, turns...)
	r := s.run(env, "Do it")
	t.Logf("stdout: %s\nstderr: %s", r.Stdout, r.Stderr)

	for i := 1; i <= 3; i++ {
		assert.Contains(t, s.told(i), "Missing required files: never.txt", "continuation %d", i)
	}
	assert.Len(t, s.API.Of("main"), 4, "three holds, then let go")
	assert.False(t, s.API.Exhausted())
}

// (c) Droid asks posttooluse-hook before Execute, Create and Edit run, and
// refuses what it denies: closer release, and a Create of its settings.
func TestDroidGuardRefusesTheAgentsCalls(t *testing.T) {
	t.Parallel()
	s, env := newDroidSession(t, `{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":1}}`)
	settings := filepath.Join(s.Project, ".factory", "settings.json")
	s.API = fakeapi.NewChat(
		execute(closerBinary(t)+" release"),
		fakeapi.Call("Create", map[string]any{"file_path": settings, "content": "{}\n"}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
	)
	t.Cleanup(s.API.Close)
	writeJSON(t, filepath.Join(s.Home, ".factory", "settings.json"), map[string]any{"customModels": []any{map[string]any{
		"model": "fake-model", "displayName": "Fake", "baseUrl": s.API.URL(), "apiKey": "fake-key-for-tests",
		"provider": "generic-chat-completion-api", "maxOutputTokens": 4096,
	}}})
	r := s.run(env, "Do it")
	t.Logf("stdout: %s\nstderr: %s", r.Stdout, r.Stderr)

	assert.Contains(t, s.told(1), "donegate refuses this call: `closer release` is the person's command, not yours")
	assert.Contains(t, s.told(2), "This call changes the project's host settings ("+settings+")")
	data, err := os.ReadFile(settings)
	require.NoError(t, err)
	assert.Contains(t, string(data), "stop-hook", "the Create was refused")
	assert.Contains(t, s.told(3), "Missing required files: never.txt", "still held after the tries")
}
