package hookio

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/transcript"
)

// Codex CLI: Claude Code's shapes, with turn_id and model; a block's
// reason never empty (Codex refuses an empty one, and allow is {}).
// Codex's app-server, so its TUI, shows a Stop's systemMessage as a
// warning, codex exec nowhere.
var codexSpec = hostSpec{
	// A session's rollout: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl,
	// its first line the session_meta with the session's id and cwd.
	sessions: &sessionRecords{
		globs: func(getenv paths.Getenv) []string {
			return []string{filepath.Join(codexHome(getenv), "sessions", "*", "*", "*", "rollout-*.jsonl")}
		},
		read: func(_ string, head []byte) (string, string, bool) {
			first, _, _ := bytes.Cut(head, []byte("\n"))
			if gjson.GetBytes(first, "type").Str != "session_meta" {
				return "", "", false
			}
			meta := gjson.GetBytes(first, "payload")
			id, cwd := meta.Get("id").Str, meta.Get("cwd").Str
			return id, cwd, id != "" && cwd != ""
		},
	},
	title: "Codex CLI",
	// Measured on 0.171.0 (exec_command): each call's own id.
	shellMarkers: []string{"CODEX_TOOL_CALL_ID"},
	names:        claudeSpec.names,
	// Measured on 0.171.0: its PreToolUse names the exec_command tool
	// "Bash", with tool_input.command; a deny stops the call and the
	// model reads "Command blocked by PreToolUse hook: REASON". An "ask"
	// is not honoured (the command ran). Its edit tool, apply_patch,
	// comes as tool_name apply_patch with the patch in
	// tool_input.command (see codexPatchPaths).
	shellTool: "Bash",
	editTools: []string{"apply_patch"},
	editedPaths: func(e *Event) []string {
		if e.ToolName != "apply_patch" {
			return nil
		}
		return codexPatchPaths(gjson.GetBytes(e.ToolInput, "command").Str)
	},
	settingsFiles: func(project string, getenv paths.Getenv, _ string) ([]string, []string) {
		home := codexHome(getenv)
		return []string{filepath.Join(project, ".codex", "hooks.json"), filepath.Join(project, ".codex", "config.toml")},
			[]string{filepath.Join(home, "hooks.json"), filepath.Join(home, "config.toml")}
	},
	roles: []Role{RoleStop, RoleSubagentStop, RoleGuardShell, RoleGuardEdit, RoleCriteriaSession, RoleCriteriaPrompt},
	// Measured on 0.171.0 in tmux: a message typed in the TUI while
	// the agent works is "to be submitted after next tool call", and
	// fires UserPromptSubmit then, with its text and the running
	// turn's turn_id, before the turn's Stop.
	promptMidTurn: true,
	joinsGuard:    true,
	guardsTools:   true,
	cannotAsk:     true,
	peekEvent:     "hook_event_name",
	read:          (*Event).readCodex,
	write:         writeClaudeShaped(true),
	// codex exec --output-schema makes the agent's final message, the
	// Stop's last_assistant_message, a JSON object.
	finalOutput: codexFinalOutput,
	planTool:    "update_plan",
	plan:        codexPlan,
}

// codexPlan reads a Codex agent's plan from its rollout (see
// transcript.CodexPlan).
func codexPlan(ctx context.Context, e *Event, q PlanQuery) (Plan, error) {
	items, found, err := codexPlanItems(ctx, e, q)
	return FoundPlan(items, found, err, "plan (update_plan)")
}

// codexPlanRecord is what the Codex plan reader keeps of a session (see
// Memo): what the goal calls of its rollout say up to where they were
// read. A session without a goal would otherwise have its whole rollout
// searched for one at every stop (62 ms on 256 MiB); with it, a stop
// searches what was appended since the previous one.
type codexPlanRecord struct {
	// Transcript is the rollout read; a record of another is not used.
	Transcript string `json:"transcript,omitempty"`
	transcript.CodexGoalState
}

// codexPlanItems reads the Codex plan in the rollout q.Path, going on
// from the session's record of its goal calls, and records how far they
// were read. Only the main agent's rollout is recorded: a subagent's is
// another file.
func codexPlanItems(ctx context.Context, e *Event, q PlanQuery) ([]transcript.Item, bool, error) {
	path := q.Path
	if q.Memo == nil || path != e.TranscriptPath {
		return transcript.CodexPlan(ctx, path)
	}
	var from transcript.CodexGoalState
	if rec := (codexPlanRecord{}); q.Memo.Recall(&rec) && rec.Transcript == path {
		from = rec.CodexGoalState
	}
	items, found, next, err := transcript.CodexPlanFrom(ctx, path, from)
	if err != nil || next == from {
		return items, found, err
	}
	// Another hook of the session may have read further in the same file
	// meanwhile: the further record is kept.
	_ = q.Memo.Update(func(recall func(any) bool) any {
		if rec := (codexPlanRecord{}); recall(&rec) && rec.Transcript == path && rec.SameFile(next.Position) && rec.Offset > next.Offset {
			return nil
		}
		return codexPlanRecord{Transcript: path, CodexGoalState: next}
	})
	return items, found, nil
}

// codexFinalOutput is the structured output a Codex agent hands in at
// its stop: its last message when that is a JSON object, which `codex
// exec --output-schema` makes it. A prose message is not one: like a
// Claude Code session that never calls StructuredOutput, a Codex session
// without an output schema hands in nothing.
//
// A Codex started without --output-schema, or one the hook cannot tell
// it of, sends a JSON message as any other message: a stop (see
// codexWithSchema).
func codexFinalOutput(e *Event) []byte {
	msg := bytes.TrimSpace([]byte(e.LastAssistantMessage))
	// Bounded like every JSON donegate parses: gjson recurses per level.
	// The process tree is read only for a JSON message, as it was in the
	// gate: a prose message is none whatever the flags.
	if !jsondepth.Within(msg, MaxEventDepth) || !gjson.ValidBytes(msg) || !gjson.ParseBytes(msg).IsObject() || !(e.SchemaTold || codexWithSchema()) {
		return nil
	}
	return msg
}

// readCodex reads Codex's events: Claude Code's, with turn_id and model.
func (e *Event) readCodex(root gjson.Result) error {
	if err := e.readClaudeShaped(root, []field{{"turn_id", &e.TurnID}, {"model", &e.Model}, {"prompt", &e.Prompt}}); err != nil {
		return err
	}
	if e.PromptID == "" {
		// Codex keeps its turn_id across the continuations of a turn
		// (measured with 0.169.0): the turn donegate counts per.
		e.PromptID = e.TurnID
	}
	return nil
}

// codexHome is Codex's home: $CODEX_HOME when absolute, else ~/.codex.
func codexHome(getenv paths.Getenv) string {
	home := getenv("CODEX_HOME")
	if !filepath.IsAbs(home) {
		home = filepath.Join(paths.Home(getenv), ".codex")
	}
	return home
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

// codexWithSchema reports whether the Codex that runs the hook was
// started with --output-schema: Codex 0.169.0 says it nowhere a hook can
// read (the rollout, every hook event: the same with and without it,
// measured 2026-11-27), but the hook's parent is the codex binary, whose
// arguments name it. Only then is a final message that is a JSON object a
// structured answer. false when it cannot be told (no /proc, or no codex
// among the hook's nearest ancestors): the message is a message and the
// stop is checked as a stop, so that a JSON message is never a way
// around the stop's checks. Read once: the hook's ancestors do not change
// while it runs.
var codexWithSchema = sync.OnceValue(func() bool {
	for _, args := range proc.Ancestors(3) {
		if len(args) == 0 {
			continue
		}
		prog := filepath.Base(args[0])
		if len(args) > 1 && (prog == "node" || prog == "bun") {
			prog, args = filepath.Base(args[1]), args[1:]
		}
		if prog != "codex" && prog != "codex.js" {
			continue
		}
		return hasOutputSchema(args[1:])
	}
	return false
})

// hasOutputSchema reports whether Codex arguments ask for an output
// schema (--output-schema FILE or --output-schema=FILE).
func hasOutputSchema(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--output-schema" || strings.HasPrefix(a, "--output-schema=") {
			return true
		}
	}
	return false
}

// codexPatchPaths are the files an apply_patch patch writes: each path of
// its "*** Add File: ", "*** Update File: ", "*** Delete File: " and
// "*** Move to: " lines, as the patch gives them (relative to the cwd,
// or absolute).
func codexPatchPaths(patch string) []string {
	var out []string
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, head := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "} {
			if p, ok := strings.CutPrefix(line, head); ok && strings.TrimSpace(p) != "" {
				out = append(out, strings.TrimSpace(p))
			}
		}
	}
	return out
}
