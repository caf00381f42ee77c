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
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// structured returns the recorded PreToolUse event of StructuredOutput
// named name (checkers/testdata/structured).
func structured(t *testing.T, name string) *hookio.Event {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "structured", "pretooluse-"+name+".json"))
	require.NoError(t, err)
	ev, err := hookio.ParseEvent(raw)
	require.NoError(t, err)
	require.NotNil(t, ev.ToolInput, name)
	return ev
}

// build decodes one checker's config as a file has it and builds it.
func build(t *testing.T, checker string) checkers.Checker {
	t.Helper()
	c, err := config.Parse(strings.NewReader(`{"checkers":[`+checker+`]}`), "t.json")
	require.NoError(t, err)
	ch, err := checkers.New(c.Checkers[0])
	require.NoError(t, err)
	return ch
}

func TestOutput(t *testing.T) {
	seeds := `{"type":"output","conditions":[
		{"path":"status","equals":"completed"},
		{"path":"evidence","exists":true},
		{"path":"summary","matches":"\\S"},
		{"path":"validation.tests_passed","equals":true}]}`
	tests := []struct {
		name, checker, output string
		complete              bool
		feedback              string
	}{
		{"every condition holds", seeds, "completed-all-claims", true, "The structured output meets its 4 conditions."},
		{"each failed condition with the value found", seeds, "blocked", false,
			"Your StructuredOutput output does not meet its completion conditions. Correct it and call StructuredOutput again:\n" +
				"- `status` equals \"completed\"; found \"blocked\"\n" +
				"- `evidence` is present; found nothing\n" +
				"- `validation.tests_passed` equals true; found false"},
		{"one failed condition", `{"type":"output","conditions":[{"path":"validation.lint_passed","equals":true},{"path":"status","equals":"completed"}]}`, "completed-lint-false", false,
			"Your StructuredOutput output does not meet its completion condition. Correct it and call StructuredOutput again:\n" +
				"- `validation.lint_passed` equals true; found false"},
		{"object compared as JSON", `{"type":"output","conditions":[{"path":"next_action","equals":{"reason":"all tasks done","action":"complete"}}]}`, "completed-all-claims", true,
			"The structured output meets its 1 condition."},
		{"exists false", `{"type":"output","conditions":[{"path":"next_action","exists":false}]}`, "closing", false,
			"Your StructuredOutput output does not meet its completion condition. Correct it and call StructuredOutput again:\n" +
				"- `next_action` is absent; found {\"action\":\"closing\"}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &checkers.Context{Event: structured(t, tt.output), Reason: checkers.ReasonToolUse}
			r, err := build(t, tt.checker).Check(context.Background(), c)
			require.NoError(t, err)
			assert.Equal(t, tt.complete, r.Complete)
			assert.Equal(t, tt.feedback, r.Feedback)
			if !tt.complete {
				assert.Equal(t, "output-mismatch", r.Pattern)
				assert.Equal(t, "StructuredOutput", r.Params["Tool"])
			}
		})
	}
}

// TestOutputWithoutToolInput: an event without a structured output is a
// check that cannot run, said clearly; At keeps the type off such events.
func TestOutputWithoutToolInput(t *testing.T) {
	ch := build(t, `{"type":"output","conditions":[{"path":"status","exists":true}]}`)
	_, err := ch.Check(context.Background(), &checkers.Context{Event: &hookio.Event{HookEventName: "Stop"}, Reason: checkers.ReasonStop})
	require.Error(t, err)
	assert.Equal(t, "output: the Stop event carries no structured output (no tool_input); it checks gated tool calls only (on: tool_use)", err.Error())

	c, err := config.Parse(strings.NewReader(`{"checkers":[
		{"type":"plan"},
		{"type":"output","conditions":[{"path":"status","exists":true}]},
		{"type":"composite","on":["stop","tool_use"],"checkers":[{"type":"claims","claims":[{"path":"a","checker":{"type":"plan"}}]},{"type":"files","paths":["x"]}]}]}`), "t.json")
	require.NoError(t, err)
	labels := func(specs []config.Checker) []string {
		var ls []string
		for _, s := range specs {
			ls = append(ls, s.Label())
			if o, ok := s.Options.(*checkers.CompositeOptions); ok {
				for _, m := range o.Checkers {
					ls = append(ls, "  "+m.Label())
				}
			}
		}
		return ls
	}
	assert.Equal(t, []string{"plan", "composite", "  files"}, labels(checkers.At(c.Checkers, checkers.ReasonStop)),
		"the composite's on does not take claims to stop")
	assert.Equal(t, []string{"plan", "output", "composite", "  claims", "  files"}, labels(checkers.At(c.Checkers, checkers.ReasonToolUse)))
	assert.Equal(t, []string{"plan"}, labels(checkers.At(c.Checkers, checkers.ReasonManual)))
}

// TestDescribeStructured: the one-line descriptions the criteria told up
// front and closer check's checklist are built from.
func TestDescribeStructured(t *testing.T) {
	c, err := config.Parse(strings.NewReader(`{"checkers":[
		{"type":"output","conditions":[{"path":"status","equals":"completed"},{"path":"evidence","exists":true}]},
		{"type":"claims","name":"honest","claims":[{"path":"validation.tests_passed","checker":{"type":"test","name":"unit","command":"go test ./..."}},{"path":"validation.git_clean","checker":{"type":"git-clean"}}]}]}`), "t.json")
	require.NoError(t, err)
	assert.Equal(t, "output: in the structured output, `status` equals \"completed\" and `evidence` is present", checkers.Describe(c.Checkers[0]))
	assert.Equal(t, "honest: what the structured output claims is true: `validation.tests_passed` only if `go test ./...` passes; `validation.git_clean` only if the git working tree is clean: every change committed, nothing untracked", checkers.Describe(c.Checkers[1]))
}
