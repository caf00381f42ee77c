package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
)

// codexStop is the recorded shape of a Codex Stop event of `codex exec
// --output-schema`, its final message replaced by msg, as hookio reads it.
func codexStop(t *testing.T, msg string) *hookio.Event {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "codex", "stop-output-schema.json"))
	require.NoError(t, err)
	ev, err := hookio.ParseEvent(raw)
	require.NoError(t, err)
	ev.Host = hookio.HostCodex // set by hookio's host layer
	// What the hook tells from its parent's arguments (go test is this
	// test's parent): the stop of a codex with --output-schema.
	ev.SchemaTold = true
	if msg != "" {
		ev.LastAssistantMessage = msg
	}
	return ev
}

func TestCodexFinalOutput(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   func() *hookio.Event
		want string
	}{
		{"recorded final JSON", func() *hookio.Event { return codexStop(t, "") }, `{"status": "completed", "summary": "Wrote DONE.txt", "validation": {"tests_passed": true}}`},
		{"white space around it", func() *hookio.Event { return codexStop(t, "\n {\"a\":1} \n") }, `{"a":1}`},
		{"prose is none", func() *hookio.Event { return codexStop(t, "All done.") }, ""},
		{"a JSON array is none", func() *hookio.Event { return codexStop(t, "[1]") }, ""},
		{"bad JSON is none", func() *hookio.Event { return codexStop(t, `{"status":`) }, ""},
		{"nested past the bound is none", func() *hookio.Event {
			return codexStop(t, `{"a":`+strings.Repeat("[", 600)+strings.Repeat("]", 600)+`}`)
		}, ""},
		{"another host's stop is none", func() *hookio.Event { ev := codexStop(t, ""); ev.Host = hookio.HostClaude; return ev }, ""},
		{"a Codex subagent's stop is none", func() *hookio.Event {
			ev := codexStop(t, "")
			ev.HookEventName = hookio.EventSubagentStop
			return ev
		}, ""},
		{"no event", func() *hookio.Event { return nil }, ""},
		{"a Codex whose flags cannot be told: a message, not an answer", func() *hookio.Event { ev := codexStop(t, ""); ev.SchemaTold = false; return ev }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, string(tc.ev().FinalOutput()))
		})
	}
}

// TestCodexFinalOutputIsChecked: a Codex agent's final JSON message is
// held to the output conditions and its claims verified, as a Claude
// Code StructuredOutput is, with feedback that asks for a corrected
// message, not a call.
func TestCodexFinalOutputIsChecked(t *testing.T) {
	output := build(t, `{"type":"output","conditions":[{"path":"status","equals":"completed"}]}`)
	claims := build(t, `{"type":"claims","claims":[{"path":"validation.tests_passed","checker":{"type":"test","command":"exit 1"}}]}`)
	for _, tc := range []struct {
		name     string
		checker  checkers.Checker
		msg      string
		complete bool
		feedback string
	}{
		{"output holds", output, "", true, "The structured output meets its 1 condition."},
		{"output fails", output, `{"status":"blocked"}`, false,
			"Your final JSON message does not meet its completion condition. Correct it and end your turn with the corrected JSON:\n- `status` equals \"completed\"; found \"blocked\""},
		{"a false claim", claims, "", false,
			"Your final JSON message claims what is not so. Make each claim below true (fix the work) or report it as false, then end your turn with the corrected JSON.\n\n" +
				"- validation.tests_passed is true, but the check that `exit 1` passes fails:\nThe test command `exit 1` failed with exit code 1. Fix the failures and run it again. It printed nothing."},
		{"no claim made", claims, `{"status":"completed"}`, true, "The structured output makes none of the claims donegate verifies."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &checkers.Context{Event: codexStop(t, tc.msg), ProjectDir: t.TempDir(), Reason: checkers.ReasonToolUse}
			r, err := tc.checker.Check(context.Background(), c)
			require.NoError(t, err)
			assert.Equal(t, tc.complete, r.Complete)
			assert.Equal(t, tc.feedback, r.Feedback)
		})
	}
	// Prose at a Codex stop hands in nothing: the check cannot run there,
	// as at a tool_use event without tool_input.
	_, err := output.Check(context.Background(), &checkers.Context{Event: codexStop(t, "All done."), Reason: checkers.ReasonToolUse})
	require.ErrorContains(t, err, "output: the Stop event carries no structured output")
}
