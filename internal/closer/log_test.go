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
