package hookio

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCopilotRecordedEvents: the events Copilot CLI 1.0.102 sent, as the
// e2e test records them (testdata/events/copilot/*-first.json and the
// like), each told apart and normalised. A subagent's end fires its own
// agentStop (sessionId: the subagent's agentId) and then the parent's
// subagentStop; the first is SubagentsOwnStop, the second the subagent's
// stop, keyed by the unique agentId, not the shared agentName.
func TestCopilotRecordedEvents(t *testing.T) {
	const session = "8844a4db-2d36-4780-8a7f-47470dbe9f37"
	const subagent = "f283ce72-675b-4a59-a39b-b31d6532f8ef"
	tests := []struct {
		file               string
		event, wire        string
		session, agent     string
		active, ownStop    bool
		prompt, transcript string
	}{
		{file: "agentstop-first.json", event: EventStop, wire: "agentStop", session: session},
		{file: "agentstop-after-block.json", event: EventStop, wire: "agentStop", session: session, active: true},
		{file: "agentstop-second-prompt.json", event: EventStop, wire: "agentStop", session: session},
		{file: "subagent-agentstop.json", event: EventSubagentStop, wire: "agentStop", session: subagent, agent: subagent, ownStop: true},
		{file: "subagentstop-first.json", event: EventSubagentStop, wire: "subagentStop", session: session, agent: subagent},
		{file: "subagentstop-after-block.json", event: EventSubagentStop, wire: "subagentStop", session: session, agent: subagent, active: true},
		{file: "sessionstart-new.json", event: EventSessionStart, wire: "sessionStart", session: session},
		{file: "sessionstart-resume.json", event: EventSessionStart, wire: "sessionStart", session: session},
		{file: "userpromptsubmitted-first.json", event: EventUserPromptSubmit, wire: "userPromptSubmitted", session: session, prompt: "Do the work"},
		{file: "userpromptsubmitted-block-reason.json", event: EventUserPromptSubmit, wire: "userPromptSubmitted", session: session, prompt: "recording: finish the open todos"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile("../testdata/events/copilot/" + tt.file)
			require.NoError(t, err)
			assert.Equal(t, HostCopilot, DetectHost(data, nil))
			e, err := ParseEvent(data)
			require.NoError(t, err)
			assert.Equal(t, tt.event, e.HookEventName)
			assert.Equal(t, tt.wire, e.WireEventName)
			assert.Equal(t, tt.session, e.SessionID)
			assert.Equal(t, tt.agent, e.AgentID)
			assert.Equal(t, tt.active, e.StopHookActive)
			assert.Equal(t, tt.ownStop, e.SubagentsOwnStop())
			assert.Equal(t, tt.prompt, e.Prompt)
			assert.Equal(t, "/home/user/project", e.Cwd)
			if e.IsStop() {
				assert.Equal(t, "$COPILOT_HOME/session-state/"+session+"/events.jsonl", e.TranscriptPath)
			}
		})
	}
}
