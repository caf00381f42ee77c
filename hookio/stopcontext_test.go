package hookio_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/transcript"
)

// Claude Code 2.1.163 and later are held at a stop with additionalContext
// (the person sees "Stop hook says: R", not "Stop hook reported a
// problem"); older ones, or an unknown version, with decision block,
// which they honour and which a hookSpecificOutput would void. A
// SubagentStop answer names SubagentStop: one naming Stop is refused.
func TestStopAnswerByClaudeCodeVersion(t *testing.T) {
	for _, tt := range []struct {
		version, event, want string
	}{
		{"2.1.331", hookio.EventStop, `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"Write out.txt."},"systemMessage":"told"}`},
		{"2.1.163", hookio.EventStop, `{"hookSpecificOutput":{"hookEventName":"Stop","additionalContext":"Write out.txt."},"systemMessage":"told"}`},
		{"2.2.0", hookio.EventSubagentStop, `{"hookSpecificOutput":{"hookEventName":"SubagentStop","additionalContext":"Write out.txt."},"systemMessage":"told"}`},
		{"2.1.162", hookio.EventStop, `{"decision":"block","reason":"Write out.txt.","systemMessage":"told"}`},
		{"1.0.999", hookio.EventStop, `{"decision":"block","reason":"Write out.txt.","systemMessage":"told"}`},
		{"", hookio.EventStop, `{"decision":"block","reason":"Write out.txt.","systemMessage":"told"}`},
		{"garbage", hookio.EventSubagentStop, `{"decision":"block","reason":"Write out.txt.","systemMessage":"told"}`},
	} {
		ev := &hookio.Event{Host: hookio.HostClaude, HookEventName: tt.event, ClientVersion: tt.version}
		var b bytes.Buffer
		require.NoError(t, hookio.WriteHostAnswer(&b, ev, hookio.DialectClaudeCode, hookio.Verdict{Block: true, Reason: "Write out.txt.", SystemMessage: "told"}))
		assert.JSONEq(t, tt.want, b.String(), "%s %s", tt.version, tt.event)
	}
	// The sdk dialect and Qwen Code keep their answers.
	var b bytes.Buffer
	require.NoError(t, hookio.WriteHostAnswer(&b, &hookio.Event{Host: hookio.HostQwen, HookEventName: hookio.EventStop, ClientVersion: "2.1.331"}, hookio.DialectClaudeCode, hookio.Verdict{Block: true, Reason: "R"}))
	assert.JSONEq(t, `{"decision":"block","reason":"R"}`, b.String())
}

// The version is in a transcript that lags the event: SettleAnswer waits
// for a main agent's first lines, and reads a subagent's CLI version from
// the main transcript where the subagent's own holds none yet.
func TestSettleAnswerReadsTheVersionOfALaggingTranscript(t *testing.T) {
	const line = `{"type":"user","version":"2.1.332","message":{"role":"user","content":"Do it"}}` + "\n"
	held := hookio.Verdict{Block: true, Reason: "Write out.txt."}
	const additional = `{"hookSpecificOutput":{"hookEventName":"%s","additionalContext":"Write out.txt."}}`
	const block = `{"decision":"block","reason":"Write out.txt."}`
	wait := transcript.Wait{Max: 10 * time.Second, Quiet: 5 * time.Second}
	answer := func(ev *hookio.Event, d hookio.Dialect, v hookio.Verdict, wait transcript.Wait) string {
		hookio.SettleAnswer(context.Background(), ev, d, v, wait)
		var b bytes.Buffer
		require.NoError(t, hookio.WriteHostAnswer(&b, ev, d, v))
		return b.String()
	}
	writeLate := func(path string) <-chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(100 * time.Millisecond)
			assert.NoError(t, os.WriteFile(path, []byte(line), 0o644))
		}()
		return done
	}

	t.Run("main agent's transcript written after the event", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		done := writeLate(path)
		ev := &hookio.Event{Host: hookio.HostClaude, HookEventName: hookio.EventStop, TranscriptPath: path}
		assert.JSONEq(t, fmt.Sprintf(additional, "Stop"), answer(ev, hookio.DialectClaudeCode, held, wait))
		<-done
	})
	t.Run("no wait: read as it is", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "s.jsonl")
		ev := &hookio.Event{Host: hookio.HostClaude, HookEventName: hookio.EventStop, TranscriptPath: path}
		assert.JSONEq(t, block, answer(ev, hookio.DialectClaudeCode, held, transcript.Wait{}))
	})
	t.Run("subagent's transcript without the version", func(t *testing.T) {
		dir := t.TempDir()
		main, agent := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "agent.jsonl")
		require.NoError(t, os.WriteFile(main, []byte(line), 0o644))
		ev := &hookio.Event{Host: hookio.HostClaude, HookEventName: hookio.EventSubagentStop, TranscriptPath: main, AgentTranscriptPath: agent}
		assert.JSONEq(t, fmt.Sprintf(additional, "SubagentStop"), answer(ev, hookio.DialectClaudeCode, held, transcript.Wait{}))
	})
	t.Run("nothing read where nothing depends on it", func(t *testing.T) {
		// A pass, the sdk dialect's answer and another host's take no
		// version: the transcript, which holds one, is not read.
		path := filepath.Join(t.TempDir(), "s.jsonl")
		require.NoError(t, os.WriteFile(path, []byte(line), 0o644))
		for _, tt := range []struct {
			ev *hookio.Event
			d  hookio.Dialect
			v  hookio.Verdict
		}{
			{&hookio.Event{Host: hookio.HostClaude, HookEventName: hookio.EventStop, TranscriptPath: path}, hookio.DialectClaudeCode, hookio.Verdict{}},
			{&hookio.Event{Host: hookio.HostClaude, HookEventName: hookio.EventStop, TranscriptPath: path}, hookio.DialectSDK, held},
			{&hookio.Event{Host: hookio.HostClaude, HookEventName: hookio.EventPreToolUse, TranscriptPath: path}, hookio.DialectClaudeCode, held},
			{&hookio.Event{Host: hookio.HostQwen, HookEventName: hookio.EventStop, TranscriptPath: path}, hookio.DialectClaudeCode, held},
		} {
			hookio.SettleAnswer(context.Background(), tt.ev, tt.d, tt.v, wait)
			assert.Empty(t, tt.ev.ClientVersion, "%s %s %s", tt.ev.Host, tt.ev.HookEventName, tt.d)
		}
	})
}
