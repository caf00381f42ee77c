package hookio

import (
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
)

// Codex CLI: Claude Code's shapes, with turn_id and model; a block's
// reason never empty (Codex refuses an empty one, and allow is {}).
// Codex's app-server, so its TUI, shows a Stop's systemMessage as a
// warning, codex exec nowhere.
var codexSpec = hostSpec{
	title:     "Codex CLI",
	names:     claudeSpec.names,
	peekEvent: "hook_event_name",
	read:      (*Event).readCodex,
	write:     writeClaudeShaped(true),
	planTool:  "update_plan",
}

// readCodex reads Codex's events: Claude Code's, with turn_id and model.
func (e *Event) readCodex(root gjson.Result) error {
	if err := e.readClaudeShaped(root, []field{{"turn_id", &e.TurnID}, {"model", &e.Model}}); err != nil {
		return err
	}
	if e.PromptID == "" {
		// Codex keeps its turn_id across the continuations of a turn
		// (measured with 0.169.0): the turn donegate counts per.
		e.PromptID = e.TurnID
	}
	return nil
}

// codexRollout reports whether transcript is a Codex rollout: named
// rollout-*.jsonl (or .jsonl.zst), or under $CODEX_HOME.
func codexRollout(transcript string, getenv func(string) string) bool {
	if transcript == "" {
		return false
	}
	if strings.HasPrefix(filepath.Base(transcript), "rollout-") {
		return true
	}
	if getenv == nil {
		return false
	}
	home := getenv("CODEX_HOME")
	return home != "" && strings.HasPrefix(transcript, strings.TrimSuffix(home, "/")+"/")
}
