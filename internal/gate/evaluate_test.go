package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/gate"
)

// A dry run decides as a real one, from the same count, and leaves the
// count as it was; only Explain records the checkers' outcomes.
func TestEvaluateDryRun(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "donegate.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"files","paths":["a"]},{"type":"files","paths":["."]}],"limits":{"max_blocks":3}}`), 0o644))
	stateDir := t.TempDir()
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
	event := []byte(`{"session_id":"s","cwd":"` + jsonText(dir) + `","prompt_id":"p","hook_event_name":"Stop"}`)
	state := func() []string {
		files, err := filepath.Glob(filepath.Join(stateDir, "*.json"))
		require.NoError(t, err)
		var out []string
		for _, f := range files {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			out = append(out, string(data))
		}
		return out
	}

	tests := []struct {
		name          string
		opts          gate.Options
		wantBlocks    int
		wantCheckers  int
		wantWritten   bool
		wantKind      gate.Kind
		wantReported  []bool
		wantRunByHook []bool
	}{
		{"a hook's run", gate.Options{}, 1, 0, true, gate.KindBlocked, nil, nil},
		{"dry", gate.Options{DryRun: true}, 2, 0, false, gate.KindBlocked, nil, nil},
		{"dry, explained", gate.Options{DryRun: true, Explain: true}, 2, 2, false, gate.KindBlocked, []bool{true, false}, []bool{true, false}},
		{"a hook's run again", gate.Options{}, 2, 0, true, gate.KindBlocked, nil, nil},
		{"dry, at the limit", gate.Options{DryRun: true}, 3, 0, false, gate.KindBlocked, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.ConfigPath, tt.opts.StateDir = cfg, stateDir
			before := state()
			var stderr bytes.Buffer
			rep, err := gate.Evaluate(context.Background(), gate.StopHookName, tt.opts, env, event, &stderr)
			require.NoError(t, err)
			assert.Empty(t, stderr.String())
			assert.Equal(t, tt.wantKind, rep.Decision.Kind)
			assert.Equal(t, tt.wantBlocks, rep.Decision.Blocks)
			assert.Equal(t, 3, rep.Decision.MaxBlocks)
			assert.Equal(t, "{\"decision\":\"block\",\"reason\":\"Missing required files: a\"}\n", string(rep.Answer))
			assert.Len(t, rep.Checkers, tt.wantCheckers)
			for i, o := range rep.Checkers {
				assert.Equal(t, tt.wantReported[i], o.Reported, "checker %d reported", i)
				assert.Equal(t, tt.wantRunByHook[i], o.ByHook, "checker %d run by the hook", i)
				assert.Equal(t, !tt.wantReported[i], o.Complete, "checker %d complete", i)
			}
			if tt.wantWritten {
				assert.NotEqual(t, before, state())
			} else {
				assert.Equal(t, before, state())
			}
		})
	}
}

func TestHookFor(t *testing.T) {
	for _, tt := range []struct{ event, want string }{
		{"Stop", gate.StopHookName},
		{"SubagentStop", gate.StopHookName},
		{"PreToolUse", gate.ToolHookName},
		{"PostToolUse", gate.ToolHookName},
		{"SessionStart", gate.StopHookName},
		{"UserPromptSubmit", gate.StopHookName},
		{"Notification", ""},
		{"", ""},
	} {
		t.Run(tt.event, func(t *testing.T) {
			assert.Equal(t, tt.want, gate.HookFor(tt.event))
			// stop-hook answers these only with --criteria.
			assert.Equal(t, tt.event == "SessionStart" || tt.event == "UserPromptSubmit", gate.CriteriaEvent(tt.event))
		})
	}
}

// completion_signal: a gated call whose output declares no completion
// passes at once, unchecked and uncounted; one that declares it, a call
// under a config without the key, and a Stop are checked as ever.
func TestCompletionSignal(t *testing.T) {
	dir := t.TempDir()
	signal := `"completion_signal":[{"path":"status","equals":"completed"},{"path":"next_action.action","matches":"^(complete|closing)$"}],`
	tool := func(input string) string {
		return `{"session_id":"s","cwd":"` + jsonText(dir) + `","prompt_id":"p","hook_event_name":"PreToolUse","tool_name":"StructuredOutput","tool_input":` + input + `}`
	}
	tests := []struct {
		name, config, hook, event string
		want                      gate.Kind
	}{
		{"blocked", signal, gate.ToolHookName, tool(`{"status":"blocked"}`), gate.KindNotDeclared},
		{"no input", signal, gate.ToolHookName, tool(`{}`), gate.KindNotDeclared},
		{"completed", signal, gate.ToolHookName, tool(`{"status":"completed"}`), gate.KindBlocked},
		{"closing", signal, gate.ToolHookName, tool(`{"status":"in_progress","next_action":{"action":"closing"}}`), gate.KindBlocked},
		{"completed, but in an array", signal, gate.ToolHookName, tool(`{"status":["completed"]}`), gate.KindNotDeclared},
		{"no signal configured", "", gate.ToolHookName, tool(`{"status":"blocked"}`), gate.KindBlocked},
		{"at Stop", signal, gate.StopHookName, `{"session_id":"s","cwd":"` + jsonText(dir) + `","prompt_id":"p","hook_event_name":"Stop"}`, gate.KindBlocked},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := filepath.Join(t.TempDir(), "donegate.json")
			require.NoError(t, os.WriteFile(cfg, []byte(`{`+tt.config+`"checkers":[{"type":"files","paths":["a"]}]}`), 0o644))
			stateDir := t.TempDir()
			env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
			var stderr bytes.Buffer
			rep, err := gate.Evaluate(context.Background(), tt.hook, gate.Options{ConfigPath: cfg, StateDir: stateDir, Explain: true}, env, []byte(tt.event), &stderr)
			require.NoError(t, err)
			assert.Equal(t, tt.want, rep.Decision.Kind)
			files, _ := filepath.Glob(filepath.Join(stateDir, "*.json"))
			if tt.want == gate.KindNotDeclared {
				assert.Equal(t, "{}\n", string(rep.Answer))
				assert.Empty(t, rep.Checkers, "no checker ran")
				assert.Empty(t, files, "nothing counted")
				assert.Equal(t, "`status` equals \"completed\" or `next_action.action` matches \"^(complete|closing)$\"", rep.Decision.Why)
			} else {
				assert.Len(t, rep.Checkers, 1)
				assert.NotEmpty(t, files, "the block is counted")
			}
		})
	}
}

// jsonText is s as it is written inside a JSON string: a Windows path's
// backslashes escaped.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
