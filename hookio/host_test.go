package hookio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDetectHost: every recorded event is told to come from the host that
// sent it, Claude Code's included, and the environment only settles what
// the fields leave open.
func TestDetectHost(t *testing.T) {
	claude, err := filepath.Glob("../testdata/events/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, claude)
	for _, f := range claude {
		t.Run("claude/"+filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			assert.Equal(t, HostClaude, DetectHost(data, nil))
			// A user's shell may export CODEX_HOME or a Gemini session
			// while Claude Code runs: a Claude Code event stays one.
			env := map[string]string{"CODEX_HOME": "/home/user/.codex", "GEMINI_SESSION_ID": "other"}
			assert.Equal(t, HostClaude, DetectHost(data, func(k string) string { return env[k] }))
		})
	}
	for _, h := range Hosts[1:] {
		files, err := filepath.Glob("../testdata/events/" + string(h) + "/*.json")
		require.NoError(t, err)
		require.NotEmpty(t, files, "no recorded events of %s", h)
		for _, f := range files {
			t.Run(string(h)+"/"+filepath.Base(f), func(t *testing.T) {
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				assert.Equal(t, h, DetectHost(data, nil))
			})
		}
	}

	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		name   string
		event  string
		getenv func(string) string
		want   Host
	}{
		{"not JSON", `hello`, nil, HostClaude},
		{"no event name, no camelCase session", `{"session_id":"s"}`, nil, HostClaude},
		{"a number for an event name stays Claude's error", `{"hook_event_name":7,"session_id":"s"}`, nil, HostClaude},
		{"Codex: turn_id and model", `{"hook_event_name":"Stop","turn_id":"t","model":"m"}`, nil, HostCodex},
		{"turn_id alone is not enough", `{"hook_event_name":"Stop","turn_id":"t"}`, nil, HostClaude},
		{"Codex session start under CODEX_HOME", `{"hook_event_name":"SessionStart","model":"m","transcript_path":"/c/sessions/x.jsonl"}`, env("CODEX_HOME", "/c"), HostCodex},
		{"CODEX_HOME alone decides nothing", `{"hook_event_name":"SessionStart","model":"claude-sonnet-4-5","transcript_path":"/home/u/.claude/projects/p/s.jsonl"}`, env("CODEX_HOME", "/home/u/.codex"), HostClaude},
		{"Gemini session start named in the environment", `{"hook_event_name":"SessionStart","session_id":"g1","transcript_path":"/x/chat.jsonl"}`, env("GEMINI_SESSION_ID", "g1"), HostGemini},
		{"another session's GEMINI_SESSION_ID", `{"hook_event_name":"SessionStart","session_id":"c1","transcript_path":"/x/c1.jsonl"}`, env("GEMINI_SESSION_ID", "g1"), HostClaude},
		{"Qwen stop by its extra fields", `{"hook_event_name":"Stop","context_limit":1,"context_usage":0.5}`, nil, HostQwen},
		{"Cursor payload with Claude's name", `{"hook_event_name":"Stop","conversation_id":"c","generation_id":"g"}`, nil, HostCursor},
		{"VS Code: camelCase session and event name", `{"sessionId":"s","hookEventName":"PreToolUse","tool_name":"run_in_terminal"}`, nil, HostVSCode},
		{"camelCase session alone is Copilot CLI's", `{"sessionId":"s","toolName":"bash"}`, nil, HostCopilot},
		{"OpenCode plugin's stop", `{"hook_event_name":"Stop","opencode_version":"1.18.33","session_id":"ses_1"}`, nil, HostOpenCode},
		{"opencode_version beats every other marker", `{"hook_event_name":"Stop","opencode_version":"x","conversation_id":"c","sessionId":"s"}`, nil, HostOpenCode},
		{"hookEventName with Claude's hook_event_name stays Claude's", `{"session_id":"s","hook_event_name":"Stop","hookEventName":"Stop"}`, nil, HostClaude},
		{"the first of duplicate event names", `{"hook_event_name":"Stop","hook_event_name":"AfterAgent"}`, nil, HostClaude},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DetectHost([]byte(tt.event), tt.getenv))
		})
	}
}

// TestParseHostEvents: each host's recorded events normalised (Cursor's
// written from its docs).
func TestParseHostEvents(t *testing.T) {
	const (
		codexSession    = "01a2b3c4-0000-7000-8000-000000000001"
		codexTurn       = "01a2b3c4-0000-7000-8000-0000000000aa"
		qwenSession     = "7c1d0e2a-3b4c-4d5e-8f60-718293a4b5c6"
		qwenPrompt      = qwenSession + "########0"
		geminiSession   = "0a55bc06-f3fc-4a5b-b868-02df83cf3833"
		copilotSession  = "8844a4db-2d36-4780-8a7f-47470dbe9f37"
		copilotAgent    = "f283ce72-675b-4a59-a39b-b31d6532f8ef"
		cursorSession   = "c0ffee00-1111-4222-8333-444455556666"
		vscodeSession   = "a1b2c3d4-vscode-session"
		vscodeProject   = "/work/proj"
		openCodeSession = "ses_5f1e2d3c4b5aFakeSessionId01"
		openCodePrompt  = "msg_a0b1c2d3e001FakePromptId0001"
		project         = "/home/user/project"
	)
	tests := []struct {
		file      string
		want      Event
		turnStart bool
	}{
		{"codex/stop.json", Event{Host: HostCodex, HookEventName: EventStop, WireEventName: "Stop",
			SessionID: codexSession, TurnID: codexTurn, PromptID: codexTurn,
			Model: "fake-model", Cwd: project, PermissionMode: "bypassPermissions", LastAssistantMessage: "Done."}, false},
		{"codex/stop-continued.json", Event{Host: HostCodex, HookEventName: EventStop, WireEventName: "Stop",
			SessionID: codexSession, TurnID: codexTurn, PromptID: codexTurn,
			Model: "fake-model", Cwd: project, PermissionMode: "bypassPermissions", StopHookActive: true, LastAssistantMessage: "Fixed: Add adds."}, false},
		{"codex/sessionstart.json", Event{Host: HostCodex, HookEventName: EventSessionStart, WireEventName: "SessionStart",
			SessionID: codexSession, Model: "fake-model", Cwd: project, PermissionMode: "bypassPermissions"}, false},
		{"codex/userpromptsubmit.json", Event{Host: HostCodex, HookEventName: EventUserPromptSubmit, WireEventName: "UserPromptSubmit",
			SessionID: codexSession, TurnID: codexTurn, PromptID: codexTurn, Model: "fake-model", Cwd: project, PermissionMode: "bypassPermissions", Prompt: "Make Add correct"}, false},
		{"qwen/stop.json", Event{Host: HostQwen, HookEventName: EventStop, WireEventName: "Stop",
			SessionID: qwenSession, PromptID: qwenPrompt, Cwd: project, PermissionMode: "yolo", LastAssistantMessage: "Done."}, false},
		{"qwen/stop-continued.json", Event{Host: HostQwen, HookEventName: EventStop, WireEventName: "Stop",
			SessionID: qwenSession, PromptID: qwenPrompt, Cwd: project, PermissionMode: "yolo", StopHookActive: true, LastAssistantMessage: "Fixed: Add adds."}, false},
		{"qwen/sessionstart.json", Event{Host: HostQwen, HookEventName: EventSessionStart, WireEventName: "SessionStart",
			SessionID: qwenSession, Cwd: project, PermissionMode: "yolo"}, false},
		{"gemini/afteragent-first.json", Event{Host: HostGemini, HookEventName: EventStop, WireEventName: "AfterAgent",
			SessionID: geminiSession, Cwd: project, Prompt: "Write DONE.txt", LastAssistantMessage: "First answer, turn over."}, false},
		{"gemini/afteragent-after-deny-and-tool.json", Event{Host: HostGemini, HookEventName: EventStop, WireEventName: "AfterAgent",
			SessionID: geminiSession, Cwd: project, Prompt: "Write DONE.txt", LastAssistantMessage: "First answer, turn over.\nSecond answer.\nRan a tool."}, false},
		{"gemini/beforeagent-prompt.json", Event{Host: HostGemini, HookEventName: EventUserPromptSubmit, WireEventName: "BeforeAgent",
			SessionID: geminiSession, Cwd: project, Prompt: "Write DONE.txt"}, false},
		{"gemini/sessionstart-startup.json", Event{Host: HostGemini, HookEventName: EventSessionStart, WireEventName: "SessionStart",
			SessionID: geminiSession, Cwd: project}, false},
		{"copilot/agentstop-first.json", Event{Host: HostCopilot, HookEventName: EventStop, WireEventName: "agentStop",
			SessionID: copilotSession, Cwd: project}, true},
		{"copilot/agentstop-after-block.json", Event{Host: HostCopilot, HookEventName: EventStop, WireEventName: "agentStop",
			SessionID: copilotSession, Cwd: project, StopHookActive: true}, false},
		{"copilot/subagentstop-first.json", Event{Host: HostCopilot, HookEventName: EventSubagentStop, WireEventName: "subagentStop",
			SessionID: copilotSession, Cwd: project, AgentID: copilotAgent, AgentType: "general-purpose", ParentAgentID: copilotSession, LastAssistantMessage: "Subagent finished."}, true},
		{"copilot/subagent-agentstop.json", Event{Host: HostCopilot, HookEventName: EventSubagentStop, WireEventName: "agentStop",
			SessionID: copilotAgent, Cwd: project, AgentID: copilotAgent, AgentType: "general-purpose", ParentAgentID: copilotSession}, true},
		{"copilot/sessionstart-new.json", Event{Host: HostCopilot, HookEventName: EventSessionStart, WireEventName: "sessionStart",
			SessionID: copilotSession, Cwd: project}, false},
		{"copilot/userpromptsubmitted.json", Event{Host: HostCopilot, HookEventName: EventUserPromptSubmit, WireEventName: "userPromptSubmitted",
			SessionID: copilotSession, Cwd: project, Prompt: "Do the work"}, false},
		{"cursor/stop.json", Event{Host: HostCursor, HookEventName: EventStop, WireEventName: "stop",
			SessionID: cursorSession, GenerationID: "9e1f2a3b-aaaa-4bbb-8ccc-ddddeeeeffff", Model: "claude-sonnet-4.5", Cwd: project}, true},
		{"cursor/stop-followup.json", Event{Host: HostCursor, HookEventName: EventStop, WireEventName: "stop",
			SessionID: cursorSession, GenerationID: "0a1b2c3d-aaaa-4bbb-8ccc-ddddeeeeffff", Model: "claude-sonnet-4.5", Cwd: project, LoopCount: 1}, false},
		{"cursor/beforesubmitprompt.json", Event{Host: HostCursor, HookEventName: EventUserPromptSubmit, WireEventName: "beforeSubmitPrompt",
			SessionID: cursorSession, GenerationID: "9e1f2a3b-aaaa-4bbb-8ccc-ddddeeeeffff", Model: "claude-sonnet-4.5", Cwd: project, Prompt: "Write DONE.txt"}, false},
		{"cursor/beforeshellexecution.json", Event{Host: HostCursor, HookEventName: EventPreToolUse, WireEventName: "beforeShellExecution",
			SessionID: cursorSession, GenerationID: "9e1f2a3b-aaaa-4bbb-8ccc-ddddeeeeffff", Model: "claude-sonnet-4.5", Cwd: project, ToolName: "beforeShellExecution"}, false},
		// VS Code: from its docs, not recorded (testdata/events/vscode/README.md).
		{"vscode/stop.json", Event{Host: HostVSCode, HookEventName: EventStop, WireEventName: "Stop", SessionID: vscodeSession, Cwd: vscodeProject}, false},
		{"vscode/stop-continued.json", Event{Host: HostVSCode, HookEventName: EventStop, WireEventName: "Stop", SessionID: vscodeSession, Cwd: vscodeProject, StopHookActive: true}, false},
		{"vscode/subagentstop.json", Event{Host: HostVSCode, HookEventName: EventSubagentStop, WireEventName: "SubagentStop", SessionID: vscodeSession, Cwd: vscodeProject,
			AgentID: "subagent-456", AgentType: "Plan"}, false},
		{"vscode/pretooluse.json", Event{Host: HostVSCode, HookEventName: EventPreToolUse, WireEventName: "PreToolUse", SessionID: vscodeSession, Cwd: vscodeProject,
			ToolName: "replace_string_in_file", ToolUseID: "tool-123"}, false},
		{"vscode/posttooluse.json", Event{Host: HostVSCode, HookEventName: EventPostToolUse, WireEventName: "PostToolUse", SessionID: vscodeSession, Cwd: vscodeProject,
			ToolName: "run_in_terminal", ToolUseID: "tool-124"}, false},
		{"vscode/sessionstart.json", Event{Host: HostVSCode, HookEventName: EventSessionStart, WireEventName: "SessionStart", SessionID: vscodeSession, Cwd: vscodeProject}, false},
		{"vscode/userpromptsubmit.json", Event{Host: HostVSCode, HookEventName: EventUserPromptSubmit, WireEventName: "UserPromptSubmit", SessionID: vscodeSession, Cwd: vscodeProject,
			Prompt: "Make Add correct"}, false},
		{"opencode/run-stop.json", Event{Host: HostOpenCode, HookEventName: EventStop, WireEventName: "Stop", SessionID: openCodeSession, Cwd: project,
			PromptID: openCodePrompt, ClientVersion: "1.18.33", LastAssistantMessage: "I am done.",
			Todos: []Todo{{"Write the tests", "completed"}, {"Implement the feature", "in_progress"}}}, false},
		{"opencode/run-stop-continued.json", Event{Host: HostOpenCode, HookEventName: EventStop, WireEventName: "Stop", SessionID: openCodeSession, Cwd: project,
			PromptID: openCodePrompt, ClientVersion: "1.18.33", LastAssistantMessage: "Now all done.", StopHookActive: true,
			Todos: []Todo{{"Write the tests", "completed"}, {"Implement the feature", "completed"}}}, false},
		{"opencode/serve-stop.json", Event{Host: HostOpenCode, HookEventName: EventStop, WireEventName: "Stop", SessionID: openCodeSession, Cwd: project,
			PromptID: openCodePrompt, ClientVersion: "1.18.33", LastAssistantMessage: "I am done.",
			Todos: []Todo{{"Write the tests", "completed"}, {"Implement the feature", "in_progress"}}}, false},
		{"opencode/serve-stop-continued.json", Event{Host: HostOpenCode, HookEventName: EventStop, WireEventName: "Stop", SessionID: openCodeSession, Cwd: project,
			PromptID: openCodePrompt, ClientVersion: "1.18.33", LastAssistantMessage: "Now all done.", StopHookActive: true,
			Todos: []Todo{{"Write the tests", "completed"}, {"Implement the feature", "completed"}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile("../testdata/events/" + tt.file)
			require.NoError(t, err)
			got, err := ParseEvent(data)
			require.NoError(t, err)
			assert.Equal(t, tt.turnStart, got.TurnStart())
			got.TranscriptPath, got.ToolInput, got.ToolResponse = "", nil, nil
			assert.Equal(t, tt.want, *got)
			p := Peek(data)
			assert.Equal(t, got.HookEventName, p.Event)
			assert.Equal(t, got.Cwd, p.Cwd)
		})
	}
}

// A Cursor stop the person aborted, or that failed, is not to be checked:
// a follow-up would start the agent again.
func TestCursorStatus(t *testing.T) {
	for status, unchecked := range map[string]bool{"completed": false, "": false, "aborted": true, "error": true} {
		ev, err := Parse([]byte(`{"conversation_id":"c","hook_event_name":"stop","status":"`+status+`"}`), HostCursor)
		require.NoError(t, err)
		assert.Equal(t, unchecked, ev.Unchecked != "", "status %q: %s", status, ev.Unchecked)
	}
	ev, err := Parse([]byte(`{"conversation_id":"c","hook_event_name":"sessionStart","status":"aborted"}`), HostCursor)
	require.NoError(t, err)
	assert.Empty(t, ev.Unchecked, "only stops are let be")
}

func TestParseHostEventsTranscripts(t *testing.T) {
	for file, want := range map[string]string{
		"gemini/afteragent-first.json": "/home/user/.gemini/tmp/project/chats/session-2026-11-24T21-11-0a55bc06.jsonl",
		"copilot/agentstop-first.json": "$COPILOT_HOME/session-state/8844a4db-2d36-4780-8a7f-47470dbe9f37/events.jsonl",
		"cursor/stop.json":             "$HOME/.cursor/projects/home-user-project/agent-transcripts/c0ffee00-1111-4222-8333-444455556666.txt",
		"copilot/pretooluse.json":      "",
		"codex/stop.json":              "$HOME/.codex/sessions/2026/11/24/rollout-2026-11-24T21-19-16-01a2b3c4-0000-7000-8000-000000000001.jsonl",
	} {
		data, err := os.ReadFile("../testdata/events/" + file)
		require.NoError(t, err)
		e, err := ParseEvent(data)
		require.NoError(t, err, file)
		assert.Equal(t, want, e.TranscriptPath, file)
	}
	data, err := os.ReadFile("../testdata/events/copilot/pretooluse.json")
	require.NoError(t, err)
	e, err := ParseEvent(data)
	require.NoError(t, err)
	assert.Equal(t, EventPreToolUse, e.HookEventName)
	assert.Equal(t, "bash", e.ToolName)
	assert.JSONEq(t, `{"command":"ls"}`, string(e.ToolInput), "Copilot's toolArgs is a JSON string")
}

func TestParseHostEventErrors(t *testing.T) {
	tests := []struct {
		name  string
		host  Host
		input string
		want  string
	}{
		{"empty, Gemini", HostGemini, " ", "stdin is empty; expected one JSON object from Gemini CLI"},
		{"Gemini without a name", HostGemini, `{"session_id":"s"}`, "field hook_event_name is missing or empty"},
		{"Gemini response not a string", HostGemini, `{"hook_event_name":"AfterAgent","prompt_response":1}`, "field prompt_response is a number, expected a string"},
		{"Copilot session not a string", HostCopilot, `{"sessionId":1,"stopReason":"end_turn"}`, "field sessionId is a number, expected a string"},
		{"Copilot flag not a boolean", HostCopilot, `{"sessionId":"s","stop_hook_active":"no"}`, "field stop_hook_active is a string, expected a boolean"},
		{"Copilot event that tells nothing", HostCopilot, `{"sessionId":"s","cwd":"/p"}`, "cannot tell which event it is"},
		{"Cursor roots not an array", HostCursor, `{"hook_event_name":"stop","workspace_roots":"/p"}`, "field workspace_roots is a string, expected an array of strings"},
		{"Cursor root not a string", HostCursor, `{"hook_event_name":"stop","workspace_roots":[1]}`, "field workspace_roots[0] is a number, expected a string"},
		{"Cursor loop count negative", HostCursor, `{"hook_event_name":"stop","loop_count":-1}`, "field loop_count is -1, expected a whole number of 0 or more"},
		{"Cursor loop count a string", HostCursor, `{"hook_event_name":"stop","loop_count":"1"}`, "field loop_count is \"1\""},
		{"Codex turn not a string", HostCodex, `{"hook_event_name":"Stop","turn_id":1,"model":"m"}`, "field turn_id is a number, expected a string"},
		{"OpenCode event other than a stop or a tool call", HostOpenCode, `{"hook_event_name":"PostToolUse","opencode_version":"1"}`, `the OpenCode plugin sends Stop and PreToolUse events only, not "PostToolUse"`},
		{"OpenCode tool call whose tool is no string", HostOpenCode, `{"hook_event_name":"PreToolUse","opencode_version":"1","tool_name":3}`, `tool_name`},
		{"OpenCode todos not an array", HostOpenCode, `{"hook_event_name":"Stop","todos":{"content":"a"}}`, "field todos is a JSON object, expected an array"},
		{"OpenCode todo not an object", HostOpenCode, `{"hook_event_name":"Stop","todos":["a"]}`, "an item of todos is a JSON string, expected an object"},
		{"OpenCode todo status not a string", HostOpenCode, `{"hook_event_name":"Stop","todos":[{"content":"a","status":1}]}`, "field status is a number, expected a string"},
		{"OpenCode turn not a string", HostOpenCode, `{"hook_event_name":"Stop","prompt_id":7}`, "field prompt_id is a number, expected a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.input), tt.host)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrBadEvent), "error must wrap ErrBadEvent: %v", err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestWriteHostAnswer pins every host's answer shapes on the wire.
func TestWriteHostAnswer(t *testing.T) {
	block := Verdict{Block: true, Reason: "Missing required files: a"}
	letGo := Verdict{SystemMessage: "donegate: still incomplete"}
	ctx := Verdict{Context: "ends when: x"}
	ev := func(h Host, name, wire string) *Event {
		return &Event{Host: h, HookEventName: name, WireEventName: wire}
	}
	tests := []struct {
		name    string
		event   *Event
		verdict Verdict
		want    string
	}{
		{"codex stop open", ev(HostCodex, EventStop, "Stop"), block, `{"decision":"block","reason":"Missing required files: a"}`},
		{"codex stop done", ev(HostCodex, EventStop, "Stop"), Verdict{}, `{}`},
		{"codex reason never empty", ev(HostCodex, EventStop, "Stop"), Verdict{Block: true, Reason: "\x1b[0m"}, `{"decision":"block","reason":"` + defaultReason + `"}`},
		{"codex session start context", ev(HostCodex, EventSessionStart, "SessionStart"), ctx, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ends when: x"}}`},
		{"qwen stop open", ev(HostQwen, EventStop, "Stop"), block, `{"decision":"block","reason":"Missing required files: a"}`},
		{"gemini stop open", ev(HostGemini, EventStop, "AfterAgent"), block, `{"decision":"deny","reason":"Missing required files: a"}`},
		{"gemini stop done", ev(HostGemini, EventStop, "AfterAgent"), Verdict{}, `{}`},
		{"gemini let go", ev(HostGemini, EventStop, "AfterAgent"), letGo, `{"systemMessage":"donegate: still incomplete"}`},
		{"gemini before agent context", ev(HostGemini, EventUserPromptSubmit, "BeforeAgent"), ctx, `{"hookSpecificOutput":{"hookEventName":"BeforeAgent","additionalContext":"ends when: x"}}`},
		{"gemini session start context", ev(HostGemini, EventSessionStart, "SessionStart"), ctx, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ends when: x"}}`},
		{"gemini before tool open", ev(HostGemini, EventPreToolUse, "BeforeTool"), block, `{"decision":"deny","reason":"Missing required files: a"}`},
		{"copilot stop open", ev(HostCopilot, EventStop, "agentStop"), block, `{"decision":"block","reason":"Missing required files: a"}`},
		{"copilot subagent stop open", ev(HostCopilot, EventSubagentStop, "subagentStop"), block, `{"decision":"block","reason":"Missing required files: a"}`},
		{"copilot let go", ev(HostCopilot, EventStop, "agentStop"), letGo, `{}`},
		{"copilot pre tool use open", ev(HostCopilot, EventPreToolUse, "preToolUse"), block, `{"permissionDecision":"deny","permissionDecisionReason":"Missing required files: a"}`},
		{"cursor stop open", ev(HostCursor, EventStop, "stop"), block, `{"followup_message":"Missing required files: a"}`},
		{"cursor stop done", ev(HostCursor, EventStop, "stop"), Verdict{}, `{}`},
		{"cursor's shell guard denies", ev(HostCursor, EventPreToolUse, "beforeShellExecution"), Verdict{Block: true, Reason: "no"}, `{"permission":"deny","user_message":"no","agent_message":"no"}`},
		{"cursor's shell guard asks", ev(HostCursor, EventPreToolUse, "beforeShellExecution"), Verdict{Block: true, Ask: true, Reason: "sure?"}, `{"permission":"ask","user_message":"sure?","agent_message":"sure?"}`},
		{"cursor's shell guard lets it run", ev(HostCursor, EventPreToolUse, "beforeShellExecution"), Verdict{}, `{}`},
		{"cursor let go", ev(HostCursor, EventStop, "stop"), letGo, `{}`},
		{"cursor session start context", ev(HostCursor, EventSessionStart, "sessionStart"), ctx, `{"additional_context":"ends when: x"}`},
		{"cursor reason cleaned", ev(HostCursor, EventStop, "stop"), Verdict{Block: true, Reason: "\x1b[31mFAIL\x1b[0m a < b"}, `{"followup_message":"FAIL a < b"}`},
		{"vscode stop open", ev(HostVSCode, EventStop, "Stop"), block, `{"hookSpecificOutput":{"hookEventName":"Stop","decision":"block","reason":"Missing required files: a"}}`},
		{"vscode stop done", ev(HostVSCode, EventStop, "Stop"), Verdict{}, `{}`},
		{"vscode let go", ev(HostVSCode, EventStop, "Stop"), letGo, `{"systemMessage":"donegate: still incomplete"}`},
		{"vscode subagent stop open", ev(HostVSCode, EventSubagentStop, "SubagentStop"), block, `{"decision":"block","reason":"Missing required files: a"}`},
		{"vscode pre tool use open", ev(HostVSCode, EventPreToolUse, "PreToolUse"), block, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"Missing required files: a"}}`},
		{"vscode tool not gated", ev(HostVSCode, EventPostToolUse, "PostToolUse"), Verdict{}, `{}`},
		{"vscode session start context", ev(HostVSCode, EventSessionStart, "SessionStart"), ctx, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"ends when: x"}}`},
		{"opencode stop open", ev(HostOpenCode, EventStop, "Stop"), block, `{"decision":"block","reason":"Missing required files: a"}`},
		{"opencode stop done", ev(HostOpenCode, EventStop, "Stop"), Verdict{}, `{}`},
		{"opencode let go", ev(HostOpenCode, EventStop, "Stop"), letGo, `{"systemMessage":"donegate: still incomplete"}`},
		{"opencode reason never empty", ev(HostOpenCode, EventStop, "Stop"), Verdict{Block: true, Reason: "\x1b[0m"}, `{"decision":"block","reason":"` + defaultReason + `"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, d := range []Dialect{DialectClaudeCode, DialectSDK} {
				var b bytes.Buffer
				require.NoError(t, WriteHostAnswer(&b, tt.event, d, tt.verdict))
				assert.Equal(t, tt.want+"\n", b.String(), "dialect %s", d)
			}
		})
	}
}

func TestWriteHostAnswerRefuses(t *testing.T) {
	tests := []struct {
		name    string
		event   *Event
		verdict Verdict
		want    string
	}{
		{"copilot criteria at session start", &Event{Host: HostCopilot, HookEventName: EventSessionStart, WireEventName: "sessionStart"}, Verdict{Context: "x"},
			"Copilot CLI ignores what a sessionStart hook answers, so it cannot tell the agent the criteria: do not register stop-hook --criteria there"},
		{"copilot criteria at a prompt", &Event{Host: HostCopilot, HookEventName: EventUserPromptSubmit, WireEventName: "userPromptSubmitted"}, Verdict{Context: "x"},
			"do not register stop-hook --criteria there"},
		{"vscode criteria at a prompt", &Event{Host: HostVSCode, HookEventName: EventUserPromptSubmit, WireEventName: "UserPromptSubmit"}, Verdict{Context: "x"},
			"VS Code's UserPromptSubmit hook cannot add context: stop-hook --criteria tells the criteria at SessionStart there"},
		{"cursor criteria at a prompt", &Event{Host: HostCursor, HookEventName: EventUserPromptSubmit, WireEventName: "beforeSubmitPrompt"}, Verdict{Context: "x"},
			"Cursor's beforeSubmitPrompt hook cannot add context: register stop-hook --criteria for sessionStart only"},
		{"copilot post tool use", &Event{Host: HostCopilot, HookEventName: EventPostToolUse, WireEventName: "postToolUse"}, Verdict{Block: true, Reason: "x"},
			"Copilot CLI ignores what a postToolUse hook answers: register posttooluse-hook for preToolUse"},
		{"gemini context at a stop", &Event{Host: HostGemini, HookEventName: EventStop, WireEventName: "AfterAgent"}, Verdict{Context: "x"},
			`cannot give context to the model in a "AfterAgent" answer`},
		{"cursor blocks a session start", &Event{Host: HostCursor, HookEventName: EventSessionStart, WireEventName: "sessionStart"}, Verdict{Block: true, Reason: "x"},
			`cannot block a "sessionStart" event`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := WriteHostAnswer(&b, tt.event, DialectClaudeCode, tt.verdict)
			require.ErrorContains(t, err, tt.want)
			assert.Empty(t, b.String(), "nothing may be written when the answer is refused")
		})
	}
}

// TestAgentShellMarker: each host's marker, as measured in its agent's
// shell tool, names the host; another value, or none, names none.
func TestAgentShellMarker(t *testing.T) {
	for _, tt := range []struct {
		env        map[string]string
		host       Host
		marker     string
		isAgentEnv bool
	}{
		{map[string]string{"CLAUDECODE": "1"}, HostClaude, "CLAUDECODE=1", true},
		{map[string]string{"CODEX_TOOL_CALL_ID": "call_7"}, HostCodex, "CODEX_TOOL_CALL_ID=call_7", true},
		{map[string]string{"QWEN_CODE": "1"}, HostQwen, "QWEN_CODE=1", true},
		{map[string]string{"GEMINI_CLI": "1"}, HostGemini, "GEMINI_CLI=1", true},
		{map[string]string{"OPENCODE": "1"}, HostOpenCode, "OPENCODE=1", true},
		{map[string]string{"COPILOT_CLI": "1"}, HostCopilot, "COPILOT_CLI=1", true},
		{map[string]string{"CLAUDECODE": "0"}, "", "", false},
		{map[string]string{"CODEX_TOOL_CALL_ID": ""}, "", "", false},
		{nil, "", "", false},
	} {
		h, m, ok := AgentShellMarker(func(k string) string { return tt.env[k] })
		assert.Equal(t, tt.isAgentEnv, ok, "%v", tt.env)
		assert.Equal(t, tt.host, h, "%v", tt.env)
		assert.Equal(t, tt.marker, m, "%v", tt.env)
	}
}
