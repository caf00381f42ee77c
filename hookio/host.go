package hookio

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
)

// Host is the agent host whose hook sent an event: it decides how the
// event is read and how the answer is written. Everything past hookio
// sees one normalised Event whatever the host, and asks Host only for
// what lives in the host's own files (where the plan is kept, say).
type Host string

// The hosts donegate answers. The Claude Agent SDK runs Claude Code and
// sends its events unchanged: it is HostClaude.
const (
	HostClaude  Host = "claude"
	HostCodex   Host = "codex"
	HostQwen    Host = "qwen"
	HostGemini  Host = "gemini"
	HostCopilot Host = "copilot"
	HostCursor  Host = "cursor"
	// HostVSCode is GitHub Copilot's agent in VS Code, which runs the
	// hooks of .claude/settings.json and .github/hooks/*.json with events
	// of its own shape (from its docs: no VS Code runs here).
	HostVSCode Host = "vscode"
	// HostOpenCode is OpenCode, through donegate's OpenCode plugin (see
	// readOpenCode): it has no hooks of its own that could hold an agent.
	HostOpenCode Host = "opencode"
)

// Hosts lists every host, in the order docs and errors name them.
var Hosts = []Host{HostClaude, HostCodex, HostQwen, HostGemini, HostCopilot, HostCursor, HostVSCode, HostOpenCode}

// ParseHost accepts a host's name as flags and closer take it.
func ParseHost(s string) (Host, error) {
	for _, h := range Hosts {
		if string(h) == s {
			return h, nil
		}
	}
	names := make([]string, len(Hosts))
	for i, h := range Hosts {
		names[i] = string(h)
	}
	return "", fmt.Errorf("unknown host %q (valid: %s)", s, strings.Join(names, ", "))
}

// Title is the host's name as its users know it, for messages.
func (h Host) Title() string {
	switch h {
	case HostClaude:
		return "Claude Code"
	case HostCodex:
		return "Codex CLI"
	case HostQwen:
		return "Qwen Code"
	case HostGemini:
		return "Gemini CLI"
	case HostCopilot:
		return "Copilot CLI"
	case HostCursor:
		return "Cursor"
	case HostVSCode:
		return "VS Code"
	case HostOpenCode:
		return "OpenCode"
	}
	return string(h)
}

// EventNames are the names a host gives the events each donegate hook
// answers, for the messages that say where to register it.
type EventNames struct {
	Stop     string // stop-hook's
	Criteria string // stop-hook --criteria's
	Tool     string // posttooluse-hook's
}

// ShellTool is the host's shell tool whose passing runs its PostToolUse
// tells (see Event.ShellRunPassed); "" where the host's tool results do
// not say how a command ended.
func (h Host) ShellTool() string {
	switch h {
	case HostClaude:
		return ClaudeShellTool
	case HostQwen:
		return "run_shell_command"
	}
	return ""
}

// EventNames are the host's names of the events each hook answers.
func (h Host) EventNames() EventNames {
	switch h {
	case HostGemini:
		return EventNames{"AfterAgent", "SessionStart and BeforeAgent", "BeforeTool and AfterTool"}
	case HostCopilot:
		return EventNames{"agentStop and subagentStop", "nothing (Copilot CLI ignores what those hooks answer)", "preToolUse"}
	case HostCursor:
		return EventNames{"stop and subagentStop", "sessionStart", "preToolUse and postToolUse"}
	case HostVSCode:
		return EventNames{"Stop and SubagentStop", "SessionStart", "PreToolUse and PostToolUse"}
	case HostOpenCode:
		return EventNames{"the end of a turn (donegate's OpenCode plugin)", "nothing (the OpenCode plugin sends stops only)", "nothing (the OpenCode plugin sends stops only)"}
	}
	return EventNames{"Stop and SubagentStop", "SessionStart and UserPromptSubmit", "PreToolUse and PostToolUse"}
}

// geminiEvents are the event names only Gemini CLI sends (its
// SessionStart and SessionEnd share Claude Code's names and are told
// apart otherwise: see DetectHost).
var geminiEvents = map[string]bool{
	"AfterAgent": true, "BeforeAgent": true, "BeforeTool": true, "AfterTool": true,
	"BeforeModel": true, "AfterModel": true, "BeforeToolSelection": true,
	"PreCompress": true,
}

// detectKeys are the top-level keys DetectHost looks at.
type detectKeys struct {
	eventName, sessionID, transcript                                 string
	hasEventName, turnID, model, camelSession, cursor, qwenStopStats bool
	camelEventName, openCode                                         bool
}

// DetectHost names the host that sent the raw event, from its fields and,
// where the fields leave it open, the hook's environment (getenv may be
// nil: no environment). An event that is none of the others' is Claude
// Code's, read exactly as it always was:
//
//   - Cursor: conversation_id, generation_id or cursor_version, which no
//     other host sends (its events name themselves in camelCase, and
//     Cursor also runs .claude/settings.json hooks with these payloads);
//
//   - VS Code: a camelCase sessionId and hookEventName (its docs'
//     common fields), no hook_event_name;
//
//   - Copilot CLI: a camelCase sessionId, and neither hook_event_name nor
//     hookEventName;
//
//   - Gemini CLI: its own event names (AfterAgent, BeforeAgent, ...), or a
//     SessionStart/SessionEnd whose session is $GEMINI_SESSION_ID or
//     whose transcript is a Gemini chat (under .gemini/tmp);
//
//   - Codex CLI: turn_id and model (Claude Code sends no turn_id), or
//     model with a rollout transcript (rollout-*.jsonl) or one under
//     $CODEX_HOME. CODEX_HOME alone decides nothing: a user's shell may
//     export it while Claude Code runs;
//
//   - Qwen Code: a transcript under a .qwen dir, or a Stop carrying the
//     context_usage and context_limit that only Qwen adds.
//
//   - OpenCode: opencode_version, which donegate's OpenCode plugin sends
//     and no host does.
//
// Invalid JSON is Claude Code's: ParseEvent reports it as it always has.
func DetectHost(raw []byte, getenv func(string) string) Host {
	var k detectKeys
	root := gjson.ParseBytes(raw)
	if !root.IsObject() {
		return HostClaude
	}
	// One pass over the top-level keys: on a recorded Stop event of
	// 1.2 KB it costs about as much as one gjson Get.
	root.ForEach(func(key, v gjson.Result) bool {
		// The first of duplicate keys counts, as it does for gjson's Get,
		// which ParseEvent reads with.
		switch key.Str {
		case "hook_event_name":
			if !k.hasEventName {
				k.hasEventName, k.eventName = true, v.Str
			}
		case "session_id":
			if k.sessionID == "" {
				k.sessionID = v.Str
			}
		case "transcript_path":
			if k.transcript == "" {
				k.transcript = v.Str
			}
		case "turn_id":
			k.turnID = true
		case "model":
			k.model = true
		case "sessionId":
			k.camelSession = true
		case "hookEventName":
			k.camelEventName = true
		case "conversation_id", "generation_id", "cursor_version":
			k.cursor = true
		case "context_limit":
			k.qwenStopStats = true
		case openCodeKey:
			k.openCode = true
		}
		return true
	})
	switch {
	case k.openCode:
		return HostOpenCode
	case k.cursor:
		return HostCursor
	case k.camelSession && k.camelEventName && !k.hasEventName:
		return HostVSCode
	case !k.hasEventName:
		if k.camelSession {
			return HostCopilot
		}
		return HostClaude
	case geminiEvents[k.eventName]:
		return HostGemini
	case k.turnID && k.model:
		return HostCodex
	case k.model && codexRollout(k.transcript, getenv):
		return HostCodex
	case underDir(k.transcript, ".qwen"):
		return HostQwen
	case k.qwenStopStats && (k.eventName == EventStop || k.eventName == EventSubagentStop):
		return HostQwen
	case (k.eventName == EventSessionStart || k.eventName == "SessionEnd") && geminiSession(k.sessionID, k.transcript, getenv):
		return HostGemini
	}
	return HostClaude
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

// geminiSession reports whether a SessionStart or SessionEnd comes from
// Gemini CLI: its transcript is a Gemini chat, or Gemini named the
// session in the hook's environment.
func geminiSession(sessionID, transcript string, getenv func(string) string) bool {
	if strings.Contains(transcript, "/.gemini/tmp/") {
		return true
	}
	return getenv != nil && sessionID != "" && getenv("GEMINI_SESSION_ID") == sessionID
}

// underDir reports whether path has a directory element named dir.
func underDir(path, dir string) bool {
	return strings.Contains(path, "/"+dir+"/")
}
