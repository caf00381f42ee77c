package hookio

import (
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/paths"
)

// Amp (@ampcode/cli) has no hook that can hold an agent: donegate's
// plugin for Amp (plugin/amp/donegate.ts, written by closer init --host
// amp into .amp/plugins/, loaded when Amp runs with PLUGINS=all) runs
// stop-hook at its agent.end, which Amp awaits at the end of a turn, and
// posttooluse-hook at its tool.call of a shell or edit tool. It sends the
// OpenCode plugin's events with Amp's names:
//
//	{"hook_event_name": "Stop", "amp_executor": "local" | "remote",
//	 "session_id": "T-...", "cwd": "...", "prompt_id": "T-...-<message>",
//	 "stop_hook_active": false, "last_assistant_message": "..."}
//
//	{"hook_event_name": "PreToolUse", "amp_executor": "local", ...,
//	 "tool_name": "Bash", "tool_input": {"command": "...", "cwd": "..."}}
//
// A shell call (Bash, shell_command) comes as Bash with its command, an
// edit (edit_file, create_file, apply_patch) with the files it writes
// ({"paths": [...]}), both as Amp's own helpers read them. It reads Claude
// Code's answers back: a Stop's block becomes {action: "continue",
// userMessage: reason}, a denied call {action: "reject-and-continue"}.
// From Amp's plugin API as its CLI (0.0.1790142911) prints it (`amp
// plugins show-docs`), run in Amp's own plugin runtime by the e2e tests;
// Amp's agent needs Amp's service, which is not reached here.

// ampSpec: OpenCode's answers and events, Amp's names and files.
var ampSpec = hostSpec{
	title:     "Amp",
	names:     EventNames{"the end of a turn (donegate's plugin for Amp, at agent.end)", "nothing (the plugin sends stops only)", "a shell or edit call, before it runs (donegate's plugin for Amp, at tool.call)"},
	peekEvent: "hook_event_name",
	read:      readPluginEvent(ampKey, "donegate's plugin for Amp", false),
	write:     writeClaudeShaped(true),
	// The plugin's tool.call answers reject-and-continue; nobody is
	// asked there.
	cannotAsk:   true,
	shellTool:   "Bash",
	guardsTools: true,
	editTools:   []string{"edit_file", "create_file", "apply_patch"},
	editedPaths: func(e *Event) []string {
		var paths []string
		for _, p := range gjson.GetBytes(e.ToolInput, "paths").Array() {
			if p.Str != "" {
				paths = append(paths, p.Str)
			}
		}
		return paths
	},
	settingsFiles: func(project string, getenv paths.Getenv, _ string) ([]string, []string) {
		user := filepath.Join(configHome(getenv), "amp")
		return []string{filepath.Join(project, ".amp", "settings.json"), filepath.Join(project, ".amp", "plugins", AmpPluginFile)},
			[]string{filepath.Join(user, "settings.json"), filepath.Join(user, "plugins", AmpPluginFile)}
	},
	pluginDirs: func(project string, getenv paths.Getenv) []string {
		return []string{filepath.Join(project, ".amp", "plugins"), filepath.Join(configHome(getenv), "amp", "plugins")}
	},
	// The plugin sends no todo list of Amp's.
	plan: noPlan,
}

// ampKey is the field only the plugin's events under Amp carry.
const ampKey = "amp_executor"

// AmpPluginFile is the name of donegate's plugin in Amp's plugin dirs.
const AmpPluginFile = "donegate.ts"
