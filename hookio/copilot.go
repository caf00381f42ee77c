package hookio

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/transcript"
)

// Copilot CLI: a stop is blocked with {"decision":"block","reason":R} on
// exit 0, a tool call denied with permissionDecision; it ignores what its
// sessionStart, userPromptSubmitted and postToolUse hooks answer, so
// context there is an error. Its docs name no systemMessage for these
// hooks: the person learns why the agent was let go from closer explain
// --last.
// copilotTitle is the host's name, in its spec and its answers' errors.
const copilotTitle = "Copilot CLI"

var copilotSpec = hostSpec{
	// The agentStop it runs for a subagent that ends, before the
	// subagentStop of the same end.
	subagentsOwnStop: func(e *Event) bool { return e.WireEventName == copilotAgentStop },
	title:            copilotTitle,
	// Its hooks get no OTEL_* variable, though the rest of its
	// environment (1.0.102: e2e TestHooksSeeOTELAsTheirHostsSpecSays).
	hidesOTEL: true,
	// Measured on 1.0.102 (bash).
	shellMarkers: []string{"COPILOT_CLI=1"},
	names:        EventNames{"agentStop and subagentStop", "nothing (Copilot CLI ignores what those hooks answer)", "preToolUse"},
	// Measured on 1.0.102: preToolUse names the shell tool bash
	// (toolArgs.command) and the edit tools create and edit
	// (toolArgs.path); a deny stops the call and the model reads "Denied
	// by preToolUse hook: REASON"; an ask is honoured (copilot -p denies
	// it, "unable to ask user for confirmation").
	shellTool: "bash",
	// Its flat entries have no matcher: preToolUse runs for every tool,
	// and posttooluse-hook answers the others at once.
	roles:      []Role{RoleStop, RoleSubagentStop, RoleGuardShell, RoleGuardEdit},
	noMatchers: true,
	wireNames: map[string]string{
		EventStop: copilotAgentStop, EventSubagentStop: copilotSubagentStop, EventSessionStart: copilotSessionStart,
		EventUserPromptSubmit: copilotPrompt, EventPreToolUse: copilotPreToolUse, EventPostToolUse: copilotPostToolUse,
	},
	guardsTools: true,
	editTools:   []string{"create", "edit"},
	editedPaths: inputString("path"),
	settingsFiles: func(project string, getenv paths.Getenv, _ string) ([]string, []string) {
		return []string{filepath.Join(project, ".github", "hooks", "donegate.json")},
			[]string{filepath.Join(paths.Home(getenv), ".copilot", "hooks", "donegate.json")}
	},
	read:  (*Event).readCopilot,
	shape: copilotShape,
	// stop_hook_active false at the first stop of a prompt (1.0.102).
	turnFromStart: true,
	planTool:      "sql",
	plan:          copilotPlan,
	noPlanNote:    "no todo in the session's session.db",
}

func copilotShape(ev *Event, v Verdict, reason, _ string) (hostAnswer, error) {
	var a hostAnswer
	if v.Block {
		switch ev.HookEventName {
		case EventStop, EventSubagentStop:
			a.Decision, a.Reason = "block", reason
		case EventPreToolUse:
			a.PermissionDecision, a.PermissionDecisionReason = "deny", reason
			if v.Ask {
				a.PermissionDecision = "ask"
			}
		case EventPostToolUse:
			return a, fmt.Errorf("%s ignores what a postToolUse hook answers: register posttooluse-hook for preToolUse", copilotTitle)
		default:
			return a, cannotBlock(ev)
		}
	}
	if v.Context != "" {
		if ev.HookEventName == EventSessionStart || ev.HookEventName == EventUserPromptSubmit {
			return a, fmt.Errorf("%s ignores what a %s hook answers, so it cannot tell the agent the criteria: do not register stop-hook --criteria there", copilotTitle, ev.WireEventName)
		}
		return a, cannotTell(ev)
	}
	return a, nil
}

// Copilot CLI's event names, which its events do not carry.
const (
	copilotAgentStop    = "agentStop"
	copilotSubagentStop = "subagentStop"
	copilotSessionStart = "sessionStart"
	copilotPrompt       = "userPromptSubmitted"
	copilotPreToolUse   = "preToolUse"
	copilotPostToolUse  = "postToolUse"
)

// copilotAgentKeys are the fields that name the subagent in a Copilot
// subagentStop event (any one of them makes a stop a subagent's). The
// real client (1.0.102) sends agentId, unique to the subagent's run, and
// agentName, its type ("general-purpose"), which two subagents share.
var copilotAgentKeys = []string{"agentId", "agentName", "subagentName"}

// readCopilot reads Copilot CLI's wire format: camelCase fields, no event
// name (the event is told by the fields it has), stop_hook_active in
// snake case. Measured with 1.0.102: a subagentStop carries the
// subagent's agentId, agentType, agentName and its last message in
// response, under the parent's sessionId; the subagent's own agentStop
// carries agentId and parentAgentId under the subagent's id as sessionId.
func (e *Event) readCopilot(root gjson.Result) error {
	var stopReason, source string
	err := readStrings(root, []field{
		{"sessionId", &e.SessionID},
		{"transcriptPath", &e.TranscriptPath},
		{"cwd", &e.Cwd},
		{"prompt", &e.Prompt},
		{"toolName", &e.ToolName},
		{"stopReason", &stopReason},
		{"source", &source},
		{"parentAgentId", &e.ParentAgentID},
		{"agentType", &e.AgentType},
		{"response", &e.LastAssistantMessage},
	})
	if err != nil {
		return err
	}
	for _, k := range copilotAgentKeys {
		if err := readStrings(root, []field{{k, &e.AgentID}}); err != nil {
			return err
		}
		if e.AgentID != "" {
			break
		}
	}
	if err := readBool(root, "stop_hook_active", &e.StopHookActive); err != nil {
		return err
	}
	switch {
	case e.ToolName != "" && root.Get("toolResult").Exists():
		e.WireEventName, e.HookEventName = copilotPostToolUse, EventPostToolUse
		e.ToolResponse = []byte(root.Get("toolResult").Raw)
	case e.ToolName != "":
		e.WireEventName, e.HookEventName = copilotPreToolUse, EventPreToolUse
	case stopReason != "" || root.Get("stop_hook_active").Exists():
		e.WireEventName, e.HookEventName = copilotAgentStop, EventStop
		switch {
		case e.AgentID != "" && e.AgentID == e.SessionID:
			// The subagent's own agentStop, named by its agentId as
			// sessionId; Copilot runs the parent's subagentStop next.
			e.HookEventName = EventSubagentStop
		case e.AgentID != "":
			e.WireEventName, e.HookEventName = copilotSubagentStop, EventSubagentStop
		}
	case root.Get("prompt").Exists():
		e.WireEventName, e.HookEventName = copilotPrompt, EventUserPromptSubmit
	case source != "" || root.Get("initialPrompt").Exists():
		e.WireEventName, e.HookEventName = copilotSessionStart, EventSessionStart
	default:
		return fmt.Errorf("%w: a Copilot CLI event (camelCase, no hook_event_name) without stopReason, toolName, prompt or source: cannot tell which event it is", ErrBadEvent)
	}
	if v := root.Get("toolArgs"); v.Exists() {
		// Copilot passes a tool's arguments as a JSON string.
		e.ToolInput = []byte(v.Raw)
		if v.Type == gjson.String && gjson.Valid(v.Str) {
			e.ToolInput = []byte(v.Str)
		}
	}
	return nil
}

// copilotPlan is the todos table of the session's session.db, beside
// transcript_path (events.jsonl), which Copilot's agent keeps with its
// sql tool. A subagent has no plan of its own there: Path is "" at a
// subagentStop, and the main agent's todos are not the subagent's to
// finish.
func copilotPlan(ctx context.Context, _ *Event, q PlanQuery) (Plan, error) {
	items, found, err := transcript.ReadCopilotTodos(ctx, q.Path)
	return FoundPlan(items, found, err, "todos table (session.db)")
}
