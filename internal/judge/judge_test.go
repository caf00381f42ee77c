package judge

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/transcript"
)

func TestPrompt(t *testing.T) {
	q := Question{Criteria: "\n1. it builds\n2. it is documented\n", Changes: "git diff --stat ...", Plan: "- [completed] write it\n"}
	p := q.Prompt()
	assert.Contains(t, p, "## Completion criteria\n\n1. it builds\n2. it is documented\n\n## Changes\n\ngit diff --stat ...\n\n## The agent's plan\n\n- [completed] write it\n\n## Your answer\n")
	assert.Contains(t, p, `Give one checklist item per criterion, none left out: its number above as the id ("1", "2", ...), the criterion as the description`)
	assert.Contains(t, Question{Criteria: "## Done when\n- it builds\n- it is\n  documented"}.Prompt(), "## Completion criteria\n\n1. it builds\n2. it is documented\n\n## Changes", "numbered, to be matched")
	assert.NotContains(t, p, "Deterministic checks", "the checker has no checks to show")
	assert.NotContains(t, p, "a failing check above", "nor a check to point at")

	q.Checks = []Check{{Passed: true, Description: "`go test` passes", Evidence: "ok\nall"}, {Description: "the plan is done"}}
	assert.Contains(t, q.Prompt(), "completed (true only when the evidence shows it done; a failing check above means not done)")
	assert.Contains(t, q.Prompt(), "## Deterministic checks (donegate)\n\n- PASS `go test` passes\n    ok\n    all\n- FAIL the plan is done\n\n\n## Your answer\n")
	assert.Equal(t, []string{"-p", q.Prompt(), "--output-format", "json", "--json-schema", Schema, "--settings", NoHooks}, q.Args())
	q.Model = "haiku"
	assert.Equal(t, []string{"--model", "haiku"}, q.Args()[8:])
}

func TestChangesString(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    Changes
		want string
	}{
		{"stat", Changes{Base: "0123456789abcdef", Against: "HEAD", Stat: " a.go | 2 +-\n 1 file changed\n", Untracked: []string{"new.go"}},
			"git diff --stat 0123456789ab (the working tree against HEAD):\n a.go | 2 +-\n 1 file changed\nUntracked files:\n new.go\n"},
		{"no change", Changes{Base: "abc"}, "git diff --stat abc (the working tree against the baseline):\n(no changes to tracked files)\n"},
		{"no commit", Changes{Changed: []string{"a.go"}, Untracked: []string{"b.go"}},
			"The repository has no commit yet. Changed files:\n a.go\nUntracked files:\n b.go\n"},
	} {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.c.String()) })
	}
}

func TestPlanText(t *testing.T) {
	assert.Equal(t, "- [completed] a\n- [pending] b\n", PlanText([]transcript.Item{{Title: "a", Status: "completed"}, {Title: "b", Status: "pending"}}, true, nil))
	assert.Equal(t, "The agent made no plan.", PlanText(nil, false, nil))
	assert.Equal(t, "The plan could not be read: boom", PlanText(nil, false, errors.New("boom")))
}

// The changes and the plan are cut to maxEvidence at a line's end: the
// prompt is one argument, and Linux refuses one over 128 KiB.
func TestPromptClipsTheEvidence(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	big := strings.Repeat(line, 1000) // 100,000 bytes
	p := Question{Criteria: "c", Changes: big, Plan: big}.Prompt()
	assert.Less(t, len(p), 2*maxEvidence+4096)
	kept := strings.Repeat(line, maxEvidence/len(line))
	assert.Contains(t, p, "## Changes\n\n"+kept+fmt.Sprintf("... (%d more bytes left out; read the project directory)\n\n## The agent's plan", len(big)-len(kept)))
	assert.Contains(t, Question{Changes: "small"}.Prompt(), "## Changes\n\nsmall\n\n")
}

// Preview cuts between runes: a cut inside one would put invalid UTF-8
// into the feedback the agent reads.
func TestPreview(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{"short", "exit\n  status 1", "exit status 1"},
		{"at the bound", strings.Repeat("a", previewRunes), strings.Repeat("a", previewRunes)},
		{"multi-byte", "a" + strings.Repeat("é", 200), "a" + strings.Repeat("é", previewRunes-1) + "..."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Preview(tt.in)
			assert.Equal(t, tt.want, got)
			assert.True(t, utf8.ValidString(got))
		})
	}
}
