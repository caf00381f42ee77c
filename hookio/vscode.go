package hookio

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// VS Code's agent (from its docs: no VS Code runs here): a Stop is held
// with {"hookSpecificOutput":{"hookEventName":"Stop","decision":"block","reason":R}},
// a SubagentStop with {"decision":"block","reason":R}, a tool call denied
// as Claude Code's; context only at SessionStart (its UserPromptSubmit
// takes the common fields alone); the person sees systemMessage.
// vscodeTitle is the host's name, in its spec and its answers' errors.
const vscodeTitle = "VS Code"

var vscodeSpec = hostSpec{
	title:              vscodeTitle,
	names:              EventNames{"Stop and SubagentStop", "SessionStart", "PreToolUse and PostToolUse"},
	peekEvent:          "hookEventName",
	read:               (*Event).readVSCode,
	shape:              vscodeShape,
	showsSystemMessage: true,
	// Its UserPromptSubmit takes the common fields alone.
	promptTakesNoContext: true,
	// Its todo tool keeps its list in the chat session, in no file its
	// docs describe: nothing to read (docs/hosts.md).
	plan: noPlan,
}

func vscodeShape(ev *Event, v Verdict, reason, context string) (hostAnswer, error) {
	var a hostAnswer
	wire := ev.WireEventName
	if v.Block {
		switch ev.HookEventName {
		case EventStop:
			a.HookSpecificOutput = &hookSpecific{HookEventName: wire, Decision: "block", Reason: reason}
		case EventSubagentStop, EventPostToolUse:
			a.Decision, a.Reason = "block", reason
		case EventPreToolUse:
			a.HookSpecificOutput = &hookSpecific{HookEventName: wire, PermissionDecision: "deny", PermissionDecisionReason: reason}
		default:
			return a, cannotBlock(ev)
		}
	}
	if v.Context != "" {
		switch ev.HookEventName {
		case EventSessionStart:
			a.HookSpecificOutput = &hookSpecific{HookEventName: wire, AdditionalContext: context}
		case EventUserPromptSubmit:
			return a, fmt.Errorf("%s's %s hook cannot add context: stop-hook --criteria tells the criteria at SessionStart there", vscodeTitle, wire)
		default:
			return a, cannotTell(ev)
		}
	}
	return a, nil
}

// readVSCode reads the events of GitHub Copilot's agent in VS Code, from
// its docs ("Agent hooks in Visual Studio Code", hooks reference): the
// common fields timestamp, cwd, sessionId, hookEventName (Claude Code's
// event names) and transcript_path, then each event's own in snake case
// as Claude Code names them (stop_hook_active, agent_id, agent_type,
// tool_name, tool_input, tool_use_id, tool_response, prompt, source).
// Its tools are its own (replace_string_in_file, run_in_terminal, ...),
// and it sends no turn id: a stop's count is the session's.
func (e *Event) readVSCode(root gjson.Result) error {
	err := readStrings(root, []field{
		{"hookEventName", &e.WireEventName},
		{"sessionId", &e.SessionID},
		{"transcript_path", &e.TranscriptPath},
		{"cwd", &e.Cwd},
		{"prompt", &e.Prompt},
		{"agent_id", &e.AgentID},
		{"agent_type", &e.AgentType},
		{"tool_name", &e.ToolName},
		{"tool_use_id", &e.ToolUseID},
	})
	if err != nil {
		return err
	}
	if err := e.nameEvent(nil); err != nil {
		return err
	}
	return e.readToolAndStop(root, "tool_response")
}
