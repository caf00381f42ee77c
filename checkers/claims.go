package checkers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/config"
)

// Claim is one claim a structured output may make, and how to verify it.
type Claim struct {
	// Path is the gjson path of the claim in the structured output, such
	// as "validation.tests_passed". Only a claim of true is checked.
	Path string `json:"path" validate:"required"`
	// Checker verifies the claim: any checker, run whatever its own "on"
	// says whenever the output claims true at Path.
	Checker config.Checker `json:"checker" validate:"required"`
}

// CheckOptions implements config.OptionsChecker: a path gjson reads as
// meant (see config.CheckPath).
func (c *Claim) CheckOptions() []config.Problem {
	if err := config.CheckPath(c.Path); err != nil && c.Path != "" {
		return []config.Problem{{Path: "path", Message: err.Error()}}
	}
	return nil
}

// ClaimsOptions are the options of a claims checker.
type ClaimsOptions struct {
	// Claims are the claims to verify, at least one.
	Claims []Claim `json:"claims" validate:"min=1,dive"`
}

// claimsTypeName is the claims checker type's name in a config.
const claimsTypeName = "claims"

// The claims checker's type: donegate's own check that
// what an agent's final answer says it did is so. It runs at tool_use
// only, where a structured output is handed in (as output does).
var _ = declare(claimsTypeName, func() *Type {
	return register(Type{
		Name:      claimsTypeName,
		Summary:   "every claim of `true` the structured output (or a Codex agent's final JSON message) makes at a `path` is confirmed by that claim's `checker`",
		DefaultOn: toolReasons,
		Only:      toolReasons,
		Patterns:  []string{"claim-false"},
		Example:   `{"type": "claims", "claims": [{"path": "validation.tests_passed", "checker": {"type": "test", "command": "x"}}]}`,
	}, func(o *ClaimsOptions) (Checker, error) {
		cs := Claims{Claims: make([]claim, len(o.Claims))}
		for i, cl := range o.Claims {
			// Built whatever its "on": the claim is what runs it.
			ch, err := New(cl.Checker)
			if err != nil {
				return nil, fmt.Errorf("claim %s: %w", cl.Path, err)
			}
			cs.Claims[i] = claim{path: cl.Path, label: cl.Checker.Label(), requires: requirement(cl.Checker), checker: ch}
		}
		return cs, nil
	}, func(o *ClaimsOptions) string {
		parts := make([]string, len(o.Claims))
		for i, cl := range o.Claims {
			parts[i] = fmt.Sprintf("`%s` only if %s", cl.Path, requirement(cl.Checker))
		}
		return "what the structured output claims is true: " + strings.Join(parts, "; ")
	})
})

// Claims verifies the claims of a structured output.
type Claims struct {
	Claims []claim
}

type claim struct {
	path     string
	label    string // the checker's, for errors
	requires string // what the checker requires, for feedback
	checker  Checker
}

// Check implements Checker. The checkers of the claims made run at once,
// each within the chain's budget, so that every false claim is reported
// together: an agent told one at a time would hand in again once per lie.
// A claim whose checker could not run leaves the check unable to run,
// unless another claim is refuted: that finding stands, and the claim
// left unverified is named beside it.
func (cs Claims) Check(ctx context.Context, c *Context) (Result, error) {
	doc, final, err := structuredOutput(c, claimsTypeName)
	if err != nil {
		return Result{}, err
	}
	var made []claim
	for _, cl := range cs.Claims {
		if gjson.GetBytes(doc, cl.path).Type == gjson.True {
			made = append(made, cl)
		}
	}
	if len(made) == 0 {
		return OK("The structured output makes none of the claims donegate verifies."), nil
	}
	results := make([]outcome, len(made))
	var wg sync.WaitGroup
	for i, cl := range made {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := Run(ctx, cl.checker, c)
			results[i] = outcome{r, err}
		}()
	}
	wg.Wait()
	var refuted []map[string]string
	var unchecked []string
	var errs []error
	for i, cl := range made {
		switch o := results[i]; {
		case o.err != nil:
			unchecked = append(unchecked, fmt.Sprintf("%s (%s could not run: %v)", cl.path, cl.label, o.err))
			errs = append(errs, fmt.Errorf("claim %s: %s: %w", cl.path, cl.label, o.err))
		case !o.r.Complete:
			refuted = append(refuted, map[string]string{"Path": cl.path, "Checker": cl.label, "Requires": cl.requires, "Evidence": o.r.Feedback, "Pattern": o.r.Pattern})
		}
	}
	if len(refuted) > 0 {
		return c.Fail("claim-false", map[string]any{"Tool": c.Event.ToolName, "Claims": refuted, "Unchecked": unchecked, "Final": final}), nil
	}
	if len(errs) > 0 {
		return Result{}, fmt.Errorf("%s: %w", claimsTypeName, errors.Join(errs...))
	}
	var paths, notRun []string
	for i, cl := range made {
		if results[i].r.NotRun {
			// Its checker needs the person's consent: neither verified nor
			// refuted, and never said to hold.
			notRun = append(notRun, cl.path)
			continue
		}
		paths = append(paths, cl.path)
	}
	switch {
	case len(paths) == 0:
		return Result{Complete: true, NotRun: true, Feedback: "Not verified: " + strings.Join(notRun, ", ") + " (their checks need the person's consent in this project: closer allow)."}, nil
	case len(notRun) > 0:
		return OK("The structured output's claims hold: " + strings.Join(paths, ", ") + "; not verified: " + strings.Join(notRun, ", ") + " (their checks need the person's consent: closer allow)."), nil
	}
	return OK("The structured output's claims hold: " + strings.Join(paths, ", ") + "."), nil
}
