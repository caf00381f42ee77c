package checkers

import (
	"context"
	"errors"
	"fmt"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/transcript"
)

// Plan checks that every item of the agent's plan is completed. Where the
// plan is kept depends on the host (see ReadPlan): on Claude Code the
// Task tools' list when it has tasks, else the latest TodoWrite call in
// the transcript, and at SubagentStop the subagent's own TodoWrite. No
// plan at all is complete on every host: many sessions never make one,
// and most hosts offer their plan tool only when it is turned on.
type Plan struct{}

// PlanOptions: the plan checker takes none.
type PlanOptions struct{}

// The plan checker type. The plan is the agent's own, the
// main agent's or a subagent's: it runs at every event, a subagent's stop
// included.
var _ = declare("plan", func() *Type {
	return register(Type{
		Name:      "plan",
		Summary:   "every item of the agent's plan is `completed` (or there is no plan)",
		DefaultOn: allReasons(),
		Patterns:  []string{"plan-incomplete"},
		Example:   `{"type": "plan"}`,
	}, func(*PlanOptions) (Checker, error) { return Plan{}, nil }, func(*PlanOptions) string {
		return "every item of the agent's plan is completed"
	})
})

// TranscriptWait bounds the wait for a lagging transcript to hold what
// the event is about: the agent's last message at a stop, the gated call
// itself at a gated tool, with ToolUseWait (see transcript.CaughtUp and
// HoldsToolUse).
var TranscriptWait = transcript.DefaultWait

// ToolUseWait bounds the wait for the gated call's own tool_use block at
// a gated tool (see transcript.ToolUseWait).
var ToolUseWait = transcript.ToolUseWait

// Check implements Checker.
func (Plan) Check(ctx context.Context, c *Context) (Result, error) {
	plan, err := ReadPlan(ctx, c)
	items, source := plan.Items, plan.Source
	if err != nil && errors.Is(err, context.DeadlineExceeded) && c.Budget > 0 {
		// The transcript searched to its start within the budget: huge,
		// or a sparse region (see transcript.within).
		return Result{}, fmt.Errorf("the plan could not be read within the budget (%s): %w", c.Budget, err)
	}
	if err != nil {
		return Result{}, err
	}
	if source == "" {
		if note := noPlanNote(c); note != "" {
			return OK(fmt.Sprintf("No plan to check (%s).", note)), nil
		}
		if tool := planTool(c); tool != "" {
			return OK(fmt.Sprintf("No plan to check (the agent made no %s call).", tool)), nil
		}
		return OK("No plan to check."), nil
	}
	var open []string
	for _, it := range items {
		if !it.Done() {
			open = append(open, it.Title)
		}
	}
	if len(open) == 0 {
		return OK(fmt.Sprintf("All %d task(s) in the %s are completed.", len(items), source)), nil
	}
	// plan-incomplete: Open, every open item's title, in the plan's
	// order; Total, how many items the plan has; Source, where it was
	// read ("task list", "todo list", "subagent's todo list", "plan
	// (update_plan)", ...); Tool, the host's plan tool the agent updates
	// its plan with, "" on Claude Code (whose feedback names none).
	tool := planTool(c)
	if plan.Tool != "" {
		tool = plan.Tool
	}
	return c.Fail("plan-incomplete", map[string]any{"Open": open, "Total": len(items), "Source": source, "Tool": tool}), nil
}

// planTool names the plan tool of the event's host, for feedback; "" for
// Claude Code, whose agents know theirs (TodoWrite or the Task tools),
// and for a host donegate reads no plan of.
func planTool(c *Context) string {
	if c.Event == nil {
		return ""
	}
	return c.Event.Host.PlanTool()
}

// noPlanNote says why the event's host may have no plan (see
// hookio.Host.NoPlanNote).
func noPlanNote(c *Context) string {
	if c.Event == nil {
		return ""
	}
	return c.Event.Host.NoPlanNote()
}

// ReadPlan returns the plan where the event's host keeps it, as the plan
// checker reads it (closer judge shows it too); no Source when there is
// none.
func ReadPlan(ctx context.Context, c *Context) (hookio.Plan, error) {
	ev := c.Event
	if ev == nil {
		return hookio.Plan{}, nil
	}
	q := hookio.PlanQuery{Path: ev.TranscriptPath, Home: c.Home, Subagent: c.Reason == ReasonSubagentStop, Getenv: c.Getenv}
	if q.Subagent || ev.AgentTranscriptPath != "" {
		// A subagent's own transcript, where the host names one.
		q.Path = ev.AgentTranscriptPath
	}
	switch c.Reason {
	case ReasonStop, ReasonSubagentStop:
		q.Wait = TranscriptWait
	case ReasonToolUse:
		q.Wait, q.ToolUse = ToolUseWait, true
	}
	if ev.SessionID != "" && c.StateDir != "" {
		q.Memo = state.Slot{Store: state.Store{Dir: c.StateDir, ReadOnly: c.ReadOnly}, Session: ev.SessionID, Key: planKey}
	}
	return ev.ReadPlan(ctx, q)
}

// planKey is the plan checker's key in a session's record.
const planKey = "plan"
