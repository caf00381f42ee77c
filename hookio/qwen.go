package hookio

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/transcript"
)

// Qwen Code: Claude Code's shapes, read and answered whatever the dialect
// (Qwen reads no other); only the person's own prompt carries
// submitted_prompt (see ResumesTurn). Its PostToolUse of
// run_shell_command tells a passing run (see ShellRunPassed).
var qwenSpec = hostSpec{
	// 0.24.4 sends UserPromptSubmit before every model request of a
	// turn: with prompt "" after a tool's result or a block; only the
	// person's prompt carries submitted_prompt.
	resumesTurn: func(e *Event) bool { return e.Prompt == "" },
	// PostToolUse already says it passed; the host's own status lines
	// must agree.
	shellRunPassed: func(resp gjson.Result) bool {
		status := "\n" + resp.Get("llmContent").Str + "\n"
		return strings.Contains(status, "\nExit Code: 0\n") && strings.Contains(status, "\nSignal: (none)\n")
	},
	title: "Qwen Code",
	// Measured on 0.24.4 (run_shell_command).
	shellMarkers: []string{"QWEN_CODE=1"},
	names:        claudeSpec.names,
	shellTool:    "run_shell_command",
	roles:        []Role{RoleStop, RoleSubagentStop, RoleGuardShell, RoleGuardEdit, RoleAgentRuns, RoleCriteriaSession, RoleCriteriaPrompt},
	joinsGuard:   true,
	// Measured on 0.24.4: a PreToolUse deny stops the call and tells the
	// model its reason; "ask" in qwen -p --yolo is a denial too. Both
	// edit tools take file_path.
	guardsTools: true,
	editTools:   []string{"write_file", "edit"},
	editedPaths: inputString("file_path"),
	settingsFiles: func(project string, getenv paths.Getenv, transcriptPath string) ([]string, []string) {
		return []string{filepath.Join(project, ".qwen", "settings.json")},
			[]string{filepath.Join(transcript.QwenDir(transcriptPath, paths.Home(getenv)), "settings.json")}
	},
	peekEvent: "hook_event_name",
	read: func(e *Event, root gjson.Result) error {
		return e.readClaudeShaped(root, []field{{"submitted_prompt", &e.Prompt}})
	},
	write: writeClaudeShaped(false),
	// Qwen gives up on a hook after 60 s whatever its timeout (measured
	// with 0.24.4: "Request timed out waiting for hook-execution-response",
	// the CLI exits 1 and the agent's turn is lost; QwenLM/qwen-code#11688).
	hookDeadline: 60 * time.Second,
	planTool:     "todo_write",
	plan:         qwenPlan,
}

// qwenPlan is the session's todo file (todo_write). It is the main
// agent's: a subagent must not be held on it, and keeps none of its own
// there.
func qwenPlan(_ context.Context, e *Event, q PlanQuery) (Plan, error) {
	if q.Subagent {
		return Plan{}, nil
	}
	items, found, err := transcript.QwenPlan(transcript.QwenTodoFile(transcript.QwenDir(e.TranscriptPath, q.Home), e.SessionID))
	return FoundPlan(items, found, err, "todo list (todo_write)")
}
