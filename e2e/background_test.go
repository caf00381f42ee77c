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
