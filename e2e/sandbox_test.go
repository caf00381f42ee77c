//go:build e2e && !windows

package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// TestSandboxKeepsTheAgentOut: with Claude Code's sandbox on (bubblewrap
// and socat, from Debian's packages: scripts/install-debian-tools), the agent's
// Bash cannot write donegate's state dir, its own shell snapshots, or the
// project's .claude/settings.local.json — what a determined agent could
// otherwise do with the person's rights (docs/security.md) — while the
// hooks, which run outside the sandbox, go on holding it. No guard entry
// is registered here: the sandbox alone is what is shown.
func TestSandboxKeepsTheAgentOut(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "bwrap", "socat")
	s := newSession(t, fakeapi.New())
	state := filepath.Join(s.Home, "donegate-state")
	tries := []string{
		`mkdir -p "$DONEGATE_STATE_DIR/consent" && echo '{}' > "$DONEGATE_STATE_DIR/consent/forged.json"; echo "state: $?"`,
		`for f in "$HOME"/.claude/shell-snapshots/*; do echo 'go() { :; }' >> "$f"; done; echo "snapshot: $?"`,
		`mkdir -p .claude; echo '{"env":{"DONEGATE_MODE":"off"}}' > .claude/settings.local.json; echo "settings: $?"`,
	}
	steps := []fakeapi.Turn{fakeapi.Say("Done.")}
	for _, c := range tries {
		steps = append(steps, fakeapi.Call("Bash", map[string]any{"command": c, "description": "try"}))
	}
	steps = append(steps, fakeapi.Say("Done."), fakeapi.Say("Done."))
	api := fakeapi.New(steps...)
	s.API = api
	t.Cleanup(api.Close)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	s.useDonegate()
	s.Sandbox = true
	s.Args = []string{"--allowedTools", "Bash"}
	r := s.run("Do it")
	require.Equal(t, 0, r.ExitCode, r.Stderr)
	assert.Contains(t, mainTurn(t, api, 1), heldWith+"Missing required files: never.txt")
	for i, what := range []string{"state", "snapshot", "settings"} {
		out := mainTurn(t, api, 2+i)
		assert.Contains(t, out, "Read-only file system", "%s: %s", what, out)
	}
	_, err := os.Stat(filepath.Join(state, "consent", "forged.json"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no record forged")
	_, err = os.Stat(filepath.Join(s.Project, ".claude", "settings.local.json"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no settings written")
	assert.Contains(t, mainTurn(t, api, 5), heldWith+"Missing required files: never.txt", "the hooks, outside the sandbox, still hold")
}
