//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// useCriteria registers stop-hook --criteria at SessionStart and
// UserPromptSubmit, as settings.example.json does.
func (s *session) useCriteria() {
	cmd := filepath.Join(hookBinaries(s.t), "stop-hook") + " --criteria"
	s.Hooks["SessionStart"] = append(s.Hooks["SessionStart"], hookEntry{Command: cmd})
	s.Hooks["UserPromptSubmit"] = append(s.Hooks["UserPromptSubmit"], hookEntry{Command: cmd})
}

// contextOf returns the text of the request's messages of role "system":
// where 2.1.330 puts a SessionStart or UserPromptSubmit hook's
// additionalContext, as "<event> hook additional context: <text>", ahead
// of its own environment notes.
func contextOf(t *testing.T, req fakeapi.Request) string {
	t.Helper()
	var body struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal(req.Body, &body))
	var out []string
	for _, m := range body.Messages {
		if m.Role != "system" {
			continue
		}
		// The content is a string or a list of text blocks.
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			out = append(out, text)
			continue
		}
		var blocks []struct {
			Text string `json:"text"`
		}
		require.NoError(t, json.Unmarshal(m.Content, &blocks), "%s", m.Content)
		for _, b := range blocks {
			out = append(out, b.Text)
		}
	}
	return strings.Join(out, "\n")
}

// The criteria reach the model before its first turn, from SessionStart
// and from the prompt, and stay in its context after a Stop block; the
// agent is then held to exactly what it was told.
func TestCriteriaReachTheModelUpFront(t *testing.T) {
	t.Parallel()
	s := newSession(t, fakeapi.New())
	api := fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "REPORT.md"), "content": "# Report\n"}),
		fakeapi.Say("The report is written."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.Args = []string{"--permission-mode", "acceptEdits"}
	s.config(`{"checkers":[{"type":"plan"},{"type":"files","paths":["REPORT.md"]},{"type":"test","command":"make e2e","on":["manual"]}]}`)
	s.useDonegate()
	s.useCriteria()
	r := s.run("Write the report")

	const criteria = "This session ends when: every item of the agent's plan is completed; required files exist: REPORT.md. " +
		"donegate checks this each time you stop and, while something is missing, keeps you working and tells you what."
	reqs := api.Of("main")
	require.NotEmpty(t, reqs)
	first := contextOf(t, reqs[0])
	assert.Contains(t, first, "SessionStart hook additional context: "+criteria)
	assert.Contains(t, first, "UserPromptSubmit hook additional context: "+criteria)
	assert.NotContains(t, first, "make e2e", "a manual-only checker is not told")
	assert.NotContains(t, reqs[0].LastUserText(), "This session ends when", "context, not the prompt")
	for i, req := range reqs[1:] {
		assert.Contains(t, contextOf(t, req), "SessionStart hook additional context: "+criteria, "request %d", i+2)
	}
	assert.Contains(t, mainTurn(t, api, 1), heldWith+"Missing required files: REPORT.md")
	assertEnded(t, api, r, "The report is written.", 3)
}

// Each prompt is told again: a resumed session's next prompt carries the
// criteria of the config as it is then.
func TestCriteriaOnEveryPrompt(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(fakeapi.Say("Done."), fakeapi.Say("Done again."))
	s := newSession(t, api)
	s.config(`{"checkers":[{"type":"files","paths":["settings.example.json"]}]}`)
	s.useCriteria()
	first := s.run("First")
	require.Equal(t, 0, first.ExitCode, first.Stderr)

	s.config(`{"checkers":[{"type":"test","command":"go test ./..."}]}`)
	s.Args = []string{"--resume", first.SessionID}
	second := s.run("Second")
	require.Equal(t, 0, second.ExitCode, second.Stderr)

	reqs := api.Of("main")
	require.Len(t, reqs, 2)
	assert.Contains(t, contextOf(t, reqs[0]), "UserPromptSubmit hook additional context: This session ends when: required files exist: settings.example.json.")
	assert.Contains(t, contextOf(t, reqs[1]), "UserPromptSubmit hook additional context: This session ends when: `go test ./...` passes.")
}
