package closer

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/decisionlog"
)

// --follow prints what the hooks append while it waits, and ends when
// interrupted.
func TestLogFollows(t *testing.T) {
	state := t.TempDir()
	e := decisionlog.Entry{Time: time.Now().UTC(), Project: "/p", Host: "claude", Session: "first", Hook: "stop-hook", Event: "Stop", Decision: "complete", Why: "complete"}
	require.NoError(t, decisionlog.Append(state, e))
	env := testEnv(map[string]string{"DONEGATE_STATE_DIR": state, "HOME": t.TempDir()}, false)
	sleeps := 0
	env.Sleep = func(ctx context.Context, d time.Duration) error {
		sleeps++
		switch sleeps {
		case 1:
			e.Session = "second"
			return decisionlog.Append(state, e)
		case 2:
			return context.Canceled // the person's ^C
		}
		t.Fatal("slept on after the interrupt")
		return nil
	}
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"log", "--follow", "--json"}, &out, &errOut, env)
	require.Equal(t, ExitComplete, code, errOut.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[0], `"session":"first"`)
	assert.Contains(t, lines[1], `"session":"second"`)
}

// TestLogSaysWhenItHasNothing: an empty log, or one no entry of which the
// filters keep, says so rather than print nothing at all; --json prints
// no line. The table's HOST column holds the longest host name, and
// closer's own entries name their command as the event.
func TestLogSaysWhenItHasNothing(t *testing.T) {
	state := t.TempDir()
	env := testEnv(map[string]string{"DONEGATE_STATE_DIR": state, "HOME": t.TempDir()}, false)
	run := func(args ...string) string {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), append([]string{"log"}, args...), &out, &errOut, env)
		require.Equal(t, ExitComplete, code, errOut.String())
		return out.String()
	}
	assert.Equal(t, "No decision is recorded in "+state+" yet: the hooks record each stop and gated tool call they answer.\n", run())
	assert.Empty(t, run("--json"))

	require.NoError(t, decisionlog.Append(state, decisionlog.Entry{Time: time.Now().UTC(), Project: "/p", Host: "opencode", Session: "s1", Hook: "stop-hook", Event: "Stop", Decision: "complete", Why: "complete"}))
	require.NoError(t, decisionlog.Append(state, decisionlog.Entry{Time: time.Now().UTC(), Project: "/p", Host: "claude", Hook: "closer release", Decision: "refused", Why: "the agent's try"}))
	assert.Equal(t, "No recorded decision matches --session, --since or --project (the log is in "+state+").\n", run("--session", "nobody"))
	lines := strings.Split(strings.TrimSpace(run()), "\n")
	require.Len(t, lines, 3)
	host := strings.Index(lines[0], "HOST")
	session := strings.Index(lines[0], "SESSION")
	assert.Equal(t, "opencode", strings.TrimSpace(lines[1][host:session]), "the host's whole name in its column")
	assert.Contains(t, lines[2], "closer release")
}
