package checkers

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/feedback"
)

// Composite combines checkers. Mode "all" is complete when every member
// is; it stops at the first incomplete member and returns its result, so
// the agent gets one clear thing to do. Mode "any" is complete when one
// member is; it stops at the first complete one, and when none is, it
// returns the feedback of every member, the most actionable first (see
// feedback.Rank).
//
// With Parallel set the members run at once, but the answer is the one the
// declared order gives: the first failure (all) or success (any) in that
// order wins, and the members still running are cancelled as soon as the
// answer can no longer change.
type Composite struct {
	Any      bool
	Parallel bool
	Members  []Member
}

// CompositeOptions are a composite's options.
type CompositeOptions struct {
	// Mode is "all" (every member must pass) or "any" (one member must
	// pass). Left out: "all".
	Mode string `json:"mode,omitempty" validate:"omitempty,oneof=all any"`
	// Checkers are the members, at least one; composites nest at most 32
	// deep.
	Checkers []config.Checker `json:"checkers" validate:"min=1,dive"`
	// Parallel runs the members at once; the answer is still the one their
	// order gives. Left out: false.
	Parallel bool `json:"parallel,omitempty"`
}

// The composite checker type. A composite runs where
// its "on" says, else where the composite around it says, else where any
// of its members runs (see At): its DefaultOn is never used.
var _ = declare("composite", func() *Type {
	return register(Type{
		Name:      "composite",
		Summary:   "`all`: every member passes; `any`: one member passes",
		DefaultOn: allReasons(),
		Example:   `{"type": "composite", "mode": "any", "parallel": true, "checkers": [{"type": "plan"}]}`,
	}, func(o *CompositeOptions) (Checker, error) {
		return newComposite(o.Mode == "any", o.Parallel, o.Checkers)
	}, func(o *CompositeOptions) string {
		parts := make([]string, len(o.Checkers))
		for i, m := range o.Checkers {
			// A member's type name says nothing the description does
			// not ("plan: every item of the agent's plan..."): only a
			// name the user gave it is kept. A composite member is
			// bracketed, or its "|" would read as the outer one's.
			parts[i] = Describe(m)
			if m.Name == "" {
				parts[i] = requirement(m)
			}
			if len(memberLists(m)) > 0 {
				parts[i] = "(" + parts[i] + ")"
			}
		}
		if o.Mode == "any" {
			return "any one of: " + strings.Join(parts, " | ")
		}
		return "all of: " + strings.Join(parts, " | ")
	})
})

// Member is a checker with the label reports use for it.
type Member struct {
	Label string
	Checker
}

type outcome struct {
	r   Result
	err error
}

// Check implements Checker.
func (m Composite) Check(ctx context.Context, c *Context) (Result, error) {
	next := m.sequential(ctx, c)
	if m.Parallel && len(m.Members) > 1 {
		ctx, cancel := context.WithCancel(ctx)
		var wait func()
		next, wait = m.concurrent(ctx, c)
		// Members whose result is no longer needed are cancelled, and
		// waited for: their processes must be gone before the hook exits.
		defer wait()
		defer cancel()
	}
	var open, notRun []Result
	var firstErr error
	for i, mem := range m.Members {
		o := next(i)
		if o.err != nil {
			err := fmt.Errorf("checker %d (%s): %w", i+1, mem.Label, o.err)
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
		if m.Any && o.r.NotRun {
			// A member that did not run is no alternative done.
			notRun = append(notRun, o.r)
			continue
		}
		if o.r.Complete == m.Any {
			return o.r, nil
		}
		open = append(open, o.r)
	}
	if m.Any {
		switch {
		case firstErr != nil:
			return Result{}, firstErr
		case len(open) == 0 && len(notRun) > 0:
			// Nothing ran that could hold the agent.
			return notRun[0], nil
		}
		return anyOpen(open), nil
	}
	passed := make([]string, len(open))
	for i, r := range open {
		passed[i] = r.Feedback
	}
	return OK(strings.Join(passed, "\n")), nil
}

// anyOpen is the result of an "any" composite none of whose members is
// complete: every alternative's feedback, the most actionable first (see
// feedback.Rank; members of one rank keep their order). It carries the
// pattern and parameters of the first, which is what it reports first.
func anyOpen(open []Result) Result {
	slices.SortStableFunc(open, func(a, b Result) int { return feedback.Rank(a.Pattern) - feedback.Rank(b.Pattern) })
	if len(open) == 1 {
		return open[0]
	}
	texts := make([]string, len(open))
	for i, r := range open {
		// An alternative's feedback may run over several lines and
		// paragraphs (a test's output, keyword's and phase's two
		// paragraphs): indent them under its bullet, or its second
		// paragraph reads as the next alternative's preamble.
		lines := strings.Split(strings.TrimSpace(r.Feedback), "\n")
		for j := 1; j < len(lines); j++ {
			if lines[j] != "" {
				lines[j] = "  " + lines[j]
			}
		}
		texts[i] = strings.Join(lines, "\n")
	}
	return Result{
		Feedback: "None of these alternatives is done yet; finish any one of them:\n- " + strings.Join(texts, "\n- "),
		Pattern:  open[0].Pattern,
		Params:   open[0].Params,
	}
}

// sequential runs member i when its outcome is asked for.
func (m Composite) sequential(ctx context.Context, c *Context) func(int) outcome {
	return func(i int) outcome {
		if err := ctx.Err(); err != nil {
			return outcome{err: fmt.Errorf("not run: %w", err)}
		}
		r, err := Run(ctx, m.Members[i], c)
		return outcome{r, err}
	}
}

// concurrent starts every member now; next waits for member i's outcome,
// wait for every member to return.
func (m Composite) concurrent(ctx context.Context, c *Context) (next func(int) outcome, wait func()) {
	var wg sync.WaitGroup
	results := make([]chan outcome, len(m.Members))
	for i, mem := range m.Members {
		results[i] = make(chan outcome, 1)
		wg.Add(1)
		go func(ch chan<- outcome, mem Member) {
			defer wg.Done()
			r, err := Run(ctx, mem, c)
			ch <- outcome{r, err}
		}(results[i], mem)
	}
	return func(i int) outcome { return <-results[i] }, wg.Wait
}
