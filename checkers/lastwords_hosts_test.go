package checkers_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
)

// TestLastWordsOnEachHost: the keyword and phase checkers read the event's
// last message on every host, and read a transcript as Claude Code's only
// on Claude Code: at another host's path lies a Codex rollout or a Gemini
// chat file, and text found there by the Claude reader is not what the
// agent said. Here a Claude-shaped transcript that holds the keyword and a
// phase marker lies at a non-Claude host's transcript_path.
func TestLastWordsOnEachHost(t *testing.T) {
	claudeShaped := tempFile(t, "t.jsonl", textLine("Phase: complete\nTASK_COMPLETE"))
	for _, tc := range []struct {
		name     string
		host     hookio.Host
		msg      string
		keyword  bool
		feedback string
		phase    bool
	}{
		{name: "claude: the transcript when the event has no message", host: hookio.HostClaude, keyword: true, phase: true},
		{name: "codex: the event's message", host: hookio.HostCodex, msg: "Phase: complete\nTASK_COMPLETE", keyword: true, phase: true},
		{name: "codex: no message, and the rollout is not read as Claude's", host: hookio.HostCodex},
		{name: "gemini: prompt_response, mapped by hookio", host: hookio.HostGemini, msg: "Phase: complete. TASK_COMPLETE", keyword: true},
		{name: "gemini: no message", host: hookio.HostGemini},
		{name: "qwen: no message", host: hookio.HostQwen},
		{name: "copilot: no message", host: hookio.HostCopilot},
		{name: "cursor: no message", host: hookio.HostCursor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := hookio.Event{Host: tc.host, HookEventName: "Stop", SessionID: "s", TranscriptPath: claudeShaped, LastAssistantMessage: tc.msg}
			r, err := build(t, `{"type":"keyword"}`).Check(context.Background(), &checkers.Context{Event: &ev, Reason: checkers.ReasonStop})
			require.NoError(t, err)
			assert.Equal(t, tc.keyword, r.Complete, r.Feedback)
			if !tc.keyword && tc.msg == "" {
				assert.Contains(t, r.Feedback, "donegate found no last message of yours to read.")
			}
			r, err = build(t, `{"type":"phase"}`).Check(context.Background(), &checkers.Context{Event: &ev, Reason: checkers.ReasonStop, StateDir: t.TempDir()})
			require.NoError(t, err)
			assert.Equal(t, tc.phase, r.Complete, r.Feedback)
		})
	}
}
