package hookio

import (
	"fmt"
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/paths"
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
	// The guard, by contract: VS Code runs the .claude/settings.json
	// entries, matchers ignored, so posttooluse-hook sees each call; its
	// tools' names and inputs are those of its own source
	// (microsoft/vscode-copilot-chat, toolNames.ts), and its hooks
	// reference says a PreToolUse deny blocks the call and an ask asks
	// the person.
	shellTool:   "run_in_terminal",
	guardsTools: true,
	editTools:   []string{"create_file", "replace_string_in_file", "multi_replace_string_in_file", "insert_edit_into_file", "apply_patch"},
	editedPaths: vscodeEditedPaths,
	settingsFiles: func(project string, getenv paths.Getenv, transcriptPath string) ([]string, []string) {
		inProject, user := claudeSpec.settingsFiles(project, getenv, transcriptPath)
		return append(inProject, filepath.Join(project, ".vscode", "settings.json")), user
	},
	// Every .json there is a hook file it runs.
	pluginDirs: func(project string, _ paths.Getenv) []string {
		return []string{filepath.Join(project, ".github", "hooks")}
	},
}

// vscodeEditedPaths reads the files an edit tool of VS Code's writes: its
// filePath, each of a multi_replace_string_in_file's replacements', each
// an apply_patch's patch (its input) adds, updates, deletes or moves to.
func vscodeEditedPaths(e *Event) []string {
	in := gjson.ParseBytes(e.ToolInput)
	switch e.ToolName {
	case "multi_replace_string_in_file":
		var files []string
		for _, r := range in.Get("replacements").Array() {
			if f := r.Get("filePath").Str; f != "" {
				files = append(files, f)
			}
		}
		return files
	case "apply_patch":
		return codexPatchPaths(in.Get("input").Str)
	}
	return nonEmpty(in.Get("filePath").Str)
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
			decision := "deny"
			if v.Ask {
				decision = "ask"
			}
			a.HookSpecificOutput = &hookSpecific{HookEventName: wire, PermissionDecision: decision, PermissionDecisionReason: reason}
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
