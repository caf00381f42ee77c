//go:build e2e && !windows

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// The agent starts its build in the background and says it waits for
// it: that stop, whose background_tasks lists the running shell, is not
// checked (the failing test would hold the agent with a failure it is
// already waiting to see). The CLI wakes the agent when the build ends;
// the stop after that is checked, and passes.
func TestBackgroundWorkIsWaitedFor(t *testing.T) {
	t.Parallel()
	s := newSession(t, fakeapi.New())
	require.NoError(t, os.MkdirAll(filepath.Join(s.Project, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(s.Project, ".claude", "donegate.json"),
		[]byte(`{"checkers":[{"type":"test","command":"echo run >> runs.log; test -f built","cache":false}]}`), 0o644))
	api := fakeapi.New(
		fakeapi.Call("Bash", map[string]any{"command": "sleep 3; touch built", "description": "build", "run_in_background": true}),
		fakeapi.Say("The build runs in the background; I will wait for it."),
		fakeapi.Say("Done: the build finished."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.Args = []string{"--allowedTools", "Bash"}
	s.useDonegate()
	r := s.run("Build the project")
	assertEnded(t, api, r, "Done: the build finished.", 3)
	runs, err := os.ReadFile(filepath.Join(s.Project, "runs.log"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(runs), "run"), "the test ran at the stop after the build only")
	for i, req := range api.Of("main") {
		assert.NotContains(t, req.TailText(), heldBy, "request %d", i)
	}
}

// TestBackgroundWorkCannotKeepTheGateOpen: as the agent, in the real
// Claude Code's interactive terminal (tmux). It leaves a shell running in
// the background that will not end soon (sleep 300) and says it is done
// with the work still open. The terminal ends the turn while the shell
// runs, so that stop waits for it unchecked: the person is told so on
// the screen. The person asks again; the agent stops again while the same
// shell runs, and that stop is checked and holds it (before: every stop
// while the shell ran was unchecked, the gate open for the session).
func TestBackgroundWorkCannotKeepTheGateOpen(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "tmux")
	s := newSession(t, fakeapi.New())
	api := fakeapi.New(
		fakeapi.Call("Bash", map[string]any{"command": "sleep 300", "description": "keep busy", "run_in_background": true}),
		fakeapi.Say("Done: the work is complete."),
		fakeapi.Say("Done: the work is complete, I said."),
		fakeapi.Call("Bash", map[string]any{"command": "echo done > DONE.txt", "description": "write DONE.txt"}),
		fakeapi.Say("Now it is done."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.config(`{"checkers":[{"type":"files","paths":["DONE.txt"]}]}`)
	s.useDonegate()
	s.consent()

	term := startTerminal(t, s, api)
	term.typeLine("Write DONE.txt")
	term.waitFor("the first turn's end", func() bool {
		return len(api.Of("main")) >= 2 && strings.Contains(term.screen(), "donegate did not check this stop")
	})
	assert.NotContains(t, mainTurn(t, api, 1), heldBy, "the first stop waits for the shell")
	term.typeLine("Is it really done?")
	term.waitFor("the second turn's end", func() bool {
		return len(api.Of("main")) >= 5 && !strings.Contains(term.screen(), "esc to interrupt")
	})
	assert.Contains(t, mainTurn(t, api, 3), heldBy, "the stop while the same shell runs is checked; the screen:\n%s", term.screen())
	assert.Contains(t, mainTurn(t, api, 3), "DONE.txt")
	assert.NotContains(t, mainTurn(t, api, len(api.Of("main"))-1), "DONE.txt is missing")
	_, err := os.Stat(filepath.Join(s.Project, "DONE.txt"))
	require.NoError(t, err)
}
