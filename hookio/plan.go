package hookio

import (
	"context"

	"github.com/donegate/donegate/transcript"
)

// PlanQuery is what a host's plan reader is given besides the event: all
// a reader may see of the stop (hookio imports no checker).
type PlanQuery struct {
	// Path is the host's record to read: the event's transcript, or at a
	// subagent's stop the subagent's own where the host names one, else
	// "".
	Path string
	// Home is the person's home dir, where a host may keep the plan.
	Home string
	// Subagent is true at a subagent's stop: the main agent's plan is not
	// the subagent's to finish.
	Subagent bool
}

// Plan is the agent's plan as its host keeps it.
type Plan struct {
	Items []transcript.Item
	// Source names where it was read, for feedback ("todo list
	// (todo_write)"); "" when there is no plan.
	Source string
	// Tool is the tool that updates this plan where it is not the host's
	// PlanTool (Gemini's task tracker).
	Tool string
}

// ReadPlan reads the agent's plan where the event's host keeps it. read is
// false when the host's plan is not read here (Claude Code's and Codex's
// are the plan checker's: they need its context); a host whose plan
// donegate cannot read has none (read true, no Source). It reads within
// ctx, and bounds what it reads (see transcript).
func (e *Event) ReadPlan(ctx context.Context, q PlanQuery) (p Plan, read bool, err error) {
	s := e.Host.spec()
	if s.plan == nil {
		return Plan{}, false, nil
	}
	p, err = s.plan(ctx, e, q)
	return p, true, err
}

// noPlan is the plan reader of a host whose plan donegate cannot read.
func noPlan(context.Context, *Event, PlanQuery) (Plan, error) { return Plan{}, nil }

// FoundPlan is what a transcript reader found, named source: no plan
// when it found none or failed.
func FoundPlan(items []transcript.Item, found bool, err error, source string) (Plan, error) {
	if err != nil || !found {
		return Plan{}, err
	}
	return Plan{Items: items, Source: source}, nil
}
