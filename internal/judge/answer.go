package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Item is one line of a checklist: one criterion of the judge's answer,
// or one checker of closer check's report.
type Item struct {
	ID          string `json:"id" validate:"required"`
	Description string `json:"description" validate:"required"`
	// Completed is a pointer so that a judge that leaves it out is caught.
	Completed *bool  `json:"completed" validate:"required"`
	Evidence  string `json:"evidence"`
}

// Done reports whether the item is completed.
func (it Item) Done() bool { return it.Completed != nil && *it.Completed }

// Answer is what the judge model answers (see Schema), and closer
// judge's --json output (with Reason when no answer could be had or it
// was corrected).
//
// The validate tags are the answer's rules, and validator/v10 is their
// reference: Validate applies them by hand, because the hooks link this
// package and must not link validator (its initialisation alone costs a
// hook process 4.5 ms, see startup_test.go); TestRulesMatchValidator runs
// both on the same answers and requires the same words.
type Answer struct {
	Checklist      []Item   `json:"checklist" validate:"required,min=1,dive"`
	AllComplete    bool     `json:"allComplete"`
	Summary        string   `json:"summary" validate:"required"`
	PendingActions []string `json:"pendingActions"`
	// Reason says why the verdict is not the judge's own: no answer, a
	// malformed one, or "all complete" with an open item.
	Reason string `json:"reason,omitempty" validate:"-"`
}

// Validate checks the answer against its validate tags, in validator's
// order and words ("checklist[0].id is required; summary is required").
func (a *Answer) Validate() error {
	var problems []string
	switch {
	case a.Checklist == nil:
		problems = append(problems, "checklist is required")
	case len(a.Checklist) < 1:
		problems = append(problems, "checklist needs at least 1 item(s)")
	}
	for i, it := range a.Checklist {
		field := fmt.Sprintf("checklist[%d].", i)
		if it.ID == "" {
			problems = append(problems, field+"id is required")
		}
		if it.Description == "" {
			problems = append(problems, field+"description is required")
		}
		if it.Completed == nil {
			problems = append(problems, field+"completed is required")
		}
	}
	if a.Summary == "" {
		problems = append(problems, "summary is required")
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// decodeAnswer decodes a judge's JSON answer into v (an *Answer) and
// validates it.
func decodeAnswer(data []byte, v any) error {
	a := v.(*Answer)
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(a); err != nil {
		return fmt.Errorf("not the expected JSON: %w", err)
	}
	if err := a.Validate(); err != nil {
		return fmt.Errorf("answer is malformed: %w", err)
	}
	return nil
}

// Recompute derives AllComplete from the checklist: a judge that says
// "all complete" with an open item is incomplete, and Reason says so.
// An incomplete answer without pending actions gets the open criteria
// as its actions.
func (a *Answer) Recompute() {
	var open []string
	for _, it := range a.Checklist {
		if !it.Done() {
			open = append(open, it.ID)
		}
	}
	if a.AllComplete && len(open) > 0 {
		a.Reason = fmt.Sprintf("the judge said all complete, but item(s) %s are not", strings.Join(open, ", "))
	}
	a.AllComplete = len(open) == 0
	if a.PendingActions == nil {
		a.PendingActions = []string{}
	}
	if !a.AllComplete && len(a.PendingActions) == 0 {
		for _, it := range a.Checklist {
			if !it.Done() {
				a.PendingActions = append(a.PendingActions, it.Description)
			}
		}
	}
}

// NoAnswer is the verdict when the judge gave none: incomplete, reason
// saying why.
func NoAnswer(reason string) Answer {
	return Answer{Checklist: []Item{}, PendingActions: []string{}, Reason: reason}
}

// maxCandidates bounds how many candidate objects FindJSON decodes, and
// maxNesting how deeply it follows braces: an answer is one object four
// levels deep, and a reply that offers more is not an answer. Each
// decoding costs at most the reply's length, so FindJSON's work is linear
// in it. Decoding from every '{' instead read to the end of the reply from
// each: `{"a":` × 50,000 took 40 s, × 200,000 169 s (issue 18), long past
// any hook's budget.
const (
	maxCandidates = 16
	maxNesting    = 512
)

// FindJSON finds the JSON object in a model's text answer and decodes it
// into v with decode, which also validates: the whole text, else a block
// fenced with ```, else an object in the prose that decodes and validates,
// the outermost ones in order (found in one pass that matches braces
// outside strings). At most maxCandidates candidates are decoded. The
// error is the one of the first candidate that looked like an answer.
func FindJSON(text string, v any, decode func(data []byte, v any) error) error {
	var firstErr error
	tried := 0
	// try reports whether candidate is the answer, and stop whether no
	// more candidates may be decoded.
	try := func(candidate string) (found, stop bool) {
		candidate = strings.TrimSpace(candidate)
		if !strings.HasPrefix(candidate, "{") {
			return false, false
		}
		tried++
		// A candidate that failed must leave nothing behind in v:
		// encoding/json keeps fields a later candidate leaves out.
		reflect.ValueOf(v).Elem().SetZero()
		err := decode([]byte(candidate), v)
		if err == nil {
			return true, false
		}
		if firstErr == nil {
			firstErr = err
		}
		return false, tried >= maxCandidates
	}
	candidates := append([]string{text}, fencedBlocks(text, maxCandidates)...)
	for _, span := range objectSpans(text, maxCandidates) {
		candidates = append(candidates, text[span[0]:span[1]])
	}
	for _, c := range candidates {
		found, stop := try(c)
		if found {
			return nil
		}
		if stop {
			break
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if strings.TrimSpace(text) == "" {
		return errors.New("the answer is empty")
	}
	return fmt.Errorf("no JSON object in the answer %q", Preview(text))
}

// objectSpans returns the first max outermost {...} spans of text, as
// [start, end) offsets, in one pass: braces inside JSON strings do not
// count, and neither do quotes outside braces (prose). An unclosed '{' (a
// stray brace of prose) leaves the objects inside it outermost. It stops
// at maxNesting levels, deeper than any answer.
func objectSpans(text string, max int) [][2]int {
	var spans [][2]int
	var open []int // offsets of the unclosed '{'
	inString := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case len(open) == 0:
			if len(spans) >= max {
				// These spans are outermost for good: none can be
				// closed inside a later one.
				return spans
			}
			if c == '{' {
				open = append(open, i)
			}
		case inString:
			switch c {
			case '\\':
				i++ // the escaped byte, a quote included
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{':
			if len(open) == maxNesting {
				return spans
			}
			open = append(open, i)
		case c == '}':
			start := open[len(open)-1]
			open = open[:len(open)-1]
			// The spans inside this one are no longer outermost.
			for len(spans) > 0 && spans[len(spans)-1][0] > start {
				spans = spans[:len(spans)-1]
			}
			// A span past the first max can only stay past them, or
			// end up inside one that is not: it is not kept.
			if len(spans) < max {
				spans = append(spans, [2]int{start, i + 1})
			}
		}
	}
	return spans
}

// fencedBlocks returns the contents of the first max ``` fences in text.
func fencedBlocks(text string, max int) []string {
	var out []string
	for len(out) < max {
		i := strings.Index(text, "```")
		if i < 0 {
			return out
		}
		rest := text[i+3:]
		// Skip the info string (```json).
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return out
		}
		body := rest[nl+1:]
		j := strings.Index(body, "```")
		if j < 0 {
			return out
		}
		out = append(out, body[:j])
		text = body[j+3:]
	}
	return out
}
