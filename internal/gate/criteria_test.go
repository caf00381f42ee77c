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
	"github.com/donegate/donegate/internal/proc"
)

// stop-hook --criteria decides what to tell from the config alone: it
// runs no checker (the command would leave a file), writes no state, and
// says nothing to the model where the Stop hook would not check.
func TestCriteria(t *testing.T) {
	good := `{"checkers":[{"type":"test","name":"unit","command":"touch ran; go test ./..."}]}`
	const told = "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":\"This session ends when: `touch ran; go test ./...` passes. donegate checks this each time you stop and, while something is missing, keeps you working and tells you what.\"}}\n"
	tests := []struct {
		name       string
		config     string
		guard      bool
		wantKind   gate.Kind
		wantAnswer string
		wantStderr string
	}{
		{"told", good, false, gate.KindCriteria, told, ""},
		{"inside donegate's own check of the session", good, true, gate.KindGuarded, "{}\n",
			"stop-hook: running inside donegate's own check of session s; not telling the criteria\n"},
		{"a broken config", `{"checkers":[{"type":"command"}]}`, false, gate.KindConfigBroken,
			"{\"systemMessage\":\"donegate is not checking this session, its config is broken: config ",
			"stop-hook: config "},
		{"nothing runs at a stop", `{"checkers":[{"type":"test","command":"touch ran","on":["manual"]}]}`, false, gate.KindCriteria, "{}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, stateDir := t.TempDir(), filepath.Join(t.TempDir(), "state")
			cfg := filepath.Join(t.TempDir(), "donegate.json")
			require.NoError(t, os.WriteFile(cfg, []byte(tt.config), 0o644))
			vars := map[string]string{"HOME": dir}
			if tt.guard {
				vars[proc.GuardEnv] = "s"
			}
			env := gate.Env{Getenv: func(k string) string { return vars[k] }, Now: time.Now}
			event := []byte(`{"session_id":"s","transcript_path":"` + jsonText(dir) + `/s.jsonl","cwd":"` + jsonText(dir) + `","hook_event_name":"SessionStart","source":"startup"}`)
			var stderr bytes.Buffer
			opts := gate.Options{ConfigPath: cfg, StateDir: stateDir, Criteria: true}
			rep, err := gate.Evaluate(context.Background(), gate.StopHookName, opts, env, event, &stderr)
			require.NoError(t, err)
			assert.Equal(t, tt.wantKind, rep.Decision.Kind)
			assert.Contains(t, string(rep.Answer), tt.wantAnswer)
			if tt.wantStderr == "" {
				assert.Empty(t, stderr.String())
			} else {
				assert.Contains(t, stderr.String(), tt.wantStderr)
			}
			assert.False(t, rep.Verdict.Block, "never blocks")
			assert.NoFileExists(t, filepath.Join(dir, "ran"), "no checker runs")
			// Nothing written but the session's start, once, and only for
			// a config with checks of the project's state at a stop (see
			// TestSessionThatChangedNothing).
			entries, _ := os.ReadDir(stateDir)
			assert.LessOrEqual(t, len(entries), 1, "no state written but the session's record")
		})
	}
}
