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
	textLine  = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I am done."}]}}` + "\n"
	toolLine  = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"Bash","input":{}}]}}` + "\n"
	oldLine   = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Working on it."}]}}` + "\n"
	blobLine  = `{"type":"api-request-blob","message":{"role":"assistant","content":[{"type":"text","text":"I am done."}]}}` + "\n"
	userLine  = `{"type":"user","message":{"role":"user","content":"Do the work"}}` + "\n"
	blankLine = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":" \n "}]}}` + "\n"
	// As Claude Code writes it: "type" is not the first key.
	gatedCall = `{"parentUuid":"p","isSidechain":false,"message":{"id":"msg_2","role":"assistant","content":[{"type":"tool_use","id":"toolu_42","name":"StructuredOutput","input":{"name":"early"}}]},"type":"assistant","uuid":"u"}` + "\n"
	gatedBlob = `{"type":"api-request-blob","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_42","name":"StructuredOutput","input":{}}]}}` + "\n"
	gatedDone = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_42","content":"ok"}]}}` + "\n"
	otherCall = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_41","name":"StructuredOutput","input":{}}]}}` + "\n"
)

// short makes a test that expects no catch-up end quickly.
var short = transcript.Wait{Max: 50 * time.Millisecond, Quiet: 50 * time.Millisecond}

// endless is a wait that only what it waits for ends (or its context):
// a test that expects the line to come does not then depend on how soon a
// loaded machine runs the writer.
var endless = transcript.Wait{Max: time.Hour, Quiet: time.Hour}

// ends runs a wait and returns its answer, and fails the test instead of
// hanging it when the wait has not ended after a minute: the waits under
// test end in milliseconds, or else at a bound of an hour, so a minute
// tells the two apart on the most loaded machine.
func ends(t *testing.T, wait func() bool) bool {
	t.Helper()
	answer := make(chan bool, 1)
	go func() { answer <- wait() }()
	select {
	case ok := <-answer:
		return ok
	case <-time.After(time.Minute):
		t.Fatal("the wait did not end")
		return false
	}
}

func text(s string) string {
	return `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + s + `"}]}}` + "\n"
}

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
		{"an earlier text that the new one ends with", text("done."), "I am done.", false},
		{"an earlier text that ends with the new one", text("Not yet. I am done."), "I am done.", false},
		{"a white-space-only earlier text", textLine + blankLine, "All done.", false},
		{"a white-space-only last message", oldLine, " \n\t", true},
		{"a half-written last line", oldLine + textLine[:40], "I am done.", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o644))
			assert.Equal(t, tt.want, transcript.CaughtUp(context.Background(), path, tt.last, short))
		})
	}
}

func TestCaughtUpHasNothingToWaitFor(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, path string }{
		{"no transcript", filepath.Join(dir, "missing.jsonl")},
		{"not a regular file: its reader reports it", dir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Only an answer without waiting ends an endless wait.
			assert.True(t, ends(t, func() bool { return transcript.CaughtUp(context.Background(), tt.path, "x", endless) }))
			if tt.name != "no transcript" {
				// A gated call's missing transcript is waited for (see
				// TestHoldsToolUseWaitsForTheFile).
				assert.True(t, ends(t, func() bool { return transcript.HoldsToolUse(context.Background(), tt.path, "toolu_42", endless) }))
			}
		})
	}
}

func TestHoldsToolUse(t *testing.T) {
	tests := []struct {
		name    string
		content string
		id      string
		want    bool
	}{
		{"the gated call", userLine + gatedCall, "toolu_42", true},
		{"the gated call before later lines", userLine + gatedCall + gatedDone + oldLine, "toolu_42", true},
		{"lags behind", userLine + otherCall, "toolu_42", false},
		{"a blob copy does not count", userLine + gatedBlob, "toolu_42", false},
		{"a tool result alone does not count", userLine + gatedDone, "toolu_42", false},
		{"a half-written call", userLine + gatedCall[:len(gatedCall)-10], "toolu_42", false},
		{"an id that is a prefix of the call's", userLine + gatedCall, "toolu_4", false},
		{"no id: nothing to wait for", userLine, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o644))
			assert.Equal(t, tt.want, transcript.HoldsToolUse(context.Background(), path, tt.id, short))
		})
	}
}

// appendLater appends each of parts to path, the first after delay and
// each further one delay later, as Claude Code's writer does while a hook
// runs.
func appendLater(t *testing.T, path string, delay time.Duration, parts ...string) {
	t.Helper()
	done := make(chan struct{})
	t.Cleanup(func() { <-done })
	go func() {
		defer close(done)
		for _, p := range parts {
			time.Sleep(delay)
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			_, err = f.WriteString(p)
			f.Close()
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
}

// The wait sees what a writer appends while it waits, a line written in
// two pieces included. (The measured catch-up took 16-42 ms, well inside
// DefaultWait's quiet period; the waits here have no quiet period, so a
// writer held back by a loaded machine is still waited for.)
func TestWaitSeesTheWriter(t *testing.T) {
	tests := []struct {
		name   string
		before string
		parts  []string
		wait   func(path string) bool
	}{
		{
			name:   "last message",
			before: userLine + oldLine,
			parts:  []string{toolLine, textLine},
			wait: func(path string) bool {
				return transcript.CaughtUp(context.Background(), path, "I am done.", endless)
			},
		},
		{
			name:   "last message, its line written in two pieces",
			before: userLine + oldLine,
			parts:  []string{textLine[:30], textLine[30:]},
			wait: func(path string) bool {
				return transcript.CaughtUp(context.Background(), path, "I am done.", endless)
			},
		},
		{
			name:   "gated call",
			before: userLine + otherCall,
			parts:  []string{gatedBlob, gatedCall},
			wait: func(path string) bool {
				return transcript.HoldsToolUse(context.Background(), path, "toolu_42", endless)
			},
		},
		{
			name:   "gated call, its line written in two pieces",
			before: userLine,
			parts:  []string{gatedCall[:60], gatedCall[60:]},
			wait: func(path string) bool {
				return transcript.HoldsToolUse(context.Background(), path, "toolu_42", endless)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tt.before), 0o644))
			appendLater(t, path, 40*time.Millisecond, tt.parts...)
			assert.True(t, ends(t, func() bool { return tt.wait(path) }))
		})
	}
}

// A transcript replaced by a shorter file is read from its start again.
func TestWaitSeesAReplacedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	long := userLine
	for range 50 {
		long += oldLine
	}
	require.NoError(t, os.WriteFile(path, []byte(long), 0o644))
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(40 * time.Millisecond)
		tmp := filepath.Join(dir, "new.jsonl")
		if err := os.WriteFile(tmp, []byte(userLine+textLine), 0o644); err != nil {
			t.Error(err)
			return
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Error(err)
		}
	}()
	defer func() { <-done }()
	assert.True(t, ends(t, func() bool { return transcript.CaughtUp(context.Background(), path, "I am done.", endless) }))
}

// When the transcript never holds the awaited line (the recorded
// SubagentStop's last_assistant_message is not in the subagent's
// transcript), a file that has stopped changing ends the wait after the
// quiet period rather than the hard bound, here an hour.
func TestWaitGivesUpOnAQuietFile(t *testing.T) {
	w := transcript.Wait{Max: time.Hour, Quiet: 300 * time.Millisecond}
	tests := []struct {
		name string
		wait func(path string) bool
	}{
		{"last message", func(path string) bool {
			return transcript.CaughtUp(context.Background(), path, "main done", w)
		}},
		{"gated call", func(path string) bool {
			return transcript.HoldsToolUse(context.Background(), path, "toolu_42", w)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(userLine+oldLine+otherCall), 0o644))
			start := time.Now()
			assert.False(t, ends(t, func() bool { return tt.wait(path) }), "gave up before the hard bound")
			assert.GreaterOrEqual(t, time.Since(start), w.Quiet, "waited the quiet period")
		})
	}
}

// A file that keeps changing without ever holding the line is waited on
// up to the hard bound, not longer: its writer never stops, so only the
// bound ends the wait. Its quiet period is long enough (1 s against a
// line every 20 ms) that a loaded machine does not make the file look
// quiet.
func TestWaitKeepsToTheHardBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(userLine), 0o644))
	stop := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := f.WriteString(oldLine); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	defer func() { close(stop); <-stopped }()
	w := transcript.Wait{Max: 2 * time.Second, Quiet: time.Second}
	start := time.Now()
	assert.False(t, ends(t, func() bool { return transcript.CaughtUp(context.Background(), path, "I am done.", w) }), "the hard bound holds")
	assert.GreaterOrEqual(t, time.Since(start), w.Max, "a growing file is waited on past the quiet period")
}

func TestWaitEndsWithTheContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(oldLine), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.False(t, ends(t, func() bool { return transcript.CaughtUp(ctx, path, "I am done.", endless) }), "a cancelled context stops the wait")
	assert.False(t, ends(t, func() bool { return transcript.HoldsToolUse(ctx, path, "toolu_42", endless) }), "a cancelled context stops the wait")
}

// A transcript that does not exist yet when the hook starts is waited
// for at a gated call as a lagging one: the real CLI creates it late
// under load, and a plan read from no file let an early StructuredOutput
// through (9 of 25 loaded runs). One that never appears ends the wait
// after the quiet period.
func TestHoldsToolUseWaitsForTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(150 * time.Millisecond)
		// Created, then written: as the CLI's writer does.
		f, err := os.Create(path)
		if err != nil {
			t.Error(err)
			return
		}
		time.Sleep(50 * time.Millisecond)
		_, err = f.WriteString(userLine + gatedCall)
		f.Close()
		if err != nil {
			t.Error(err)
		}
	}()
	w := transcript.Wait{Max: time.Minute, Quiet: 10 * time.Second}
	assert.True(t, transcript.HoldsToolUse(context.Background(), path, "toolu_42", w))
	assert.FileExists(t, path, "it answered before the transcript existed")
	<-done

	missing := filepath.Join(t.TempDir(), "never.jsonl")
	start := time.Now()
	assert.False(t, transcript.HoldsToolUse(context.Background(), missing, "toolu_42", transcript.Wait{Max: time.Minute, Quiet: 100 * time.Millisecond}))
	assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond, "a missing file is waited for, within the quiet period")
}
