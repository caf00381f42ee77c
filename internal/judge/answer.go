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

// FindJSON finds the JSON object in a model's text answer and decodes it
// into v with decode, which also validates: the whole text, else a block
// fenced with ```, else the first object in the prose that decodes and
// validates. The error is the one of the first candidate that looked like
// an answer.
func FindJSON(text string, v any, decode func(data []byte, v any) error) error {
	var firstErr error
	try := func(candidate string) bool {
		candidate = strings.TrimSpace(candidate)
		if !strings.HasPrefix(candidate, "{") {
			return false
		}
		// A candidate that failed must leave nothing behind in v:
		// encoding/json keeps fields a later candidate leaves out.
		reflect.ValueOf(v).Elem().SetZero()
		err := decode([]byte(candidate), v)
		if err == nil {
			return true
		}
		if firstErr == nil {
			firstErr = err
		}
		return false
	}
	if try(text) {
		return nil
	}
	for _, block := range fencedBlocks(text) {
		if try(block) {
			return nil
		}
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '{' {
			continue
		}
		var raw json.RawMessage
		if json.NewDecoder(strings.NewReader(text[i:])).Decode(&raw) != nil {
			continue
		}
		if try(string(raw)) {
			return nil
		}
		i += len(raw) - 1
	}
	if firstErr != nil {
		return firstErr
	}
	if strings.TrimSpace(text) == "" {
		return errors.New("the answer is empty")
	}
	return fmt.Errorf("no JSON object in the answer %q", Preview(text))
}

// fencedBlocks returns the contents of the ``` fences in text.
func fencedBlocks(text string) []string {
	var out []string
	for {
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
}
