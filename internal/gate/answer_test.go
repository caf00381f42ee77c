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

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/internal/gate"
	"github.com/donegate/donegate/transcript"
)

// TestFirstHoldWaitsForTheClientVersion: Claude Code's answer form
// depends on its version, which its transcript carries and which may not
// be written yet at a session's first stop. The first hold of a count
// waits for it (additional context, as the CLI's version takes); a later
// one reads the transcript as it is, and does not wait for a file that
// may never come (a session kept on no disk).
func TestFirstHoldWaitsForTheClientVersion(t *testing.T) {
	old := checkers.TranscriptWait
	checkers.TranscriptWait = transcript.Wait{Max: time.Minute, Quiet: 30 * time.Second}
	t.Cleanup(func() { checkers.TranscriptWait = old })

	dir := t.TempDir()
	cfg := filepath.Join(t.TempDir(), "donegate.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"files","paths":["out.txt"]}]}`), 0o644))
	stateDir := t.TempDir()
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
	const line = `{"type":"user","version":"2.1.332","message":{"role":"user","content":"Do it"}}` + "\n"
	stop := func(transcriptPath string) *gate.Report {
		ev := []byte(`{"session_id":"s","cwd":"` + jsonText(dir) + `","prompt_id":"p1","hook_event_name":"Stop","transcript_path":"` + jsonText(transcriptPath) + `"}`)
		var stderr bytes.Buffer
		rep, err := gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{ConfigPath: cfg, StateDir: stateDir}, env, ev, &stderr)
		require.NoError(t, err)
		require.Equal(t, gate.KindBlocked, rep.Decision.Kind, stderr.String())
		return &rep
	}
	// writeAfter writes the transcript at path after d, unless the
	// returned cancel comes first.
	writeAfter := func(path string, d time.Duration) (cancel func()) {
		stopWriting, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			select {
			case <-time.After(d):
				assert.NoError(t, os.WriteFile(path, []byte(line), 0o644))
			case <-stopWriting:
			}
		}()
		return func() { close(stopWriting); <-done }
	}

	first := filepath.Join(t.TempDir(), "s.jsonl")
	cancel := writeAfter(first, 100*time.Millisecond)
	rep := stop(first)
	cancel()
	assert.Equal(t, 1, rep.Decision.Blocks)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"Missing required files: out.txt"}}`, string(rep.Answer))

	// The second hold, with a transcript written only later: read as it
	// is, none. A wait would have met the write.
	second := filepath.Join(t.TempDir(), "s.jsonl")
	cancel = writeAfter(second, 10*time.Second)
	rep = stop(second)
	cancel()
	assert.Equal(t, 2, rep.Decision.Blocks)
	assert.JSONEq(t, `{"decision":"block","reason":"Missing required files: out.txt"}`, string(rep.Answer))
}
