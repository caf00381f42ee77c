package hookio

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/transcript"
)

// OpenCode has no hook that can hold an agent: donegate's OpenCode plugin
// (plugin/opencode/donegate.js, written by closer init --host opencode)
// stands in for one. When the agent ends a turn it sends stop-hook an
// event of its own making, Claude Code's field names where they mean the
// same, and reads Claude Code's Stop answer back:
//
//	{"hook_event_name": "Stop", "opencode_version": "1.18.33",
//	 "opencode_mode": "run" | "serve", "session_id": "ses_...",
//	 "cwd": "...", "prompt_id": "msg_...", "stop_hook_active": false,
//	 "message_id": "msg_...", "last_assistant_message": "...",
//	 "todos": [{"content": "...", "status": "in_progress", "priority": "high"}]}
//
// prompt_id is the person's message that started the turn (the plugin
// keeps it across the messages it sends on a hold), stop_hook_active
// whether the turn goes on after such a message, todos the session's
// todo list as OpenCode keeps it (todo.updated, client.session.todo);
// absent when the plugin has not seen it.

// openCodeSpec: Claude Code's Stop answer, a block never without a
// reason (the plugin sends it to the agent).
var openCodeSpec = hostSpec{
	title: "OpenCode",
	// Measured on the pinned OpenCode (bash).
	shellMarkers: []string{"OPENCODE=1"},
	names:        EventNames{"the end of a turn (donegate's OpenCode plugin)", "nothing (the OpenCode plugin sends stops only)", "a shell or edit call, before it runs (donegate's OpenCode plugin)"},
	peekEvent:    "hook_event_name",
	read:         readPluginEvent(openCodeKey, "the OpenCode plugin", false),
	// The plugin's tool.execute.before sends a PreToolUse of the shell
	// and edit tools (args as OpenCode gives them: command, filePath) and
	// throws, which refuses the call, on a deny; nobody can be asked
	// there.
	write:       writeClaudeShaped(true),
	cannotAsk:   true,
	shellTool:   "bash",
	guardsTools: true,
	editTools:   []string{"write", "edit"},
	editedPaths: inputString("filePath"),
	settingsFiles: func(project string, getenv paths.Getenv, _ string) ([]string, []string) {
		config := configHome(getenv)
		return []string{filepath.Join(project, "opencode.json"), filepath.Join(project, ".opencode", "plugin", "donegate.js")},
			[]string{filepath.Join(config, "opencode", "opencode.json"), filepath.Join(config, "opencode", "plugin", "donegate.js")}
	},
	pluginDirs: pluginDirsOf("opencode", ".opencode"),
	planTool:   "todowrite",
	plan:       openCodePlan,
}

// configHome is the user's config dir: $XDG_CONFIG_HOME, else ~/.config.
func configHome(getenv paths.Getenv) string {
	if config := getenv("XDG_CONFIG_HOME"); config != "" {
		return config
	}
	return filepath.Join(paths.Home(getenv), ".config")
}

// pluginDirsOf is a pluginDirs of a host that loads every file of
// plugin/ and plugins/ in its dirs of a project (projectDirs) and its
// user config dir ($XDG_CONFIG_HOME/<user>) as a plugin.
func pluginDirsOf(user string, projectDirs ...string) func(string, paths.Getenv) []string {
	return func(project string, getenv paths.Getenv) []string {
		roots := []string{filepath.Join(configHome(getenv), user)}
		for _, d := range projectDirs {
			roots = append(roots, filepath.Join(project, d))
		}
		var dirs []string
		for _, root := range roots {
			dirs = append(dirs, filepath.Join(root, "plugin"), filepath.Join(root, "plugins"))
		}
		return dirs
	}
}

// openCodeKey is the field only the OpenCode plugin's events carry.
const openCodeKey = "opencode_version"

// Todo is one item of a plan a host sends with its event (OpenCode's todo
// list): content and status as the host names them.
type Todo struct {
	Content, Status string
}

// readPluginEvent reads the events of donegate's plugins (OpenCode's,
// which Kilo loads too, pi's extension, Amp's plugin), each told by its
// field key: Stop and PreToolUse, and with prompts the person's
// UserPromptSubmit. plugin names it for errors.
func readPluginEvent(key, plugin string, prompts bool) func(*Event, gjson.Result) error {
	return func(e *Event, root gjson.Result) error { return e.readPluginEvent(root, key, plugin, prompts) }
}

func (e *Event) readPluginEvent(root gjson.Result, key, plugin string, prompts bool) error {
	err := readStrings(root, []field{
		{"hook_event_name", &e.WireEventName},
		{"session_id", &e.SessionID},
		{"cwd", &e.Cwd},
		{"prompt_id", &e.PromptID},
		{"last_assistant_message", &e.LastAssistantMessage},
		{key, &e.ClientVersion},
	})
	if err != nil {
		return err
	}
	if err := e.nameEvent(nil); err != nil {
		return err
	}
	if e.HookEventName == EventPreToolUse {
		if err := readStrings(root, []field{{"tool_name", &e.ToolName}}); err != nil {
			return err
		}
		if in := root.Get("tool_input"); in.IsObject() {
			e.ToolInput = []byte(in.Raw)
		}
		return nil
	}
	if e.HookEventName == EventUserPromptSubmit && prompts {
		// The person's message, typed while the agent works (pi's
		// extension sends the release phrase so).
		return readStrings(root, []field{{"prompt", &e.Prompt}})
	}
	if e.HookEventName != EventStop {
		if prompts {
			return fmt.Errorf("%w: %s sends Stop, PreToolUse and UserPromptSubmit events only, not %q", ErrBadEvent, plugin, e.WireEventName)
		}
		return fmt.Errorf("%w: %s sends Stop and PreToolUse events only, not %q", ErrBadEvent, plugin, e.WireEventName)
	}
	if err := readBool(root, "stop_hook_active", &e.StopHookActive); err != nil {
		return err
	}
	todos := root.Get("todos")
	if !todos.Exists() || todos.Type == gjson.Null {
		return nil
	}
	if !todos.IsArray() {
		return fmt.Errorf("%w: field todos is a JSON %s, expected an array", ErrBadEvent, kind(todos))
	}
	e.Todos = []Todo{}
	var bad error
	todos.ForEach(func(_, t gjson.Result) bool {
		var it Todo
		if !t.IsObject() {
			bad = fmt.Errorf("%w: an item of todos is a JSON %s, expected an object", ErrBadEvent, kind(t))
			return false
		}
		if bad = readStrings(t, []field{{"content", &it.Content}, {"status", &it.Status}}); bad != nil {
			return false
		}
		e.Todos = append(e.Todos, it)
		return true
	})
	return bad
}

// openCodePlan is the todo list the OpenCode plugin sends with a stop,
// as OpenCode keeps it for the session (its todowrite tool). A cancelled
// item counts as done, as Gemini CLI's do: OpenCode's todowrite calls it
// "no longer needed". An empty list is no plan.
func openCodePlan(_ context.Context, e *Event, _ PlanQuery) (Plan, error) {
	if len(e.Todos) == 0 {
		return Plan{}, nil
	}
	items := make([]transcript.Item, 0, len(e.Todos))
	for _, t := range e.Todos {
		status := t.Status
		if status == "cancelled" {
			status = "completed"
		}
		items = append(items, transcript.Item{Title: t.Content, Status: status})
	}
	return Plan{Items: items, Source: "todo list (todowrite)"}, nil
}
