package hookio

import (
	"context"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/transcript"
)

// Gemini CLI: Claude Code's field names, its own event names. A block is
// {"decision":"deny","reason":R}, which Gemini sends to the agent as a
// new prompt; allow is {}; the person sees systemMessage; context goes in
// hookSpecificOutput.additionalContext at SessionStart and BeforeAgent.
var geminiSpec = hostSpec{
	title:              "Gemini CLI",
	names:              EventNames{"AfterAgent", "SessionStart and BeforeAgent", "BeforeTool and AfterTool"},
	read:               (*Event).readGemini,
	shape:              geminiShape,
	showsSystemMessage: true,
	planTool:           "write_todos",
	plan:               geminiPlan,
}

func geminiShape(ev *Event, v Verdict, reason, context string) (hostAnswer, error) {
	var a hostAnswer
	wire := ev.WireEventName
	if v.Block {
		switch {
		case ev.IsStop(), ev.HookEventName == EventPreToolUse:
			a.Decision, a.Reason = "deny", reason
		case ev.HookEventName == EventPostToolUse:
			a.HookSpecificOutput = &hookSpecific{HookEventName: wire, AdditionalContext: reason}
		default:
			return a, cannotBlock(ev)
		}
	}
	if v.Context != "" {
		if ev.HookEventName != EventSessionStart && ev.HookEventName != EventUserPromptSubmit {
			return a, cannotTell(ev)
		}
		a.HookSpecificOutput = &hookSpecific{HookEventName: wire, AdditionalContext: context}
	}
	return a, nil
}

// geminiEvents are the event names only Gemini CLI sends (its
// SessionStart and SessionEnd share Claude Code's names and are told
// apart otherwise: see DetectHost).
var geminiEvents = map[string]bool{
	"AfterAgent": true, "BeforeAgent": true, "BeforeTool": true, "AfterTool": true,
	"BeforeModel": true, "AfterModel": true, "BeforeToolSelection": true,
	"PreCompress": true,
}

// geminiNames maps Gemini CLI's event names to Claude Code's.
var geminiNames = map[string]string{
	"AfterAgent":   EventStop,
	"BeforeAgent":  EventUserPromptSubmit,
	"SessionStart": EventSessionStart,
	"BeforeTool":   EventPreToolUse,
	"AfterTool":    EventPostToolUse,
}

// readGemini reads Gemini CLI's wire format: Claude Code's field names,
// its own event names, the turn's text in prompt_response (cumulative
// over the turn).
func (e *Event) readGemini(root gjson.Result) error {
	err := readStrings(root, []field{
		{"hook_event_name", &e.WireEventName},
		{"session_id", &e.SessionID},
		{"transcript_path", &e.TranscriptPath},
		{"cwd", &e.Cwd},
		{"prompt", &e.Prompt},
		{"prompt_response", &e.LastAssistantMessage},
		{"tool_name", &e.ToolName},
	})
	if err != nil {
		return err
	}
	if err := e.nameEvent(geminiNames); err != nil {
		return err
	}
	return e.readToolAndStop(root, "tool_response")
}

// geminiSession reports whether a SessionStart or SessionEnd comes from
// Gemini CLI: its transcript is a Gemini chat, or Gemini named the
// session in the hook's environment.
func geminiSession(sessionID, transcript string, getenv func(string) string) bool {
	if strings.Contains(transcript, "/.gemini/tmp/") {
		return true
	}
	return getenv != nil && sessionID != "" && getenv("GEMINI_SESSION_ID") == sessionID
}

// geminiPlan is the task tracker where it is on (Gemini 3 models have no
// write_todos), the main agent's; else the latest write_todos call.
func geminiPlan(ctx context.Context, e *Event, q PlanQuery) (Plan, error) {
	if !q.Subagent {
		items, found, err := transcript.GeminiTracker(ctx, transcript.GeminiTrackerDir(e.TranscriptPath, e.SessionID))
		if err != nil || found {
			p, err := FoundPlan(items, found, err, "task tracker (tracker_update_task)")
			p.Tool = "tracker_update_task"
			return p, err
		}
	}
	items, found, err := transcript.GeminiPlan(ctx, q.Path)
	return FoundPlan(items, found, err, "todo list (write_todos)")
}
