package hookio

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestClineCommands: every shape Cline's run_commands takes is read as the
// lines the guard reads, a list of words kept on one line.
func TestClineCommands(t *testing.T) {
	for _, tt := range []struct{ input, want string }{
		{`"closer release"`, "closer release"},
		{`["ls", "closer release"]`, "ls\ncloser release"},
		{`{"commands": "closer release"}`, "closer release"},
		{`{"commands": ["ls", "closer release"]}`, "ls\ncloser release"},
		{`{"commands": [{"command": "closer", "args": ["release"]}]}`, "closer release"},
		{`{"commands": [["closer", "release"]]}`, "closer release"},
		{`{"command": "closer", "args": ["release", "--dir", "my dir"]}`, "closer release --dir 'my dir'"},
		{`{"command": ["closer", "release"]}`, "closer release"},
		{`{"command": "closer release"}`, "closer release"},
		{`{"cmd": "closer release"}`, "closer release"},
		{`{"other": 1}`, `{"other": 1}`},
	} {
		e := &Event{Host: HostCline, HookEventName: EventPreToolUse, ToolName: clineShellTool, ToolInput: []byte(tt.input)}
		assert.Equal(t, tt.want, e.ShellCommand(), tt.input)
	}
}
