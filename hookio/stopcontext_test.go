package hookio_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/hookio"
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
