package hookio

import (
	"path/filepath"

	"github.com/donegate/donegate/internal/paths"
)

// pi (@earendil-works/pi-coding-agent) has no hook that can hold an agent:
// donegate's extension for pi (plugin/pi/donegate.js, written by closer
// init --host pi into .pi/extensions/) runs stop-hook at its
// agent_before_settle, the last point at which a run can go on, and
// posttooluse-hook before its bash, write and edit calls. It sends the
// OpenCode plugin's events with pi's names and no todos (pi has no plan
// tool):
//
//	{"hook_event_name": "Stop", "pi_version": "1.6.0", "pi_mode": "print"
//	 | "tui" | "rpc" | "json", "session_id": "...", "transcript_path":
//	 "~/.pi/agent/sessions/.../<time>_<id>.jsonl", "cwd": "...",
//	 "prompt_id": "prompt-...", "stop_hook_active": false,
//	 "last_assistant_message": "..."}
//
// and reads Claude Code's Stop answer back: a block is appended as a
// message to the agent, with one more request asked of pi. A message the
// person types while the agent works that is donegate's release phrase
// comes to stop-hook --criteria as
//
//	{"hook_event_name": "UserPromptSubmit", ..., "prompt_id": "prompt-...",
//	 "prompt": "donegate release"}
//
// with the running turn's prompt_id: pi's input event fires at once for
// it (streamingBehavior "steer" or "followUp"), with source
// "interactive", which only the person's keyboard gives.

// piSpec: OpenCode's answers and events, pi's names and files.
var piSpec = hostSpec{
	title: "pi",
	// pi's process marker, inherited by its bash tool (its docs, and
	// measured with 1.6.0).
	shellMarkers: []string{"PI_CODING_AGENT=true"},
	names:        EventNames{"the end of a run (donegate's extension for pi, at agent_before_settle)", "the person's release phrase, typed while the agent works (donegate's extension for pi, at input)", "a shell or edit call, before it runs (donegate's extension for pi)"},
	// Measured with pi 1.6.0's TUI in tmux (TestPiPersonReleasesMidTurn).
	promptMidTurn: true,
	peekEvent:     "hook_event_name",
	read:          readPluginEvent(piKey, "donegate's extension for pi", true),
	write:         writeClaudeShaped(true),
	// The extension's tool_call handler blocks a denied call; nobody is
	// asked there.
	cannotAsk:   true,
	shellTool:   "bash",
	guardsTools: true,
	editTools:   []string{"write", "edit"},
	editedPaths: inputString("path"),
	settingsFiles: func(project string, getenv paths.Getenv, _ string) ([]string, []string) {
		agent := piAgentDir(getenv)
		return []string{filepath.Join(project, ".pi", "settings.json"), filepath.Join(project, ".pi", "extensions", "donegate.js")},
			[]string{filepath.Join(agent, "settings.json"), filepath.Join(agent, "extensions", "donegate.js")}
	},
	pluginDirs: func(project string, getenv paths.Getenv) []string {
		return []string{filepath.Join(project, ".pi", "extensions"), filepath.Join(piAgentDir(getenv), "extensions")}
	},
	// pi has no plan tool of its own.
	plan: noPlan,
}

// piKey is the field only the extension's events carry.
const piKey = "pi_version"

// piAgentDir is pi's user dir: $PI_CODING_AGENT_DIR, else ~/.pi/agent.
func piAgentDir(getenv paths.Getenv) string {
	if d := getenv("PI_CODING_AGENT_DIR"); d != "" {
		return d
	}
	return filepath.Join(paths.Home(getenv), ".pi", "agent")
}
