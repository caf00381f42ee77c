package hookio

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Qwen Code sends UserPromptSubmit before every model request of a turn;
// only the person's prompt carries submitted_prompt. The recorded events
// of one turn tell the prompt from the turn going on.
func TestQwenResumesTurn(t *testing.T) {
	tests := []struct {
		file    string
		prompt  string
		resumes bool
	}{
		{"qwen/userpromptsubmit.json", "Make Add correct", false},
		{"qwen/userpromptsubmit-after-tool.json", "", true},
		{"qwen/userpromptsubmit-after-block.json", "", true},
		{"qwen/stop.json", "", false},
		{"qwen/sessionstart.json", "", false},
		// Another host's prompt event is the person's, with or without
		// its prompt read (Claude Code's is: see gate's ReleasePhrase).
		{"codex/userpromptsubmit.json", "Make Add correct", false},
		{"userpromptsubmit.json", "Build it", false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile("../testdata/events/" + tt.file)
			require.NoError(t, err)
			e, err := ParseEvent(data)
			require.NoError(t, err)
			assert.Equal(t, tt.prompt, e.Prompt)
			assert.Equal(t, tt.resumes, e.ResumesTurn())
		})
	}
}

func TestQwenSubmittedPromptOfTheWrongTypeIsRefused(t *testing.T) {
	_, err := Parse([]byte(`{"hook_event_name":"UserPromptSubmit","session_id":"s","transcript_path":"/h/.qwen/projects/p/chats/s.jsonl","submitted_prompt":7}`), HostQwen)
	require.ErrorIs(t, err, ErrBadEvent)
	assert.Contains(t, err.Error(), "submitted_prompt")
}
