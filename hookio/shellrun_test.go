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
