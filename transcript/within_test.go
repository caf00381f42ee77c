package transcript_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/transcript"
)

// A plan followed by a huge sparse region (20 GB of holes, which read as
// zeros and cost no disk) is searched no longer than the caller's
// context lasts, on every host whose plan is searched from the end of a
// transcript: before, 17.7 s (Claude Code, Gemini) and 45.8 s (Codex)
// with a 5 s budget.
func TestPlanReadersEndWithTheirContext(t *testing.T) {
	const hole = 20 << 30
	for _, tt := range []struct {
		name, line string
		read       func(ctx context.Context, path string) error
	}{
		{"claude", `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"TodoWrite","input":{"todos":[{"content":"a","status":"pending"}]}}]}}`,
			func(ctx context.Context, path string) error {
				_, _, err := transcript.LatestTodoWrite(ctx, path, transcript.ReadOptions{})
				return err
			}},
		{"gemini", `{"id":"m1","type":"gemini","toolCalls":[{"name":"write_todos","args":{"todos":[{"description":"a","status":"pending"}]}}]}`,
			func(ctx context.Context, path string) error {
				_, _, err := transcript.GeminiPlan(ctx, path)
				return err
			}},
		{"codex", `{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"a\",\"status\":\"pending\"}]}"}}`,
			func(ctx context.Context, path string) error { _, _, err := transcript.CodexPlan(ctx, path); return err }},
		{"phase texts", `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Phase: review"}]}}`,
			func(ctx context.Context, path string) error {
				_, _, err := transcript.ReadTexts(ctx, path, transcript.Position{}, transcript.ReadOptions{}, func(string) {})
				return err
			}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tt.line+"\n"), 0o644))
			if err := os.Truncate(path, hole); err != nil {
				t.Skipf("no sparse file here: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- tt.read(ctx, path) }()
			select {
			case err := <-done:
				assert.ErrorIs(t, err, context.DeadlineExceeded)
			case <-time.After(20 * time.Second):
				t.Fatal("still reading 20 s after its context ended")
			}
		})
	}
}
