//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// TestExplainLastExplainsARealStop: after a real session, closer explain
// --last replays the session's last Stop, as the hook recorded it, and
// says why the agent was let go. Issue 20: explain needed an event
// nobody could get (claude --debug logs no hook input).
func TestExplainLastExplainsARealStop(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(fakeapi.Say("Done."), fakeapi.Say("Done!"))
	s := newSession(t, api)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":1}}`)
	s.useDonegate()
	r := s.run("Do it")
	assert.Contains(t, mainTurn(t, api, 1), heldWith+"Missing required files: never.txt")
	require.Len(t, api.Of("main"), 2, "one continuation, then the agent stops")

	c := s.closer(time.Minute, "explain", "--last", "--json")
	require.Equal(t, 0, c.Code, "the hook let the agent stop; stderr: %s", c.Stderr)
	var rep struct {
		Session, Event, Why string
		Warnings            []string
		Checkers            []struct{ Label, Feedback string }
	}
	require.NoError(t, json.Unmarshal([]byte(c.Stdout), &rep), c.Stdout)
	assert.Equal(t, r.SessionID, rep.Session)
	assert.Equal(t, "Stop", rep.Event)
	assert.Equal(t, "let through: max_blocks (1) spent (still incomplete after 1 continuation)", rep.Why)
	assert.Empty(t, rep.Warnings, "the transcript and cwd are the session's own")
	require.NotEmpty(t, rep.Checkers)
	assert.Equal(t, "Missing required files: never.txt", rep.Checkers[0].Feedback)

	c = s.closer(time.Minute, "explain", "--session", r.SessionID)
	assert.Equal(t, 0, c.Code)
	assert.Contains(t, c.Stdout, "Why: let through: max_blocks (1) spent")
}
