package hookio

import (
	"bytes"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
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
	// codex exec --output-schema makes the agent's final message, the
	// Stop's last_assistant_message, a JSON object.
	finalOutput: codexFinalOutput,
	planTool:    "update_plan",
}

// codexFinalOutput is the structured output a Codex agent hands in at
// its stop: its last message when that is a JSON object, which `codex
// exec --output-schema` makes it. A prose message is not one: like a
// Claude Code session that never calls StructuredOutput, a Codex session
// without an output schema hands in nothing.
func codexFinalOutput(e *Event) []byte {
	msg := bytes.TrimSpace([]byte(e.LastAssistantMessage))
	// Bounded like every JSON donegate parses: gjson recurses per level.
	if !jsondepth.Within(msg, MaxEventDepth) || !gjson.ValidBytes(msg) || !gjson.ParseBytes(msg).IsObject() {
		return nil
	}
	return msg
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
