package hookio

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// Goose (aaif-goose/goose), by contract: no client runs here (its
// releases are on GitHub, out of reach). Read from its source
// (crates/goose/src/hooks): hooks come from a plugin's hooks/hooks.json
// in Claude Code's shape (matcher groups of {"type": "command",
// "command": ...}), and each gets its event on stdin as
//
//	{"event": "Stop", "session_id": "...", "last_assistant_message": "...",
//	 "working_dir": "..."}
//
// (PreToolUse adds tool_name, tool_input, tool_call_id and
// matcher_context): "event" where Claude Code says hook_event_name,
// "working_dir" for cwd, no transcript. A Stop answered {"decision":
// "block", "reason": R} (or exit 2) goes on, the reason told to the agent
// as a hidden user message, up to GOOSE_STOP_HOOK_BLOCK_CAP consecutive
// blocks (8 by default), after which Goose ends the turn; a PreToolUse
// answered so is not run, the model told "Tool call denied by policy
// hook". Its shell tool is developer__shell, its editor
// developer__text_editor (path).
var gooseSpec = hostSpec{
	title: "Goose",
	names: EventNames{"Stop (a plugin's hooks/hooks.json)", "nothing (its hooks cannot add context)", "PreToolUse (a plugin's hooks/hooks.json)"},
	// No turn id, nothing that tells a continuation from the person's
	// prompt; its own cap ends the holds.
	afterPersonsPrompt: func(*Event) (bool, bool) { return false, false },
	shellTool:          "developer__shell",
	guardsTools:        true,
	cannotAsk:          true,
	editTools:          []string{"developer__text_editor"},
	editedPaths:        inputString("path"),
	read:               (*Event).readGoose,
	write:              writeClaudeShaped(true),
	plan:               noPlan,
}

// gooseKey is the field that names the event in Goose's payload, where
// every other host's says hook_event_name (or hookEventName).
const gooseKey = "event"

func (e *Event) readGoose(root gjson.Result) error {
	err := readStrings(root, []field{
		{gooseKey, &e.WireEventName},
		{"session_id", &e.SessionID},
		{"working_dir", &e.Cwd},
		{"last_assistant_message", &e.LastAssistantMessage},
		{"tool_name", &e.ToolName},
		{"tool_call_id", &e.ToolUseID},
	})
	if err != nil {
		return err
	}
	if err := e.nameEvent(nil); err != nil {
		return err
	}
	switch e.HookEventName {
	case EventStop:
	case EventPreToolUse, EventPostToolUse:
		if in := root.Get("tool_input"); in.Exists() {
			e.ToolInput = []byte(in.Raw)
		}
	default:
		return fmt.Errorf("%w: donegate answers Goose's Stop and PreToolUse, not %q", ErrBadEvent, e.WireEventName)
	}
	return nil
}
