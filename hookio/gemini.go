package hookio

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/transcript"
)

// Gemini CLI: Claude Code's field names, its own event names. A block is
// {"decision":"deny","reason":R}, which Gemini sends to the agent as a
// new prompt; allow is {}; the person sees systemMessage; context goes in
// hookSpecificOutput.additionalContext at SessionStart and BeforeAgent.
var geminiSpec = hostSpec{
	// Its stop_hook_active returns to false after a tool: nothing to go
	// by.
	afterPersonsPrompt: func(*Event) (bool, bool) { return false, false },
	title:              "Gemini CLI",
	// Measured on the pinned Gemini CLI (run_shell_command).
	shellMarkers: []string{"GEMINI_CLI=1"},
	names:        EventNames{"AfterAgent", "SessionStart and BeforeAgent", "BeforeTool and AfterTool"},
	// Measured on the pinned Gemini CLI (0.61.0): a BeforeTool deny stops
	// the call ("Tool execution blocked: REASON" to the model), for its
	// shell and its edit tools alike (both take file_path); an "ask" in
	// gemini -p waits for an answer nobody gives.
	shellTool:   "run_shell_command",
	roles:       []Role{RoleStop, RoleGuardShell, RoleGuardEdit, RoleCriteriaSession, RoleCriteriaPrompt},
	joinsGuard:  true,
	wireNames:   reverse(geminiNames),
	guardsTools: true,
	cannotAsk:   true,
	editTools:   []string{"write_file", "replace"},
	editedPaths: inputString("file_path"),
	settingsFiles: func(project string, getenv paths.Getenv, _ string) ([]string, []string) {
		return []string{filepath.Join(project, ".gemini", "settings.json")},
			[]string{filepath.Join(paths.Home(getenv), ".gemini", "settings.json")}
	},
	read:               (*Event).readGemini,
	shape:              geminiShape,
	showsSystemMessage: true,
	planTool:           "write_todos",
	plan:               geminiPlan,
	turn:               geminiTurn,
	held:               keepGeminiTurn,
}

// geminiTurnRecord is what a session keeps (its Memo) of the Gemini turn
// donegate last held: its prompt (hashed), the id of its prompt's record,
// and the reasons it answered in it (hashed), which Gemini writes as user
// records.
type geminiTurnRecord struct {
	Prompt  string   `json:"prompt"`
	Turn    string   `json:"turn"`
	Reasons []string `json:"reasons,omitempty"`
}

// maxGeminiReasons bounds the reasons kept of one turn.
const maxGeminiReasons = 16

// geminiTurn names the turn of a Gemini CLI stop, which names none: the
// chat record of the turn's prompt (see transcript.GeminiTurn). Counted
// per session, a turn cut short after a block (the CLI killed
// mid-continuation) left its count to the next prompt of the session, the
// same prompt resumed included, which then got less than its max_blocks
// (measured with 0.61.0: e2e TestGeminiResumedPromptIsANewTurn).
//
// The turn donegate last held goes on where the chat cannot tell it:
// when its prompt's record has scrolled out of the window
// searched (a long turn: its count had started over, 5 holds with
// max_blocks 3), and when the prompt is a reason donegate gave, whose
// records Gemini writes as the person's (every deny's record looked like
// a new prompt: 20 holds of 20). Without either, the count is the
// session's, as for a host that sends no turn id.
func geminiTurn(e *Event, m Memo) (string, error) {
	var kept geminiTurnRecord
	if m != nil {
		m.Recall(&kept)
	}
	same := kept.Turn != "" && kept.Prompt == textHash(e.Prompt)
	if same && slices.Contains(kept.Reasons, textHash(e.Prompt)) {
		return kept.Turn, nil
	}
	id, err := transcript.GeminiTurn(e.TranscriptPath, e.Prompt)
	if id == "" && same {
		return kept.Turn, err
	}
	return id, err
}

// keepGeminiTurn records the Gemini turn a block holds and the reason it
// gives (see geminiTurn).
func keepGeminiTurn(e *Event, m Memo, reason string) {
	_ = m.Update(func(recall func(any) bool) any {
		var kept geminiTurnRecord
		recall(&kept)
		if kept.Turn != e.PromptID {
			kept = geminiTurnRecord{Prompt: textHash(e.Prompt), Turn: e.PromptID}
		}
		// The reason as Gemini gets it, cleaned as the answer cleans it.
		if h := textHash(CleanText(reason)); !slices.Contains(kept.Reasons, h) {
			kept.Reasons = append(kept.Reasons, h)
			if n := len(kept.Reasons); n > maxGeminiReasons {
				kept.Reasons = kept.Reasons[n-maxGeminiReasons:]
			}
		}
		return kept
	})
}

// textHash names a text without keeping it: prompts and reasons are the
// person's and the project's words.
func textHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:16])
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
