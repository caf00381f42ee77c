package hookio

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/paths"
)

// The Cline CLI (cline, 3.0.65 measured) runs each file of its hooks
// dirs named after an event (PreToolUse, PreToolUse.cjs, ...) on that
// event's JSON:
//
//	{"clineVersion": "", "hookName": "tool_call", "taskId": "conv_...",
//	 "sessionContext": {"rootSessionId": "..."}, "workspaceRoots": [...],
//	 "workspaceInfo": {"rootPath": "..."}, "agent_id": "...",
//	 "parent_agent_id": null, "iteration": 1, "tool_call": {"id": "...",
//	 "name": "run_commands", "input": {...}}, "preToolUse": {...}}
//
// Only a PreToolUse answer changes what the agent does, and only so: its
// "cancel" aborts the whole run; its "overrideInput" replaces the call's
// input, and its "contextModification" is told to the model after the
// call's result. A run of `cline --yolo` ends only with a successful call
// of submit_and_exit (a text answer without it is met with "This run is
// not complete until you call ... submit_and_exit"), so that call is the
// agent's stop: donegate's Cline hook (plugin/cline/PreToolUse.cjs, which
// closer init --host cline writes into .clinerules/hooks/) hands it to
// stop-hook, and every other call to posttooluse-hook. To hold the agent,
// or refuse a call, the answer replaces the input with null, which no
// tool of Cline's accepts — the call fails, nothing runs — and tells the
// model why. In Cline's default mode there is no such tool: a run ends
// with the agent's text, and the hook after it (TaskComplete) cannot
// continue it; nothing holds the agent there (docs/hosts.md, Cline).
var clineSpec = hostSpec{
	title: "Cline CLI",
	// Cline sends no turn id and nothing that tells a continuation from
	// the person's prompt.
	afterPersonsPrompt: func(*Event) (bool, bool) { return false, false },
	names:              EventNames{"PreToolUse of submit_and_exit (donegate's Cline hook)", "nothing (the hook sends stops and tool calls only)", "PreToolUse (donegate's Cline hook)"},
	// Measured on 3.0.65: its run_commands runs with both set (the
	// first by its npm wrapper, the second by the CLI).
	shellMarkers: []string{"CLINE_WRAPPER_PATH", "CLINE_CONNECTOR_CLI_LAUNCH"},
	shellTool:    clineShellTool,
	editTools:    []string{"editor", "apply_patch"},
	editedPaths: func(e *Event) []string {
		in := gjson.ParseBytes(e.ToolInput)
		switch e.ToolName {
		case "editor":
			return nonEmpty(in.Get("path").Str)
		case "apply_patch":
			if in.Type == gjson.String {
				return codexPatchPaths(in.Str)
			}
			return codexPatchPaths(in.Get("input").Str)
		}
		return nil
	},
	shellCommand: clineCommands,
	guardsTools:  true,
	// A refusal is the only answer: Cline asks nobody.
	cannotAsk: true,
	settingsFiles: func(project string, getenv paths.Getenv, _ string) ([]string, []string) {
		var inProject, user []string
		for _, dir := range ClineProjectHookDirs {
			inProject = append(inProject, filepath.Join(project, dir, ClineHookFile))
		}
		for _, dir := range clineUserHookDirs(getenv) {
			user = append(user, filepath.Join(dir, ClineHookFile))
		}
		return inProject, user
	},
	// Any file there named after an event runs as a hook beside
	// donegate's, and the last one's overrideInput wins.
	pluginDirs: func(project string, getenv paths.Getenv) []string {
		var dirs []string
		for _, dir := range ClineProjectHookDirs {
			dirs = append(dirs, filepath.Join(project, dir))
		}
		return append(dirs, clineUserHookDirs(getenv)...)
	},
	read:  (*Event).readCline,
	write: writeCline,
	plan:  noPlan,
}

// clineShellTool is Cline's shell tool.
const clineShellTool = "run_commands"

// clineFinalTool is the tool with which Cline's agent ends a run.
const clineFinalTool = "submit_and_exit"

// ClineHookFile is donegate's Cline hook as init writes it; .cjs, which
// Cline runs with node as CommonJS whatever the project's package.json
// says.
const ClineHookFile = "PreToolUse.cjs"

// ClineProjectHookDirs are the dirs of a project Cline runs hooks from,
// the first the one init writes into.
var ClineProjectHookDirs = []string{filepath.Join(".clinerules", "hooks"), filepath.Join(".cline", "hooks")}

// clineUserHookDirs are the user's: $CLINE_DIR/hooks (else
// ~/.cline/hooks) and ~/Documents/Cline/Hooks.
func clineUserHookDirs(getenv paths.Getenv) []string {
	var dirs []string
	if d := ClineDir(getenv); d != "" {
		dirs = append(dirs, filepath.Join(d, "hooks"))
	}
	if home := paths.Home(getenv); home != "" {
		dirs = append(dirs, filepath.Join(home, "Documents", "Cline", "Hooks"))
	}
	return dirs
}

// ClineDir is Cline's user dir, as Cline finds it: $CLINE_DIR, else
// ~/.cline; "" when neither is known.
func ClineDir(getenv paths.Getenv) string {
	if d := strings.TrimSpace(getenv("CLINE_DIR")); d != "" {
		return d
	}
	if home := paths.Home(getenv); home != "" {
		return filepath.Join(home, ".cline")
	}
	return ""
}

// clineKey is the field only Cline's events carry.
const clineKey = "clineVersion"

func (e *Event) readCline(root gjson.Result) error {
	var hook string
	err := readStrings(root, []field{
		{"hookName", &hook},
		{"taskId", &e.SessionID},
		{clineKey, &e.ClientVersion},
		{"parent_agent_id", &e.ParentAgentID},
		{"agent_id", &e.AgentID},
	})
	if err != nil {
		return err
	}
	if s := root.Get("sessionContext.rootSessionId"); s.Type == gjson.String && s.Str != "" {
		e.SessionID = s.Str
	}
	e.Cwd = root.Get("workspaceInfo.rootPath").Str
	if e.Cwd == "" {
		e.Cwd = root.Get("workspaceRoots.0").Str
	}
	if hook != "tool_call" {
		return fmt.Errorf("%w: donegate's Cline hook sends tool calls only (PreToolUse), not %q", ErrBadEvent, hook)
	}
	call := root.Get("tool_call")
	if !call.IsObject() {
		return fmt.Errorf("%w: field tool_call is missing or not an object", ErrBadEvent)
	}
	if err := readStrings(call, []field{{"name", &e.ToolName}, {"id", &e.ToolUseID}}); err != nil {
		return err
	}
	if in := call.Get("input"); in.Exists() {
		e.ToolInput = []byte(in.Raw)
	}
	e.WireEventName = "PreToolUse"
	switch {
	case e.ToolName != clineFinalTool:
		e.HookEventName = EventPreToolUse
	case e.ParentAgentID != "":
		e.HookEventName = EventSubagentStop
	default:
		e.HookEventName = EventStop
		e.AgentID = ""
	}
	if e.IsStop() {
		e.LastAssistantMessage = gjson.GetBytes(e.ToolInput, "summary").Str
	}
	return nil
}

// clineCommands is what a run_commands call runs, one command a line: its
// input is a command, a list of them, or an object holding them in
// "commands", "command" (with "args") or "cmd" — as Cline reads it. A
// command is a string, or words: a list, or a {"command", "args"} object
// (its command a string or a list), each read as one command line, never
// split into lines of their own. What is none of these is the input's
// JSON text, for the guard to read whole.
func clineCommands(e *Event) string {
	in := gjson.ParseBytes(e.ToolInput)
	var lines []string
	one := func(v gjson.Result) {
		switch {
		case v.Type == gjson.String:
			lines = append(lines, v.Str)
		case v.IsArray():
			lines = append(lines, clineWords(v))
		case v.IsObject() && (v.Get("command").Type == gjson.String || v.Get("command").IsArray()):
			words := clineWords(v.Get("command"))
			if args := v.Get("args"); args.Exists() {
				words += " " + clineWords(args)
			}
			lines = append(lines, words)
		default:
			lines = append(lines, v.Raw)
		}
	}
	many := func(v gjson.Result) {
		if !v.IsArray() {
			one(v)
			return
		}
		v.ForEach(func(_, item gjson.Result) bool { one(item); return true })
	}
	switch {
	case in.Type == gjson.String, in.IsArray():
		many(in)
	case in.Get("commands").Exists():
		many(in.Get("commands"))
	case in.Get("command").Exists():
		one(in)
	case in.Get("cmd").Exists():
		one(in.Get("cmd"))
	default:
		return in.Raw
	}
	return strings.Join(lines, "\n")
}

// clineWords is a command's words as one shell line: a string as it is,
// a list of words each quoted where it needs it.
func clineWords(v gjson.Result) string {
	if !v.IsArray() {
		return v.String()
	}
	var words []string
	v.ForEach(func(_, w gjson.Result) bool {
		words = append(words, cli.ShellQuote(w.String()))
		return true
	})
	return strings.Join(words, " ")
}

// clineAnswer is Cline's PreToolUse answer, and what the person is told
// (systemMessage: no field of Cline's, which it ignores; donegate's
// Cline hook writes it on stderr, which Cline logs).
type clineAnswer struct {
	Cancel              bool            `json:"cancel"`
	ContextModification string          `json:"contextModification,omitempty"`
	OverrideInput       json.RawMessage `json:"overrideInput,omitempty"`
}

// writeCline holds the agent at its submit_and_exit, or refuses a call:
// the call's input replaced with null, which fails every tool's input
// check before it runs, and the reason told to the model. Let go: {}, or
// only the message to the person.
func writeCline(w io.Writer, ev *Event, _ Dialect, v Verdict) error {
	if !v.Block {
		if v.SystemMessage == "" {
			_, err := io.WriteString(w, "{}\n")
			return err
		}
		data, err := json.Marshal(struct {
			SystemMessage string `json:"systemMessage"`
		}{CleanText(v.SystemMessage)})
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	}
	reason := CleanText(v.Reason)
	if reason == "" {
		reason = defaultReason
	}
	if v.Ask {
		reason = noAsk(reason)
	}
	if ev.IsStop() {
		reason = "donegate refused this " + clineFinalTool + " (its input was dropped): " + reason
	} else {
		reason = "donegate refused this " + ev.ToolName + " call (its input was dropped, and nothing ran): " + reason
	}
	data, err := json.Marshal(clineAnswer{ContextModification: reason, OverrideInput: json.RawMessage("null")})
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
