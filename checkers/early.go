package checkers

import "context"

// A stop used to start the checks only when the agent stopped, and the
// person waited for the whole suite then. Where the host runs a hook in
// the background after the agent's edits (Claude Code's "async" hooks),
// stop-hook --start runs the stop's cached command checks for the tree
// the agent just wrote (Context.Early): their results are remembered as
// any run's, so the stop finds them ready, or finds the run going and
// joins it (see runOnce). A newer edit's start, or a stop for another
// tree, stops a run whose tree is gone.

// Started is what an early start did with one check.
type Started struct {
	// Label is the composite member's label, "" at the top of the chain.
	Label   string
	Command string
	// Reused says a result for the tree was remembered already.
	Reused bool
	// Result is what the check found, or why it did not run (NotRun).
	Result Result
	Err    error
}

// StartEarly runs the cached command checks of chain (see
// cachedCommandChecks) one after the other, with c.Early set, until ctx
// ends. The results are remembered for the stop, never reported.
func StartEarly(ctx context.Context, c *Context, chain Checker) []Started {
	c.Early = true
	var out []Started
	for _, lk := range cachedCommandChecks(c, chain) {
		if ctx.Err() != nil {
			break
		}
		reused := c.Reused()
		r, err := lk.check.check(ctx, c)
		out = append(out, Started{Label: lk.label, Command: lk.check.command, Reused: c.Reused() > reused, Result: r, Err: err})
		if err == nil && r.Complete && !r.NotRun && lk.check.weakening {
			// The test checker's look for weakened tests follows a pass;
			// its answer is remembered by the tree as well.
			_, _, _ = weakened(ctx, c)
		}
	}
	return out
}
