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

func TestClientVersion(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(`{"type":"user","version":"2.1.300"}
{"type":"assistant","version":"2.1.331","message":{}}
{"type":"api-request-blob"}
`), 0o644))
	assert.Equal(t, "2.1.331", transcript.ClientVersion(p), "the latest line that names one")
	assert.Equal(t, "", transcript.ClientVersion(filepath.Join(dir, "none.jsonl")))
	assert.Equal(t, "", transcript.ClientVersion(dir), "not a regular file")
}

// A transcript that lags the event: the version is waited for while the
// file holds no message, and not while it holds messages with none.
func TestAwaitClientVersion(t *testing.T) {
	const (
		queued   = `{"type":"queue-operation","operation":"enqueue","content":"Do it"}` + "\n"
		prompt   = `{"type":"user","version":"2.1.332","message":{"role":"user","content":"Do it"}}` + "\n"
		unversed = `{"type":"user","message":{"role":"user","content":"Do it"}}` + "\n"
	)
	patient := transcript.Wait{Max: 10 * time.Second, Quiet: 5 * time.Second}
	for _, tt := range []struct {
		name         string
		before, late string // the file's content at the event ("" none), and what the host appends 100 ms later
		want         string
	}{
		{"file not written yet", "", queued + prompt, "2.1.332"},
		{"only lines that are not messages", queued, prompt, "2.1.332"},
		{"already there", prompt, "", "2.1.332"},
		{"messages without a version", unversed, prompt, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "t.jsonl")
			if tt.before != "" {
				require.NoError(t, os.WriteFile(p, []byte(tt.before), 0o644))
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				time.Sleep(100 * time.Millisecond)
				f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if assert.NoError(t, err) {
					_, err = f.WriteString(tt.late)
					assert.NoError(t, err)
					assert.NoError(t, f.Close())
				}
			}()
			assert.Equal(t, tt.want, transcript.AwaitClientVersion(context.Background(), p, patient))
			<-done
		})
	}
	t.Run("never written", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "t.jsonl")
		assert.Equal(t, "", transcript.AwaitClientVersion(context.Background(), p, transcript.Wait{Max: time.Second, Quiet: 50 * time.Millisecond}))
	})
	t.Run("no transcript named", func(t *testing.T) {
		assert.Equal(t, "", transcript.AwaitClientVersion(context.Background(), "", patient))
	})
	t.Run("context ended", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.Equal(t, "", transcript.AwaitClientVersion(ctx, filepath.Join(t.TempDir(), "t.jsonl"), patient))
	})
}
