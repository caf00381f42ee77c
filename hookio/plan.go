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
	// Getenv is the hook's environment, where a host's variables say
	// where its plan is kept ($CLAUDE_CONFIG_DIR,
	// $CLAUDE_CODE_TASK_LIST_ID); nil: none is set.
	Getenv func(string) string
	// Wait bounds the wait for a transcript that lags behind the event
	// (see transcript.CaughtUp): the zero Wait reads it as it is (a check
	// from the command line).
	Wait transcript.Wait
	// ToolUse says the event is a gated tool call: a lagging transcript
	// is waited for until it holds the call (transcript.HoldsToolUse),
	// not the agent's last message.
	ToolUse bool
	// Memo keeps what a reader needs from one stop of the session to the
	// next; nil: nothing is kept.
	Memo Memo
}

// getenv is q.Getenv, or no variable set.
func (q PlanQuery) getenv(name string) string {
	if q.Getenv == nil {
		return ""
	}
	return q.Getenv(name)
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

// ReadPlan reads the agent's plan where the event's host keeps it: no
// Source when there is none, as for a host whose plan donegate cannot
// read. It reads within ctx, and bounds what it reads (see transcript).
func (e *Event) ReadPlan(ctx context.Context, q PlanQuery) (Plan, error) {
	return e.Host.spec().plan(ctx, e, q)
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
