package checkers

import (
	"context"
	"fmt"
	"time"

	"github.com/donegate/donegate/internal/proc"
)

// Runner runs a shell command. It exists so tests can fake processes.
type Runner interface {
	Run(ctx context.Context, cmd proc.Command) (proc.Outcome, error)
}

type execRunner struct{}

func (execRunner) Run(ctx context.Context, cmd proc.Command) (proc.Outcome, error) {
	return proc.Run(ctx, cmd)
}

// within returns a context whose deadline is the lesser of the checker's
// own timeout and the chain's, and whether the checker's own timeout is the
// one that ends first (so a timeout can be told from a spent budget).
func within(ctx context.Context, own time.Duration) (context.Context, context.CancelFunc, bool) {
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= own {
		c, cancel := context.WithCancel(ctx)
		return c, cancel, false
	}
	c, cancel := context.WithTimeout(ctx, own)
	return c, cancel, true
}

// The hook's time budget running out, said in the same words by every
// checker that runs something (the command checkers' templates say it
// too): before a step could start (budgetSpent), or while it ran
// (overBudget, and budgetStopped with how long it had run).

func budgetSpent(budget time.Duration) string {
	return fmt.Sprintf("the hook's time budget (limits.budget %s) was spent before it could start", budget)
}

func overBudget(budget time.Duration) string {
	return fmt.Sprintf("did not finish within the hook's time budget (limits.budget %s)", budget)
}

func budgetStopped(budget, after time.Duration) string {
	return overBudget(budget) + " and was stopped after " + after.String()
}
