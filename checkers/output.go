package checkers

import (
	"context"
	"fmt"

	"github.com/donegate/donegate/config"
)

// OutputOptions are the options of an output checker.
type OutputOptions struct {
	// Conditions must all hold on the structured output handed to the
	// gated tool (its tool_input): each a "path" with one of "equals"
	// (any JSON value), "exists" (true or false) or "matches" (a regular
	// expression).
	Conditions []config.Condition `json:"conditions" validate:"min=1,dive"`
}

// outputTypeName is the output checker type's name in a config.
const outputTypeName = "output"

// The output checker's type. It runs at tool_use only,
// where a structured output is handed in: a gated tool's input, or a
// Codex agent's final JSON message, which the hooks check as a gated
// call at its stop (see CodexFinalOutput).
var _ = declare(outputTypeName, func() *Type {
	return register(Type{
		Name:      outputTypeName,
		Summary:   "every condition (`path` with `equals`, `exists` or `matches`) holds on the structured output handed to the gated tool (or a Codex agent's final JSON message, `codex exec --output-schema`)",
		DefaultOn: toolReasons,
		Only:      toolReasons,
		Patterns:  []string{"output-mismatch"},
		Example:   `{"type": "output", "on": ["tool_use"], "conditions": [{"path": "status", "equals": "completed"}, {"path": "a.b", "exists": true}, {"path": "c", "matches": "^ok"}]}`,
	}, func(o *OutputOptions) (Checker, error) {
		return Output{Conditions: o.Conditions}, nil
	}, func(o *OutputOptions) string {
		return "in the structured output, " + config.DescribeConditions(o.Conditions, " and ")
	})
})

// Output holds the structured output an agent hands in to conditions of
// its shape: a status, a field that must be there, a summary of a form.
type Output struct {
	Conditions []config.Condition
}

// Check implements Checker. Every condition is tested, so the agent
// learns of all it must correct at once.
func (o Output) Check(_ context.Context, c *Context) (Result, error) {
	doc, final, err := structuredOutput(c, outputTypeName)
	if err != nil {
		return Result{}, err
	}
	var failed []map[string]string
	for i := range o.Conditions {
		cond := &o.Conditions[i]
		if ok, found := cond.Holds(doc); !ok {
			failed = append(failed, map[string]string{"Condition": cond.String(), "Path": cond.Path, "Found": found})
		}
	}
	if len(failed) > 0 {
		return c.Fail("output-mismatch", map[string]any{"Tool": c.Event.ToolName, "Failed": failed, "Final": final}), nil
	}
	return OK(fmt.Sprintf("The structured output meets its %d %s.", len(o.Conditions), plural(len(o.Conditions), "condition", "conditions"))), nil
}

// structuredOutput returns the structured output the checker named
// checks: the gated tool's input, or the final output the agent hands
// in at its stop where its host hands one in then (hookio's
// Event.FinalOutput: Codex's --output-schema message). final is true for the latter, whose feedback
// asks for a corrected message rather than a call. An event without one
// is a check that cannot run: At keeps such checkers to tool_use, so only
// a checker built by hand (or a claims checker's, at a tool_use event
// that has none) meets it.
func structuredOutput(c *Context, checker string) (doc []byte, final bool, err error) {
	if c.Event != nil && c.Event.ToolInput != nil {
		return c.Event.ToolInput, false, nil
	}
	if doc := c.Event.FinalOutput(); doc != nil {
		return doc, true, nil
	}
	event := "this"
	if c.Event != nil && c.Event.HookEventName != "" {
		event = "the " + c.Event.HookEventName
	}
	return nil, false, fmt.Errorf("%s: %s event carries no structured output (no tool_input); it checks gated tool calls only (on: tool_use)", checker, event)
}
