package hookio

import (
	"context"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/transcript"
)

// Claude Code (and the Claude Agent SDK, which runs it and sends its
// events unchanged): the shapes every other host is read onto.
var claudeSpec = hostSpec{
	// A session's transcript: <config dir>/projects/<slug>/<id>.jsonl,
	// each line with the session's cwd; a subagent's is agent-*.jsonl.
	sessions: &sessionRecords{
		globs: func(getenv paths.Getenv) []string {
			return []string{filepath.Join(paths.ClaudeDir(getenv, ""), "projects", "*", "*.jsonl")}
		},
		read: func(path string, head []byte) (string, string, bool) {
			id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
			cwd := firstLineWith(head, "cwd")
			return id, cwd, !strings.HasPrefix(id, "agent-") && cwd != ""
		},
	},
	// A command interrupted, or moved to the background, did not pass.
	shellRunPassed: func(resp gjson.Result) bool {
		return !resp.Get("interrupted").Bool() && !resp.Get("backgroundTaskId").Exists()
	},
	title: "Claude Code",
	// Claude Code's hook prompt_id is its telemetry's prompt.id; its
	// hooks get no OTEL_* variable, though the rest of its environment
	// (2.1.332: e2e TestHooksSeeOTELAsTheirHostsSpecSays).
	turnTelemetryKey: "prompt.id",
	hidesOTEL:        true,
	names:            EventNames{"Stop and SubagentStop", "SessionStart and UserPromptSubmit", "PreToolUse and PostToolUse"},
	shellTool:        ClaudeShellTool,
	// Every entry (the gate of StructuredOutput, the guard's two, the
	// agent's runs and the early start are Claude Code's own matchers).
	roles: []Role{RoleStop, RoleSubagentStop, RoleGatePre, RoleGuardShell, RoleGuardEdit, RoleGatePost, RoleAgentRuns, RoleStart, RoleCriteriaSession, RoleCriteriaPrompt},
	// Measured on 2.1.332: every Bash call, and !cmd typed at the prompt.
	shellMarkers: []string{"CLAUDECODE=1"},
	// Measured on 2.1.332: "env" there reaches the hooks from the next
	// session on.
	projectEnvFiles: []string{".claude/settings.json", ".claude/settings.local.json"},
	// Measured on 2.1.332 in tmux: UserPromptSubmit 0.04 s after Enter,
	// mid-turn, with the turn's prompt_id.
	promptMidTurn: true,
	// Measured on 2.1.332: a PreToolUse deny stops any tool's call, and
	// "ask" prompts the person even for a tool the settings allow (in
	// claude -p it is a denial).
	guardsTools: true,
	// Write, Edit and MultiEdit take file_path, NotebookEdit
	// notebook_path.
	editTools: []string{"Write", "Edit", "MultiEdit", "NotebookEdit"},
	settingsFiles: func(project string, getenv paths.Getenv, transcriptPath string) ([]string, []string) {
		return []string{filepath.Join(project, ".claude", "settings.json"), filepath.Join(project, ".claude", "settings.local.json")},
			[]string{filepath.Join(paths.ClaudeDir(getenv, transcriptPath), "settings.json")}
	},
	editedPaths: func(e *Event) []string {
		switch e.ToolName {
		case "Write", "Edit", "MultiEdit":
			return nonEmpty(gjson.GetBytes(e.ToolInput, "file_path").Str)
		case "NotebookEdit":
			return nonEmpty(gjson.GetBytes(e.ToolInput, "notebook_path").Str)
		}
		return nil
	},
	peekEvent: "hook_event_name",
	read:      (*Event).readClaude,
	settle: func(ctx context.Context, ev *Event, d Dialect, v Verdict, wait transcript.Wait) {
		// Which answer holds the agent depends on the CLI's version,
		// which its transcript's lines carry: read at a hold only.
		if v.Block && ev.IsStop() && d == DialectClaudeCode && ev.ClientVersion == "" {
			ev.ClientVersion = ev.claudeVersion(ctx, wait)
		}
	},
	write: func(w io.Writer, ev *Event, d Dialect, v Verdict) error {
		return writeAnswer(w, ev.HookEventName, d, v, d == DialectClaudeCode && TakesStopContext(ev.ClientVersion))
	},
	plan:                  claudePlan,
	transcriptHasTexts:    true,
	runsHooksInBackground: true,
}

// claudeVersion reads the version of the Claude Code that sent a stop
// from its transcript, waiting as wait allows for a main agent's that
// holds no message yet. A subagent's own transcript and the main one
// carry the same CLI's version; a subagent stops within a turn whose
// prompt the main transcript holds already, so that is not waited for.
func (e *Event) claudeVersion(ctx context.Context, wait transcript.Wait) string {
	if e.HookEventName == EventSubagentStop {
		if v := transcript.ClientVersion(e.AgentTranscriptPath); v != "" {
			return v
		}
		return transcript.ClientVersion(e.TranscriptPath)
	}
	return transcript.AwaitClientVersion(ctx, e.TranscriptPath, wait)
}

// claudePlan reads a Claude Code agent's plan: the Task tools' list
// (files under the Claude config dir, named by $CLAUDE_CODE_TASK_LIST_ID
// or the session) when it has tasks, else the latest TodoWrite call in
// the transcript; at a subagent's stop, the subagent's own TodoWrite.
func claudePlan(ctx context.Context, e *Event, q PlanQuery) (Plan, error) {
	// Task files are written when the tool runs; only the transcript lags,
	// at a stop and at a gated tool alike. At PreToolUse the gated call
	// reached the transcript 16-33 ms after the hook started in 5 of 6
	// real sessions, and the TodoWrite before it can lag too: read at
	// once, the plan could be missing, and an early StructuredOutput with
	// open work accepted.
	catchUp := func(path string) {
		switch {
		case q.Wait == transcript.Wait{}:
		case q.ToolUse:
			transcript.HoldsToolUse(ctx, path, e.ToolUseID, q.Wait)
		default:
			transcript.CaughtUp(ctx, path, e.LastAssistantMessage, q.Wait)
		}
	}
	if q.Subagent || e.AgentTranscriptPath != "" {
		catchUp(e.AgentTranscriptPath)
		items, found, err := transcript.LatestTodoWrite(ctx, e.AgentTranscriptPath, transcript.ReadOptions{})
		return FoundPlan(items, found, err, "subagent's todo list")
	}
	listID := q.getenv("CLAUDE_CODE_TASK_LIST_ID")
	if listID == "" {
		listID = e.SessionID
	}
	var dir string // no environment: no config dir to read the list in
	if q.Getenv != nil {
		dir = paths.ClaudeDir(q.Getenv, e.TranscriptPath)
	}
	items, found, err := transcript.ReadTasks(transcript.TaskDir(dir, listID))
	if err != nil || found {
		return FoundPlan(items, found, err, "task list")
	}
	if e.TranscriptPath == "" {
		return Plan{}, nil
	}
	catchUp(e.TranscriptPath)
	items, found, err = transcript.LatestTodoWrite(ctx, e.TranscriptPath, transcript.ReadOptions{SkipSidechain: true})
	return FoundPlan(items, found, err, "todo list")
}

// ClaudeShellTool is Claude Code's shell tool.
const ClaudeShellTool = "Bash"

// claudeFields are the string fields of Claude Code's wire format, which
// Codex and Qwen Code share.
func (e *Event) claudeFields() []field {
	return []field{
		{"hook_event_name", &e.WireEventName},
		{"session_id", &e.SessionID},
		{"transcript_path", &e.TranscriptPath},
		{"cwd", &e.Cwd},
		{"prompt_id", &e.PromptID},
		{"permission_mode", &e.PermissionMode},
		{"last_assistant_message", &e.LastAssistantMessage},
		{"agent_id", &e.AgentID},
		{"agent_type", &e.AgentType},
		{"agent_transcript_path", &e.AgentTranscriptPath},
		{"tool_name", &e.ToolName},
		{"tool_use_id", &e.ToolUseID},
	}
}

// readClaude reads Claude Code's wire format.
func (e *Event) readClaude(root gjson.Result) error {
	// UserPromptSubmit's prompt: the person's message (see gate's
	// ReleasePhrase).
	return e.readClaudeShaped(root, []field{{"prompt", &e.Prompt}})
}

// readClaudeShaped reads Claude Code's wire format and the fields more
// that extra names: Codex's and Qwen's are Claude Code's with a few more.
func (e *Event) readClaudeShaped(root gjson.Result, extra []field) error {
	if err := readStrings(root, append(e.claudeFields(), extra...)); err != nil {
		return err
	}
	if err := e.nameEvent(nil); err != nil {
		return err
	}
	e.BackgroundRunning = runningTasks(root.Get("background_tasks"))
	return e.readToolAndStop(root, "tool_response")
}

// runningTasks names the tasks of Claude Code's background_tasks that
// have not ended (measured with 2.1.332: a run_in_background shell is
// "running" while the agent waits for it, and gone from the list at the
// stop after it ended). Anything that is not such a list is none.
func runningTasks(tasks gjson.Result) []string {
	if !tasks.IsArray() {
		return nil
	}
	var out []string
	tasks.ForEach(func(_, t gjson.Result) bool {
		switch t.Get("status").Str {
		case "running", "pending":
		default:
			return true
		}
		name := t.Get("description").Str
		for _, k := range []string{"command", "id"} {
			if name == "" {
				name = t.Get(k).Str
			}
		}
		if name == "" {
			name = "a background task"
		}
		if typ := t.Get("type").Str; typ != "" {
			name = typ + " " + strconv.Quote(name)
		}
		out = append(out, name)
		return len(out) < 20
	})
	return out
}
