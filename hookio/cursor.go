package hookio

import (
	"fmt"
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsonw"
	"github.com/donegate/donegate/internal/paths"
)

// Cursor (from its docs: no client ran here): a stop is continued with
// {"followup_message":R}, which Cursor sends as the next user message;
// context only at sessionStart ({"additional_context":C}). Its docs name
// no systemMessage for these hooks.
// cursorTitle is the host's name, in its spec and its answers' errors.
const cursorTitle = "Cursor"

var cursorSpec = hostSpec{
	// loop_count 0: the first stop since the person's prompt.
	afterPersonsPrompt: func(e *Event) (bool, bool) { return e.LoopCount == 0, true },
	title:              cursorTitle,
	names:              EventNames{"stop and subagentStop", "sessionStart", "beforeShellExecution (the guard), preToolUse and postToolUse"},
	read:               (*Event).readCursor,
	shape:              cursorShape,
	// loop_count 0 at the first stop of a turn; its beforeSubmitPrompt
	// cannot add context.
	turnFromStart:        true,
	promptTakesNoContext: true,
	// Cursor keeps no plan donegate can read: no plan tool.
	plan: noPlan,
	// The guard, by contract, on its shell alone: its beforeShellExecution
	// hook, given the command, is answered {"permission":"deny"|"ask",
	// "user_message":R,"agent_message":R} (its hooks docs). Its edit
	// tools' inputs are not documented: not read.
	shellTool:     cursorShellTool,
	guardsTools:   true,
	settingsFiles: cursorSettingsFiles,
	// Cursor runs the hooks of .cursor/hooks.json and of
	// .claude/settings.json for one stop, each with the same payload (its
	// docs): a project that registers donegate in both (for Cursor and
	// for Claude Code) would have the stop checked twice and counted
	// twice, so max_blocks would be spent at half the continuations.
	stopKey: cursorStopKey,
}

// cursorShellTool is what donegate calls the command Cursor's
// beforeShellExecution hook is given (Cursor sends no tool name there).
const cursorShellTool = "beforeShellExecution"

// cursorSettingsFiles are the files whose hooks Cursor runs: its own
// hooks.json, in the project and the user's, and Claude Code's settings
// (its third-party hooks).
func cursorSettingsFiles(project string, getenv paths.Getenv, transcriptPath string) ([]string, []string) {
	inProject, user := claudeSpec.settingsFiles(project, getenv, transcriptPath)
	inProject = append(inProject, filepath.Join(project, ".cursor", "hooks.json"))
	if home := paths.Home(getenv); home != "" {
		user = append(user, filepath.Join(home, ".cursor", "hooks.json"))
	}
	return inProject, user
}

// cursorStopKey names a Cursor stop: its generation_id and loop_count
// (one gate's: the main agent's stop or one subagent's, which the caller
// adds). "" without a generation_id: nothing tells the copies apart.
func cursorStopKey(e *Event) string {
	if e.GenerationID == "" {
		return ""
	}
	return fmt.Sprintf("%s/%d", e.GenerationID, e.LoopCount)
}

func cursorShape(ev *Event, v Verdict, reason, context string) (hostAnswer, error) {
	var a hostAnswer
	if v.Block {
		switch {
		case ev.IsStop():
			a.FollowupMessage = reason
		case ev.WireEventName == cursorShellTool:
			a.Permission = "deny"
			if v.Ask {
				a.Permission = "ask"
			}
			a.UserMessage, a.AgentMessage = reason, reason
		case ev.HookEventName == EventPreToolUse || ev.HookEventName == EventPostToolUse:
			return a, fmt.Errorf("posttooluse-hook does not answer %s's %s events: register it at beforeShellExecution", cursorTitle, ev.WireEventName)
		default:
			return a, cannotBlock(ev)
		}
	}
	if v.Context != "" {
		switch ev.HookEventName {
		case EventSessionStart:
			a.AdditionalContext = context
		case EventUserPromptSubmit:
			return a, fmt.Errorf("%s's %s hook cannot add context: register stop-hook --criteria for sessionStart only", cursorTitle, ev.WireEventName)
		default:
			return a, cannotTell(ev)
		}
	}
	return a, nil
}

// cursorNames maps Cursor's event names to Claude Code's. Cursor runs the
// hooks of .claude/settings.json too, mapping Claude Code's names to its
// own: those are taken as they are.
var cursorNames = map[string]string{
	"stop":               EventStop,
	"subagentStop":       EventSubagentStop,
	"sessionStart":       EventSessionStart,
	"beforeSubmitPrompt": EventUserPromptSubmit,
	"preToolUse":         EventPreToolUse,
	"postToolUse":        EventPostToolUse,
	// Before a command of the agent's runs in its shell: the guard.
	cursorShellTool: EventPreToolUse,
}

// readCursor reads Cursor's wire format (from its docs: no client ran
// here): conversation_id for the session, generation_id, loop_count,
// workspace_roots instead of cwd.
func (e *Event) readCursor(root gjson.Result) error {
	var status string
	err := readStrings(root, []field{
		{"hook_event_name", &e.WireEventName},
		{"status", &status},
		{"conversation_id", &e.SessionID},
		{"generation_id", &e.GenerationID},
		{"transcript_path", &e.TranscriptPath},
		{"cwd", &e.Cwd},
		{"model", &e.Model},
		{"prompt", &e.Prompt},
		{"tool_name", &e.ToolName},
	})
	if err != nil {
		return err
	}
	if err := e.nameEvent(cursorNames); err != nil {
		return err
	}
	if e.WireEventName == cursorShellTool {
		// The command it will run, as a shell tool's input.
		var command string
		if err := readStrings(root, []field{{"command", &command}}); err != nil {
			return err
		}
		e.ToolName = cursorShellTool
		e.ToolInput = append(jsonw.AppendString([]byte(`{"command":`), command, false), '}')
	}
	if e.IsStop() && status != "" && status != "completed" {
		e.Unchecked = fmt.Sprintf("Cursor's %s with status %q: the agent did not finish its turn (the person stopped it, or it failed), and a follow-up would start it again", e.WireEventName, status)
	}
	if e.SessionID == "" {
		if err := readStrings(root, []field{{"session_id", &e.SessionID}}); err != nil {
			return err
		}
	}
	if v := root.Get("workspace_roots"); v.Exists() && v.Type != gjson.Null {
		if !v.IsArray() {
			return fmt.Errorf("%w: field workspace_roots is a %s, expected an array of strings", ErrBadEvent, kind(v))
		}
		roots := v.Array()
		for i, r := range roots {
			if r.Type != gjson.String {
				return fmt.Errorf("%w: field workspace_roots[%d] is a %s, expected a string", ErrBadEvent, i, kind(r))
			}
		}
		if e.Cwd == "" && len(roots) > 0 {
			e.Cwd = roots[0].Str
		}
	}
	if v := root.Get("loop_count"); v.Exists() && v.Type != gjson.Null {
		if v.Type != gjson.Number || v.Num < 0 || v.Num != float64(int(v.Num)) {
			return fmt.Errorf("%w: field loop_count is %s, expected a whole number of 0 or more", ErrBadEvent, preview([]byte(v.Raw)))
		}
		e.LoopCount = int(v.Num)
	}
	return e.readToolAndStop(root, "tool_output")
}
