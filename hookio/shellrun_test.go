package hookio

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Claude Code (2.1.331, recorded) sends PostToolUse for a Bash call that
// exited 0 and PostToolUseFailure otherwise; a call run in the
// background, or interrupted, says nothing of how its command ends.
func TestShellRunPassed(t *testing.T) {
	recorded, err := os.ReadFile("../testdata/events/posttooluse-bash.json")
	require.NoError(t, err)
	failed, err := os.ReadFile("../testdata/events/claude/posttoolusefailure-bash.json")
	require.NoError(t, err)
	ok := string(recorded)
	tests := []struct {
		name    string
		event   string
		command string
		passed  bool
	}{
		{"recorded pass", ok, "echo ok; echo err >&2", true},
		{"recorded failure", string(failed), "", false},
		{"in the background", strings.Replace(ok, `"description":"pass"`, `"description":"pass","run_in_background":true`, 1), "", false},
		{"a background task's id", strings.Replace(ok, `"interrupted":false`, `"interrupted":false,"backgroundTaskId":"b1"`, 1), "", false},
		{"interrupted", strings.Replace(ok, `"interrupted":false`, `"interrupted":true`, 1), "", false},
		{"another tool", strings.Replace(ok, `"tool_name":"Bash"`, `"tool_name":"Edit"`, 1), "", false},
		{"at PreToolUse", strings.Replace(ok, `"PostToolUse"`, `"PreToolUse"`, 1), "", false},
		{"no command", strings.Replace(ok, `"command":"echo ok; echo err >&2",`, ``, 1), "", false},
		{"a command that is not a string", strings.Replace(ok, `"command":"echo ok; echo err >&2"`, `"command":["echo"]`, 1), "", false},
		{"no response", strings.Replace(ok, `"tool_response":{"stdout":"ok\nerr","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},`, ``, 1), "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := Parse([]byte(tt.event), HostClaude)
			require.NoError(t, err)
			command, passed := ev.ShellRunPassed()
			assert.Equal(t, tt.passed, passed)
			assert.Equal(t, tt.command, command)
		})
	}
}

// What each other host's shell tool result holds, recorded from the real
// clients: only Qwen Code's PostToolUse says a run passed (it is sent for
// an exit 0 only, and its status lines say so); Codex's PostToolUse,
// Gemini's AfterTool and Copilot's postToolUse come for a failing run
// too, and only text written for the model tells the exit status.
func TestShellRunPassedByHost(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile("../testdata/events/" + name)
		require.NoError(t, err)
		return string(data)
	}
	qwenOK := read("qwen/posttooluse-shell.json")
	tests := []struct {
		name    string
		event   string
		command string
	}{
		{"qwen: passed", qwenOK, "echo ok"},
		{"qwen: failed (PostToolUseFailure)", read("qwen/posttoolusefailure-shell.json"), ""},
		{"qwen: in the background", strings.Replace(qwenOK, `"is_background":false`, `"is_background":true`, 1), ""},
		{"qwen: in a directory of its own", strings.Replace(qwenOK, `"is_background":false`, `"is_background":false,"directory":"sub"`, 1), ""},
		{"qwen: status lines that do not say exit 0", strings.Replace(qwenOK, `Exit Code: 0`, `Exit Code: (none)`, 1), ""},
		{"qwen: killed by a signal", strings.Replace(qwenOK, `Signal: (none)`, `Signal: 15`, 1), ""},
		{"codex: output only, exit 0", read("codex/posttooluse-bash-ok.json"), ""},
		{"codex: output only, exit 3", read("codex/posttooluse-bash-exit3.json"), ""},
		{"gemini: exit 0", read("gemini/aftertool-shell-ok.json"), ""},
		{"gemini: exit 3", read("gemini/aftertool-shell-exit3.json"), ""},
		{"copilot: exit 0", read("copilot/posttooluse-bash-ok.json"), ""},
		{"copilot: exit 3, resultType success", read("copilot/posttooluse-bash-exit3.json"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := Parse([]byte(tt.event), DetectHost([]byte(tt.event), nil))
			require.NoError(t, err)
			host, _, _ := strings.Cut(tt.name, ":")
			require.Equal(t, Host(host), ev.Host, "told from the event")
			command, passed := ev.ShellRunPassed()
			assert.Equal(t, tt.command != "", passed)
			assert.Equal(t, tt.command, command)
		})
	}
}
