package hookio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteAnswer pins every answer shape on the wire: these are what
// Claude Code (and SDK hosts) act on, so a change here is a change of
// behaviour, not of style.
func TestWriteAnswer(t *testing.T) {
	block := Verdict{Block: true, Reason: "Missing required files: a"}
	tests := []struct {
		name    string
		event   string
		dialect Dialect
		verdict Verdict
		want    string
	}{
		{"stop done", EventStop, DialectClaudeCode, Verdict{}, `{}`},
		{"stop open", EventStop, DialectClaudeCode, block, `{"decision":"block","reason":"Missing required files: a"}`},
		{"subagent stop open", EventSubagentStop, DialectClaudeCode, block, `{"decision":"block","reason":"Missing required files: a"}`},
		{"stop open, sdk", EventStop, DialectSDK, block, `{"needsMoreTurns":true,"decision":"continue","reason":"Missing required files: a"}`},
		{"stop let through at the limit", EventStop, DialectClaudeCode, Verdict{SystemMessage: "donegate: still incomplete"}, `{"systemMessage":"donegate: still incomplete"}`},
		{"pre tool use open", EventPreToolUse, DialectClaudeCode, block, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Missing required files: a"}}`},
		{"pre tool use open, sdk", EventPreToolUse, DialectSDK, block, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Missing required files: a"}}`},
		{"post tool use open", EventPostToolUse, DialectClaudeCode, block, `{"decision":"block","reason":"Missing required files: a","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"Missing required files: a"}}`},
		{"post tool use open, sdk", EventPostToolUse, DialectSDK, block, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"Missing required files: a"}}`},
		{"tool done", EventPostToolUse, DialectClaudeCode, Verdict{}, `{}`},
		{"no HTML escaping", EventStop, DialectClaudeCode, Verdict{Block: true, Reason: "a < b && c > d"}, `{"decision":"block","reason":"a < b && c > d"}`},
		{"reason cleaned", EventStop, DialectClaudeCode, Verdict{Block: true, Reason: "\x1b[31mFAIL\x1b[0m\x07 x"}, `{"decision":"block","reason":"FAIL x"}`},
		{"session start context", EventSessionStart, DialectClaudeCode, Verdict{Context: "This session ends when: `go test ./...` passes."}, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"This session ends when: ` + "`go test ./...`" + ` passes."}}`},
		{"user prompt submit context, sdk", EventUserPromptSubmit, DialectSDK, Verdict{Context: "ends when: x"}, `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ends when: x"}}`},
		{"context cleaned", EventSessionStart, DialectClaudeCode, Verdict{Context: "\x1b[1mx\x1b[0m"}, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"}}`},
		{"session start, nothing to tell", EventSessionStart, DialectClaudeCode, Verdict{}, `{}`},
		{"session start, only for the person", EventSessionStart, DialectClaudeCode, Verdict{SystemMessage: "config broken"}, `{"systemMessage":"config broken"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, WriteAnswer(&b, tt.event, tt.dialect, tt.verdict))
			assert.Equal(t, tt.want+"\n", b.String())
		})
	}
}

func TestWriteAnswerRefusesToBlockOtherEvents(t *testing.T) {
	var b bytes.Buffer
	err := WriteAnswer(&b, "UserPromptSubmit", DialectClaudeCode, Verdict{Block: true, Reason: "x"})
	require.ErrorContains(t, err, `cannot block a "UserPromptSubmit" event`)
	assert.Empty(t, b.String(), "nothing may be written when the answer is refused")
}

func TestWriteAnswerRefusesContextOnOtherEvents(t *testing.T) {
	for _, ev := range []string{EventStop, EventSubagentStop, EventPreToolUse, EventPostToolUse} {
		var b bytes.Buffer
		err := WriteAnswer(&b, ev, DialectClaudeCode, Verdict{Context: "x"})
		require.ErrorContains(t, err, `cannot give context to the model in a "`+ev+`" answer`)
		assert.Empty(t, b.String(), "nothing may be written when the answer is refused")
	}
}

func TestParseDialect(t *testing.T) {
	for _, s := range []string{"claude-code", "sdk"} {
		d, err := ParseDialect(s)
		require.NoError(t, err)
		assert.Equal(t, Dialect(s), d)
	}
	_, err := ParseDialect("SDK")
	require.EqualError(t, err, `unknown dialect "SDK" (valid: claude-code, sdk)`)
}

func TestParseEventErrors(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"empty", "  \n", "stdin is empty"},
		{"not JSON", "hello", `stdin is not valid JSON (starts "hello")`},
		{"truncated", `{"hook_event_name":"Stop"`, "stdin is not valid JSON"},
		{"array", `[{"hook_event_name":"Stop"}]`, "stdin is a JSON array, expected an object"},
		{"string", `"Stop"`, "stdin is a JSON string, expected an object"},
		{"no event name", `{"session_id":"s"}`, "field hook_event_name is missing or empty"},
		{"empty event name", `{"hook_event_name":""}`, "field hook_event_name is missing or empty"},
		{"number session", `{"hook_event_name":"Stop","session_id":7}`, "field session_id is a number, expected a string"},
		{"object cwd", `{"hook_event_name":"Stop","cwd":{}}`, "field cwd is a object, expected a string"},
		{"string flag", `{"hook_event_name":"Stop","stop_hook_active":"true"}`, "field stop_hook_active is a string, expected a boolean"},
		{"six million levels deep", `{"hook_event_name":"Stop","x":` + strings.Repeat("[", 6_000_000) + `}`, "nests arrays or objects more than 512 levels deep"},
		{"one level too deep", `{"hook_event_name":"Stop","x":` + strings.Repeat("[", MaxEventDepth) + strings.Repeat("]", MaxEventDepth) + `}`, "more than 512 levels deep"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEvent([]byte(tt.input))
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrBadEvent), "error must wrap ErrBadEvent: %v", err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestParseRecordedEvents decodes the events recorded from Claude Code.
func TestParseRecordedEvents(t *testing.T) {
	files, err := filepath.Glob("../testdata/events/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			e, err := ParseEvent(data)
			require.NoError(t, err)
			assert.NotEmpty(t, e.SessionID)
			assert.NotEmpty(t, e.TranscriptPath)
			switch e.HookEventName {
			case EventStop:
				assert.True(t, e.IsStop())
				assert.NotEmpty(t, e.PromptID)
			case EventSubagentStop:
				assert.True(t, e.IsStop())
				assert.NotEmpty(t, e.AgentID)
				assert.NotEmpty(t, e.AgentTranscriptPath)
			case EventPreToolUse, EventPostToolUse:
				assert.False(t, e.IsStop())
				assert.NotEmpty(t, e.ToolName)
				assert.NotNil(t, e.ToolInput)
			case EventSessionStart:
				assert.False(t, e.IsStop())
				assert.Empty(t, e.PromptID, "no prompt yet at session start")
			case EventUserPromptSubmit:
				assert.False(t, e.IsStop())
				assert.NotEmpty(t, e.PromptID)
			default:
				t.Fatalf("unexpected event %q", e.HookEventName)
			}
			p := Peek(data)
			assert.Equal(t, e.HookEventName, p.Event)
			assert.Equal(t, e.ToolName, p.Tool)
			assert.Equal(t, e.Cwd, p.Cwd)
		})
	}
}

func TestReadAllBound(t *testing.T) {
	data, err := ReadAll(strings.NewReader(strings.Repeat(" ", MaxEventBytes)))
	require.NoError(t, err)
	assert.Len(t, data, MaxEventBytes)
	_, err = ReadAll(strings.NewReader(strings.Repeat(" ", MaxEventBytes+1)))
	require.ErrorIs(t, err, ErrBadEvent)
	assert.Contains(t, err.Error(), "more than 16 MiB")
}

// TestReadAllDepth: ReadAll refuses input nested past MaxEventDepth, so
// that Peek, which the tool hook runs before ParseEvent, never sees it.
func TestReadAllDepth(t *testing.T) {
	nested := func(levels int) string {
		return `{"hook_event_name":"PostToolUse","tool_name":"StructuredOutput","tool_input":` +
			strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1) + `}`
	}
	tests := []struct {
		name    string
		input   string
		wantErr bool
	}{
		{"at the bound", nested(MaxEventDepth), false},
		{"one past the bound", nested(MaxEventDepth + 1), true},
		{"six million deep, unclosed", `{"hook_event_name":"Stop","x":` + strings.Repeat("[", 6_000_000), true},
		{"brackets in a string do not count", `{"hook_event_name":"Stop","x":"` + strings.Repeat("[", 10_000) + `"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := ReadAll(strings.NewReader(tt.input))
			if !tt.wantErr {
				require.NoError(t, err)
				_, err = ParseEvent(data)
				assert.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ErrBadEvent)
			assert.Contains(t, err.Error(), "more than 512 levels deep")
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

func TestCleanText(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "ok\n\tindented", "ok\n\tindented"},
		{"CSI colours", "\x1b[1;31mFAIL\x1b[0m: x", "FAIL: x"},
		{"OSC title with BEL", "\x1b]0;title\x07after", "after"},
		{"OSC hyperlink with ST", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"charset designation", "\x1b(Babc", "abc"},
		{"two-byte escape", "\x1bcreset", "reset"},
		{"escape at the end", "abc\x1b", "abc"},
		{"C0 and C1 controls", "a\x00b\x08c\u0085d\rE", "abcdE"},
		{"line separators", "a\u2028b\u2029c", "abc"},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CleanText(tt.in))
		})
	}
}
