package gate_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/gate"
)

// Copilot CLI's stops carry no turn id; stop_hook_active tells the stop
// that starts a turn (false) from the ones that continue it (true). The
// count is kept per turn: a new prompt starts it over though the last
// turn was cut short, and closer explain --last, replaying the stop that
// was let go, says it was let go (it said "blocked": the count was
// dropped at the let-go, having no turn to be kept under).
func TestCopilotCountsPerTurn(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "donegate.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`), 0o644))
	stateDir := t.TempDir()
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
	stop := func(active bool) []byte {
		a := "false"
		if active {
			a = "true"
		}
		return []byte(`{"sessionId":"c1","timestamp":1795554636632,"cwd":"` + dir + `","transcriptPath":"` + dir + `/events.jsonl","stopReason":"end_turn","stop_hook_active":` + a + `}`)
	}
	for i, tt := range []struct {
		name   string
		event  []byte
		dry    bool
		kind   gate.Kind
		blocks int
	}{
		{"first stop of a prompt", stop(false), false, gate.KindBlocked, 1},
		{"continued", stop(true), false, gate.KindBlocked, 2},
		{"continued past max_blocks", stop(true), false, gate.KindLetGo, 2},
		{"explain --last replays the let-go", stop(true), true, gate.KindLetGo, 2},
		{"the next prompt starts over", stop(false), false, gate.KindBlocked, 1},
		{"continued once", stop(true), false, gate.KindBlocked, 2},
		{"a prompt after a turn cut short starts over", stop(false), false, gate.KindBlocked, 1},
	} {
		var stderr bytes.Buffer
		rep, err := gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{ConfigPath: cfg, StateDir: stateDir, DryRun: tt.dry}, env, tt.event, &stderr)
		require.NoError(t, err, tt.name)
		assert.Empty(t, stderr.String(), tt.name)
		assert.Equal(t, tt.kind, rep.Decision.Kind, "%d: %s", i, tt.name)
		assert.Equal(t, tt.blocks, rep.Decision.Blocks, "%d: %s", i, tt.name)
	}
}
