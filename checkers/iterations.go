package checkers

import (
	"context"
	"errors"
	"fmt"

	"github.com/donegate/donegate/config"
)

// IterationsOptions are the iterations checker's options.
type IterationsOptions struct {
	// Min is how many times the agent must have been continued (its stop
	// blocked) in the current prompt before it may stop: at least 1, and
	// at most limits.max_blocks, after which donegate lets it stop.
	Min int `json:"min" validate:"gte=1"`
}

// CheckLimits implements config.LimitsChecker: the count of continuations
// never passes limits.max_blocks, since the stop after that many is let
// through, so a larger min could never be met and would only hold the
// agent until the limit gives up on it.
func (o *IterationsOptions) CheckLimits(l config.Limits) []config.Problem {
	if o.Min <= l.MaxBlocks {
		return nil
	}
	return []config.Problem{{Path: "min", Message: fmt.Sprintf(
		"%d continuations can never be reached: limits.max_blocks (%d) lets the agent stop after %d; raise limits.max_blocks to at least %d, or lower min",
		o.Min, l.MaxBlocks, l.MaxBlocks, o.Min)}}
}

// The iterations checker type: a forced iteration
// budget, to pair with keyword in a composite. It counts the main agent's
// continuations; a subagent's stop or a gated tool has a count of its own,
// and runs it only when its "on" says so.
var _ = declare("iterations", func() *Type {
	return register(Type{
		Name:      "iterations",
		Summary:   "the agent has been continued (its stop blocked) at least `min` times in this prompt",
		DefaultOn: []StopReason{ReasonStop},
		Patterns:  []string{"iterations-left"},
		Example:   `{"type": "iterations", "min": 2}`,
	}, func(o *IterationsOptions) (Checker, error) {
		return Iterations{Min: o.Min}, nil
	}, func(o *IterationsOptions) string {
		return fmt.Sprintf("you have been sent back to work at least %d %s in this prompt", o.Min, plural(o.Min, "time", "times"))
	})
})

// Iterations is complete once the agent has been continued Min times in
// the current prompt (see Context.Continued).
type Iterations struct {
	Min int
}

// Check implements Checker.
func (it Iterations) Check(_ context.Context, c *Context) (Result, error) {
	if c.Continued == nil {
		return Result{}, errors.New("iterations: there is no count of continuations to read (a check from the command line has no session); run it at a hook's stop")
	}
	n, err := c.Continued()
	if err != nil {
		return Result{}, fmt.Errorf("iterations: %w", err)
	}
	if n >= it.Min {
		return OK(fmt.Sprintf("You have been continued %d %s; %d %s required.", n, plural(n, "time", "times"), it.Min, plural(it.Min, "was", "were"))), nil
	}
	return c.Fail("iterations-left", map[string]any{
		"Min":  it.Min,
		"Done": n,
		"Left": it.Min - n,
	}), nil
}
