package hookio

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEntriesOneRowPerRole: Entries has one row per role, in the roles'
// order, and each host's roles are rows of it.
func TestEntriesOneRowPerRole(t *testing.T) {
	for i, e := range Entries {
		assert.Equal(t, Role(i), e.Role, "row %d", i)
		assert.Contains(t, []string{StopHookProgram, ToolHookProgram}, e.Program)
	}
	for _, h := range Hosts {
		for _, r := range h.spec().roles {
			assert.Less(t, int(r), len(Entries), "%s's role %d", h, r)
		}
	}
}

// TestProgramForFollowsEntries: the program that answers an event, and
// whether it tells the criteria there, are the table's.
func TestProgramForFollowsEntries(t *testing.T) {
	tests := []struct {
		event, program string
		criteria       bool
	}{
		{EventStop, StopHookProgram, false},
		{EventSubagentStop, StopHookProgram, false},
		{EventPreToolUse, ToolHookProgram, false},
		{EventPostToolUse, ToolHookProgram, false}, // stop-hook --start there runs in the background
		{EventSessionStart, StopHookProgram, true},
		{EventUserPromptSubmit, StopHookProgram, true},
		{"Notification", "", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.program, ProgramFor(tt.event), tt.event)
		assert.Equal(t, tt.criteria, CriteriaAt(tt.event), tt.event)
	}
}

// TestHostEntries: what each host registers, under its own names and
// matchers — the entries closer init writes and closer doctor expects.
func TestHostEntries(t *testing.T) {
	type reg struct{ event, matcher, command string }
	want := map[Host][]reg{
		HostClaude: {
			{"Stop", "", "stop-hook"},
			{"SubagentStop", "", "stop-hook"},
			{"PreToolUse", "StructuredOutput", "posttooluse-hook"},
			{"PreToolUse", "Bash", "posttooluse-hook"},
			{"PreToolUse", "Write|Edit|MultiEdit|NotebookEdit", "posttooluse-hook"},
			{"PostToolUse", "StructuredOutput", "posttooluse-hook"},
			{"PostToolUse", "Bash", "posttooluse-hook"},
			{"PostToolUse", "Write|Edit|MultiEdit|NotebookEdit", "stop-hook --start"},
			{"SessionStart", "", "stop-hook --criteria"},
			{"UserPromptSubmit", "", "stop-hook --criteria"},
		},
		HostDroid: {
			{"Stop", "", "stop-hook"},
			{"SubagentStop", "", "stop-hook"},
			{"PreToolUse", "Execute|Create|Edit", "posttooluse-hook"},
		},
		HostQoder: {
			{"Stop", "", "stop-hook"},
			{"SubagentStop", "", "stop-hook"},
			{"PreToolUse", "Bash|Write|Edit", "posttooluse-hook"},
		},
		HostCodex: {
			{"Stop", "", "stop-hook"},
			{"SubagentStop", "", "stop-hook"},
			{"PreToolUse", "Bash|apply_patch", "posttooluse-hook"},
			{"SessionStart", "", "stop-hook --criteria"},
			{"UserPromptSubmit", "", "stop-hook --criteria"},
		},
		HostQwen: {
			{"Stop", "", "stop-hook"},
			{"SubagentStop", "", "stop-hook"},
			{"PreToolUse", "run_shell_command|write_file|edit", "posttooluse-hook"},
			{"PostToolUse", "run_shell_command", "posttooluse-hook"},
			{"SessionStart", "", "stop-hook --criteria"},
			{"UserPromptSubmit", "", "stop-hook --criteria"},
		},
		HostGemini: {
			{"AfterAgent", "", "stop-hook"},
			{"BeforeTool", "run_shell_command|write_file|replace", "posttooluse-hook"},
			{"SessionStart", "", "stop-hook --criteria"},
			{"BeforeAgent", "", "stop-hook --criteria"},
		},
		HostCopilot: {
			{"agentStop", "", "stop-hook"},
			{"subagentStop", "", "stop-hook"},
			{"preToolUse", "", "posttooluse-hook"},
		},
	}
	for _, h := range Hosts {
		var got []reg
		for _, e := range h.Entries() {
			got = append(got, reg{e.Event, e.Matcher, e.Command()})
		}
		assert.Equal(t, want[h], got, "%s", h)
	}
}
