package closer

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFindAnswer(t *testing.T) {
	const probe = `{"status": "working", "message": "Writing tests.", "tasks_pending": 2}`
	for _, tt := range []struct {
		name    string
		text    string
		want    string // the status found
		wantErr string
	}{
		{"bare JSON", probe, "working", ""},
		{"fenced with json", "Here you go:\n```json\n" + probe + "\n```\nThanks.", "working", ""},
		{"fenced without info string", "```\n" + probe + "\n```", "working", ""},
		{"in prose", "My status is " + probe + " and that is all.", "working", ""},
		{"braces in prose before the answer", "I used {braces} and {\"x\": 1} then " + probe, "working", ""},
		{"the valid of two objects", `{"status": "busy", "message": "m"} or rather {"status": "complete", "message": "done"}`, "complete", ""},
		{"invalid status", `{"status": "busy", "message": "m"}`, "", `status must be one of complete waiting working, not "busy"`},
		{"missing fields", `{"tasks_pending": 1}`, "", "status is required; message is required"},
		{"wrong type", `{"status": "working", "message": "m", "tasks_pending": "two"}`, "", "not the expected JSON: json: cannot unmarshal string"},
		{"no JSON", "I am still working on it.", "", `no JSON object in the answer "I am still working on it."`},
		{"empty", "  ", "", "the answer is empty"},
		{"cut JSON", `{"status": "working", "message": `, "", `not the expected JSON`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var p Probe
			err := findAnswer(tt.text, &p)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.Status)
		})
	}
}

// TestFindAnswerKeepsNothingOfARefusedCandidate: a candidate that fails
// validation leaves none of its fields in the answer that is accepted.
func TestFindAnswerKeepsNothingOfARefusedCandidate(t *testing.T) {
	var p Probe
	text := `{"status": "busy", "message": "m", "next_action": "stale", "agents_active": 3} then {"status": "complete", "message": "done"}`
	require.NoError(t, findAnswer(text, &p))
	assert.Equal(t, Probe{Status: "complete", Message: "done"}, p)
}
