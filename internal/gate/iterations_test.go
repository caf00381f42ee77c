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
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/internal/testsupport/linktest"
)

// TestIterationsSeesTheGatesCount: the iterations checker is given the
// count of continuations before the chain runs, of its own gate (the main
// agent's stop, one subagent's) and prompt; a dry run reads it too and
// writes nothing.
func TestIterationsSeesTheGatesCount(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "donegate.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"iterations","min":2,"on":["stop","subagent_stop"]}],"limits":{"max_blocks":4}}`), 0o644))
	stateDir := t.TempDir()
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
	stop := func(prompt string) []byte {
		return []byte(`{"session_id":"s","cwd":"` + jsonText(dir) + `","prompt_id":"` + prompt + `","hook_event_name":"Stop"}`)
	}
	sub := []byte(`{"session_id":"s","cwd":"` + jsonText(dir) + `","prompt_id":"p1","hook_event_name":"SubagentStop","agent_id":"a1"}`)

	tests := []struct {
		name   string
		event  []byte
		dry    bool
		kind   gate.Kind
		blocks int    // the gate's count after the run
		left   string // what the agent is told
	}{
		{"first stop", stop("p1"), false, gate.KindBlocked, 1, "and 2 are left"},
		{"a subagent counts apart", sub, false, gate.KindBlocked, 1, "and 2 are left"},
		{"second stop", stop("p1"), false, gate.KindBlocked, 2, "and 1 is left"},
		{"a dry run sees the count", stop("p1"), true, gate.KindComplete, 0, ""},
		{"another prompt starts from 0", stop("p2"), false, gate.KindBlocked, 1, "and 2 are left"},
		{"back to the first prompt: its count was replaced", stop("p1"), false, gate.KindBlocked, 1, "and 2 are left"},
		{"continued once", stop("p1"), false, gate.KindBlocked, 2, "and 1 is left"},
		{"continued twice: done", stop("p1"), false, gate.KindComplete, 0, ""},
		{"the count was cleared with the work done", stop("p1"), false, gate.KindBlocked, 1, "and 2 are left"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			rep, err := gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{ConfigPath: cfg, StateDir: stateDir, DryRun: tt.dry}, env, tt.event, &stderr)
			require.NoError(t, err)
			assert.Empty(t, stderr.String())
			assert.Equal(t, tt.kind, rep.Decision.Kind)
			assert.Equal(t, tt.blocks, rep.Decision.Blocks)
			if tt.left != "" {
				assert.Contains(t, string(rep.Answer), tt.left)
			}
			if tt.dry {
				// The work is done, which a hook would record by clearing
				// the count: a dry run leaves it.
				s, err := state.Store{Dir: stateDir}.Peek("s")
				require.NoError(t, err)
				assert.Equal(t, 2, s.Counters["stop"].Blocks)
			}
		})
	}
}

// TestContinuedCountIsReadOnlyWhenAsked: a chain without an iterations
// checker does not read the count before it runs: a state file that
// cannot be read is met only by decide, as before.
func TestContinuedCountIsReadOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "donegate.json")
	stateDir := t.TempDir()
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
	event := []byte(`{"session_id":"s","cwd":"` + jsonText(dir) + `","prompt_id":"p1","hook_event_name":"Stop"}`)
	// A state file that is a link: reading it is an error.
	linktest.Symlink(t, filepath.Join(dir, "elsewhere"), filepath.Join(stateDir, state.FileName("s")))

	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"files","paths":["."]}]}`), 0o644))
	rep, err := gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{ConfigPath: cfg, StateDir: stateDir}, env, event, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, gate.KindComplete, rep.Decision.Kind, "the chain never asked for the count")

	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"iterations","min":1}]}`), 0o644))
	rep, err = gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{ConfigPath: cfg, StateDir: stateDir}, env, event, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Equal(t, gate.KindCheckFailed, rep.Decision.Kind)
	assert.ErrorContains(t, rep.Decision.Err, "iterations: block count: state file")
}
