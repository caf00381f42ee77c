package checkers

import (
	"context"
	"fmt"

	"github.com/donegate/donegate/transcript"
)

// Plan checks that every item of the agent's plan is completed. The plan is
// the Task tools' list when it has tasks, else the latest TodoWrite call in
// the transcript; at SubagentStop it is the subagent's own TodoWrite. No
// plan at all is complete: many sessions never make one.
type Plan struct{}

// PlanOptions: the plan checker takes none.
type PlanOptions struct{}

// The plan checker type. The plan is the agent's own, the
// main agent's or a subagent's: it runs at every event, a subagent's stop
// included.
var _ = register(Type{
	Name:      "plan",
	Summary:   "every item of the agent's plan is `completed` (or there is no plan)",
	DefaultOn: allReasons,
	Patterns:  []string{"plan-incomplete"},
	Example:   `{"type": "plan"}`,
}, func(*PlanOptions) (Checker, error) { return Plan{}, nil }, func(*PlanOptions) string {
	return "every item of the agent's plan is completed"
})

// TranscriptWait bounds the wait for a lagging transcript to hold what
// the event is about: the agent's last message at a stop, the gated call
// itself at a gated tool (see transcript.CaughtUp and HoldsToolUse).
var TranscriptWait = transcript.DefaultWait

// Check implements Checker.
func (Plan) Check(ctx context.Context, c *Context) (Result, error) {
	items, source, err := readPlan(ctx, c)
	if err != nil {
		return Result{}, err
	}
	if source == "" {
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
	// read ("task list", "todo list", "subagent's todo list").
	return c.Fail("plan-incomplete", map[string]any{"Open": open, "Total": len(items), "Source": source}), nil
}

// readPlan returns the plan and a name for where it came from, "" if none.
func readPlan(ctx context.Context, c *Context) ([]transcript.Item, string, error) {
	ev := c.Event
	if ev == nil {
		return nil, "", nil
	}
	// Task files are written when the tool runs; only the transcript lags,
	// at a stop and at a gated tool alike. At PreToolUse the gated call
	// reached the transcript 16-33 ms after the hook started in 5 of 6
	// real sessions, and the TodoWrite before it can lag too: read at
	// once, the plan could be missing, and an early StructuredOutput with
	// open work accepted.
	catchUp := func(path string) {
		switch c.Reason {
		case ReasonStop, ReasonSubagentStop:
			transcript.CaughtUp(ctx, path, ev.LastAssistantMessage, TranscriptWait)
		case ReasonToolUse:
			transcript.HoldsToolUse(ctx, path, ev.ToolUseID, TranscriptWait)
		}
	}
	if c.Reason == ReasonSubagentStop || ev.AgentTranscriptPath != "" {
		catchUp(ev.AgentTranscriptPath)
		items, found, err := transcript.LatestTodoWrite(ev.AgentTranscriptPath, transcript.ReadOptions{})
		if err != nil || !found {
			return nil, "", err
		}
		return items, "subagent's todo list", nil
	}
	listID := c.TaskListID
	if listID == "" {
		listID = ev.SessionID
	}
	items, found, err := transcript.ReadTasks(transcript.TaskDir(c.ClaudeDir, listID))
	if err != nil {
		return nil, "", err
	}
	if found {
		return items, "task list", nil
	}
	if ev.TranscriptPath == "" {
		return nil, "", nil
	}
	catchUp(ev.TranscriptPath)
	items, found, err = transcript.LatestTodoWrite(ev.TranscriptPath, transcript.ReadOptions{SkipSidechain: true})
	if err != nil || !found {
		return nil, "", err
	}
	return items, "todo list", nil
}
