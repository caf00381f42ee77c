package hookio

import (
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/paths"
)

// Factory Droid (droid, 0.225.2 measured): Claude Code's hook shapes,
// registered under the "hooks" key of .factory/settings.json (0.225.2
// reads no .factory/hooks.json, which its docs name), each event
// carrying its transcript under ~/.factory/sessions/, and a Stop that
// adds permission_mode, message_id, tool_execution_count and
// elapsed_time. Claude Code's block continues the agent; Droid has no cap
// of its own on continuations. Its shell tool is Execute, its edit tools
// Create and Edit (file_path); droid exec fires no UserPromptSubmit.
var droidSpec = hostSpec{
	title:       "Factory Droid",
	names:       claudeSpec.names,
	shellTool:   "Execute",
	roles:       []Role{RoleStop, RoleSubagentStop, RoleGuardShell, RoleGuardEdit},
	joinsGuard:  true,
	guardsTools: true,
	// Measured on 0.225.2: a PreToolUse "ask" under droid exec --auto
	// low let the call run (it wrote the hooks' settings file); a deny
	// stops it and tells the model why. What the guard would ask is
	// denied.
	cannotAsk:   true,
	editTools:   []string{"Create", "Edit"},
	editedPaths: inputString("file_path"),
	settingsFiles: func(project string, getenv paths.Getenv, _ string) ([]string, []string) {
		user := filepath.Join(paths.Home(getenv), ".factory")
		return []string{filepath.Join(project, ".factory", "settings.json"), filepath.Join(project, ".factory", "settings.local.json"), filepath.Join(project, ".factory", "hooks.json")},
			[]string{filepath.Join(user, "settings.json"), filepath.Join(user, "settings.local.json"), filepath.Join(user, "hooks.json")}
	},
	peekEvent: "hook_event_name",
	read: func(e *Event, root gjson.Result) error {
		return e.readClaudeShaped(root, nil)
	},
	write: writeClaudeShaped(true),
	// droid exec 0.225.2 offers its agent no todo tool (its tool list,
	// measured).
	plan: noPlan,
}

// droidStopKey is the field only Droid's stops carry.
const droidStopKey = "tool_execution_count"
