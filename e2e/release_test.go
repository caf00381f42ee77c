//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/fakeapi"
)

// TestReleaseLetsTheHeldTurnGo: closer release (typed as `!closer
// release` at Claude Code's prompt; here a Bash call of the agent's
// stands in for it, in the session's own environment) finds the held
// turn from the stop the hook kept in the session's record, and the
// stop after it is let go unchecked; closer explain --last says so.
func TestReleaseLetsTheHeldTurnGo(t *testing.T) {
	api := fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Bash", map[string]any{"command": closerBinary(t) + " release", "description": "release"}),
		fakeapi.Say("Done, released."),
	)
	s := newSession(t, api)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}]}`)
	s.useDonegate()
	s.Args = []string{"--allowedTools", "Bash"}
	r := s.run("Do it")
	require.Equal(t, 0, r.ExitCode, r.Stderr)
	assert.Contains(t, mainTurn(t, api, 1), heldWith+"Missing required files: never.txt")
	assert.Contains(t, mainTurn(t, api, 2), "Released turn", "closer release's output, as the tool's result")
	require.Len(t, api.Of("main"), 3, "released: the stop after the release holds nothing")

	c := s.closer(time.Minute, "explain", "--last", "--json")
	var rep struct{ Session, Why string }
	require.NoError(t, json.Unmarshal([]byte(c.Stdout), &rep), c.Stdout+c.Stderr)
	assert.Equal(t, r.SessionID, rep.Session)
	assert.Equal(t, "released by the person (closer release): not checked", rep.Why)
}
