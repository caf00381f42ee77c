package checkers

import (
	"context"
	"fmt"
	"strings"
)

// Composite combines checkers. Mode "all" is complete when every member
// is; it stops at the first incomplete member and returns its result, so
// the agent gets one clear thing to do. Mode "any" is complete when one
// member is; it stops at the first complete one, and when none is, it
// returns the feedback of every member.
type Composite struct {
	Any     bool
	Members []Member
}

// Member is a checker with the label reports use for it.
type Member struct {
	Label string
	Checker
}

// Check implements Checker.
func (m Composite) Check(ctx context.Context, c *Context) (Result, error) {
	var feedback []string
	var firstErr error
	for i, mem := range m.Members {
		if err := ctx.Err(); err != nil {
			return Result{}, fmt.Errorf("%s: not run: %w", mem.Label, err)
		}
		r, err := mem.Check(ctx, c)
		if err != nil {
			err = fmt.Errorf("checker %d (%s): %w", i+1, mem.Label, err)
			if !m.Any {
				return Result{}, err
			}
			// Another member may still be complete; the error decides
			// only if none is.
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if r.Complete == m.Any {
			return r, nil
		}
		feedback = append(feedback, r.Feedback)
	}
	if m.Any {
		if firstErr != nil {
			return Result{}, firstErr
		}
		if len(feedback) == 1 {
			return Incomplete(feedback[0]), nil
		}
		return Incomplete("None of these alternatives is done yet; finish any one of them:\n- " + strings.Join(feedback, "\n- ")), nil
	}
	return OK(strings.Join(feedback, "\n")), nil
}
