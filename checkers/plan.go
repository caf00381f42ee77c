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
// plan is kept depends on the host (see readPlan): on Claude Code the
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
// itself at a gated tool, with ToolUseWait (see transcript.CaughtUp and
// HoldsToolUse).
var TranscriptWait = transcript.DefaultWait

// ToolUseWait bounds the wait for the gated call's own tool_use block at
// a gated tool (see transcript.ToolUseWait).
var ToolUseWait = transcript.ToolUseWait

// Check implements Checker.
func (Plan) Check(ctx context.Context, c *Context) (Result, error) {
	plan, err := readPlan(ctx, c)
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

// readPlan returns the plan where the event's host keeps it; no Source
// when there is none.
func readPlan(ctx context.Context, c *Context) (hookio.Plan, error) {
	ev := c.Event
	if ev == nil {
		return hookio.Plan{}, nil
	}
	// A subagent's own transcript, where the host names one.
	path := ev.TranscriptPath
	if c.Reason == ReasonSubagentStop || ev.AgentTranscriptPath != "" {
		path = ev.AgentTranscriptPath
	}
	if ev.Host == hookio.HostCodex {
		// Codex's reader keeps how far it read in the session's record.
		items, found, err := c.codexPlan(ctx, path)
		return hookio.FoundPlan(items, found, err, "plan (update_plan)")
	}
	p, read, err := ev.ReadPlan(ctx, hookio.PlanQuery{Path: path, Home: c.Home, Subagent: c.Reason == ReasonSubagentStop})
	if read {
		return p, err
	}
	items, source, err := readClaudePlan(ctx, c)
	return hookio.Plan{Items: items, Source: source}, err
}

// codexPlanRecord is what the plan checker keeps of a Codex session (see
// state.Session.Get): what the goal calls of its rollout say up to where
// they were read. A session without a goal would otherwise have its whole
// rollout searched for one at every stop (62 ms on 256 MiB); with it, a
// stop searches what was appended since the previous one.
type codexPlanRecord struct {
	// Transcript is the rollout read; a record of another is not used.
	Transcript string `json:"transcript,omitempty"`
	transcript.CodexGoalState
}

// codexPlan reads the Codex plan in the rollout at path, going on from
// the session's record of its goal calls, and records how far they were
// read (nothing is written when c.ReadOnly). Only the main agent's
// rollout is recorded: a subagent's is another file. The record only
// saves time: one that cannot be read or written costs a whole search,
// never a wrong plan (see transcript.CodexPlanFrom).
func (c *Context) codexPlan(ctx context.Context, path string) ([]transcript.Item, bool, error) {
	ev := c.Event
	if ev.SessionID == "" || c.StateDir == "" || path != ev.TranscriptPath {
		return transcript.CodexPlan(ctx, path)
	}
	store := state.Store{Dir: c.StateDir, ReadOnly: c.ReadOnly}
	var from transcript.CodexGoalState
	if sess, err := store.Peek(ev.SessionID); err == nil {
		if rec := (codexPlanRecord{}); sess.Get(planKey, &rec) && rec.Transcript == path {
			from = rec.CodexGoalState
		}
	}
	items, found, next, err := transcript.CodexPlanFrom(ctx, path, from)
	if err != nil || next == from {
		return items, found, err
	}
	// Another hook of the session may have read further in the same file
	// meanwhile: the further record is kept.
	_ = store.Update(ev.SessionID, func(s *state.Session) error {
		if rec := (codexPlanRecord{}); s.Get(planKey, &rec) && rec.Transcript == path && rec.SameFile(next.Position) && rec.Offset > next.Offset {
			return nil
		}
		return s.Put(planKey, codexPlanRecord{Transcript: path, CodexGoalState: next})
	})
	return items, found, nil
}

// planKey is the plan checker's key in a session's record.
const planKey = "plan"

// readClaudePlan is readPlan on Claude Code (and the Agent SDK, which
// runs it): the Task tools' list, else the latest TodoWrite.
func readClaudePlan(ctx context.Context, c *Context) ([]transcript.Item, string, error) {
	ev := c.Event
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
			transcript.HoldsToolUse(ctx, path, ev.ToolUseID, ToolUseWait)
		}
	}
	if c.Reason == ReasonSubagentStop || ev.AgentTranscriptPath != "" {
		catchUp(ev.AgentTranscriptPath)
		items, found, err := transcript.LatestTodoWrite(ctx, ev.AgentTranscriptPath, transcript.ReadOptions{})
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
	items, found, err = transcript.LatestTodoWrite(ctx, ev.TranscriptPath, transcript.ReadOptions{SkipSidechain: true})
	if err != nil || !found {
		return nil, "", err
	}
	return items, "todo list", nil
}
