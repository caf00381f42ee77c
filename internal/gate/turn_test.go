package gate_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
		return []byte(`{"sessionId":"c1","timestamp":1795554636632,"cwd":"` + jsonText(dir) + `","transcriptPath":"` + jsonText(dir) + `/events.jsonl","stopReason":"end_turn","stop_hook_active":` + a + `}`)
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

// A subagent that ends fires Copilot's agentStop for the subagent, then
// the parent's subagentStop; Copilot honours a block only at the second.
// The first is neither checked nor counted (it was: each subagent's end
// ran the checkers twice, and counted blocks Copilot ignored); the
// second is, under the subagent's own id.
func TestCopilotSubagentsOwnStopIsNotChecked(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "donegate.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"files","paths":["never.txt"],"on":["stop","subagent_stop"]}],"limits":{"max_blocks":2}}`), 0o644))
	stateDir := t.TempDir()
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
	tail := `"cwd":"` + jsonText(dir) + `","transcriptPath":"` + jsonText(dir) + `/events.jsonl","stopReason":"end_turn","stop_hook_active":false,"agentId":"sub-1","agentType":"general-purpose","parentAgentId":"main-1"}`
	own := []byte(`{"sessionId":"sub-1","timestamp":1795554648448,` + tail)
	sub := []byte(`{"sessionId":"main-1","timestamp":1795554648464,"agentName":"general-purpose","response":"Subagent finished.",` + tail)

	var stderr bytes.Buffer
	rep, err := gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{ConfigPath: cfg, StateDir: stateDir}, env, own, &stderr)
	require.NoError(t, err)
	assert.Equal(t, gate.KindDuplicate, rep.Decision.Kind)
	assert.Equal(t, "{}\n", string(rep.Answer))
	assert.Empty(t, rep.Checkers)
	assert.Empty(t, stderr.String())
	files, err := filepath.Glob(filepath.Join(stateDir, "*"))
	require.NoError(t, err)
	assert.Empty(t, files, "nothing recorded or counted")

	rep, err = gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{ConfigPath: cfg, StateDir: stateDir}, env, sub, &stderr)
	require.NoError(t, err)
	assert.Equal(t, gate.KindBlocked, rep.Decision.Kind)
	assert.Equal(t, 1, rep.Decision.Blocks)
	assert.Equal(t, "{\"decision\":\"block\",\"reason\":\"Missing required files: never.txt\"}\n", string(rep.Answer))
}

// The turns kept are those of gates with a count: one per subagent would
// otherwise pile up over a long session.
func TestCopilotTurnsDoNotPileUp(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "donegate.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"files","paths":["never.txt"],"on":["stop","subagent_stop"]}]}`), 0o644))
	stateDir := t.TempDir()
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
	for i := range 50 {
		ev := fmt.Sprintf(`{"sessionId":"main-1","timestamp":1,"cwd":%q,"transcriptPath":"x/events.jsonl","stopReason":"end_turn","stop_hook_active":false,"agentId":"sub-%d","agentName":"general-purpose","parentAgentId":"main-1"}`, dir, i)
		rep, err := gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{ConfigPath: cfg, StateDir: stateDir}, env, []byte(ev), io.Discard)
		require.NoError(t, err)
		require.Equal(t, gate.KindBlocked, rep.Decision.Kind)
		// The subagent finishes: its count goes.
		require.NoError(t, os.WriteFile(filepath.Join(dir, "never.txt"), nil, 0o644))
		rep, err = gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{ConfigPath: cfg, StateDir: stateDir}, env, []byte(strings.Replace(ev, `"stop_hook_active":false`, `"stop_hook_active":true`, 1)), io.Discard)
		require.NoError(t, err)
		require.Equal(t, gate.KindComplete, rep.Decision.Kind)
		require.NoError(t, os.Remove(filepath.Join(dir, "never.txt")))
	}
	files, err := filepath.Glob(filepath.Join(stateDir, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	assert.LessOrEqual(t, strings.Count(string(data), "copilot-turn-"), 1, "%s", data)
}
