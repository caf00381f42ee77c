package hookio

import (
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/paths"
)

// Qoder CLI (qodercli), by contract: no client runs here (it needs
// Qoder's own service). Its docs give Claude Code's hook shapes —
// session_id, transcript_path, cwd, hook_event_name, permission_mode,
// agent_id and agent_type on every event; Stop and SubagentStop held by
// Claude Code's block; PreToolUse denied as Claude Code's — registered
// in .qoder/settings.json (and settings.local.json, ~/.qoder/settings.json),
// timeouts in seconds. Its tools are Claude Code's names (Bash, Write,
// Edit). What tells it from Claude Code is its transcript, under a
// .qoder dir (~/.qoder/projects/...); an event told as Claude Code's is
// answered the same way.
var qoderSpec = hostSpec{
	title: "Qoder CLI",
	names: claudeSpec.names,
	// Its docs do not say whether a Stop after a block carries
	// stop_hook_active: nothing to go by.
	afterPersonsPrompt: func(*Event) (bool, bool) { return false, false },
	shellTool:          "Bash",
	roles:              []Role{RoleStop, RoleSubagentStop, RoleGuardShell, RoleGuardEdit},
	joinsGuard:         true,
	guardsTools:        true,
	editTools:          []string{"Write", "Edit"},
	editedPaths:        inputString("file_path"),
	settingsFiles: func(project string, getenv paths.Getenv, _ string) ([]string, []string) {
		user := filepath.Join(paths.Home(getenv), ".qoder")
		return []string{filepath.Join(project, ".qoder", "settings.json"), filepath.Join(project, ".qoder", "settings.local.json")},
			[]string{filepath.Join(user, "settings.json")}
	},
	peekEvent: "hook_event_name",
	read: func(e *Event, root gjson.Result) error {
		return e.readClaudeShaped(root, nil)
	},
	write: writeClaudeShaped(true),
	plan:  noPlan,
}
