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

const (
	textLine = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I am done."}]}}` + "\n"
	toolLine = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{}}]}}` + "\n"
	oldLine  = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Working on it."}]}}` + "\n"
	blobLine = `{"type":"api-request-blob","message":{"role":"assistant","content":[{"type":"text","text":"I am done."}]}}` + "\n"
)

func TestCaughtUp(t *testing.T) {
	tests := []struct {
		name    string
		content string
		last    string
		want    bool
	}{
		{"ends with the message", oldLine + textLine, "I am done.", true},
		{"a tool line after the text", textLine + toolLine, "I am done.", true},
		{"surrounding white space", textLine, "  I am done.\n", true},
		{"lags behind", oldLine, "I am done.", false},
		{"a blob copy does not count", oldLine + blobLine, "I am done.", false},
		{"no last message: nothing to wait for", oldLine, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o644))
			assert.Equal(t, tt.want, transcript.CaughtUp(context.Background(), path, tt.last, 50*time.Millisecond))
		})
	}
	assert.True(t, transcript.CaughtUp(context.Background(), filepath.Join(t.TempDir(), "missing.jsonl"), "x", time.Second),
		"no transcript: nothing to wait for")
}

func TestCaughtUpWaitsForTheWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(oldLine), 0o644))
	go func() {
		time.Sleep(100 * time.Millisecond)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			f.WriteString(textLine)
			f.Close()
		}
	}()
	assert.True(t, transcript.CaughtUp(context.Background(), path, "I am done.", 10*time.Second))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.NoError(t, os.WriteFile(path, []byte(oldLine), 0o644))
	assert.False(t, transcript.CaughtUp(ctx, path, "I am done.", 10*time.Second), "a cancelled context stops the wait")
}
