package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
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
	// malformed one, a criterion without an item, or "all complete" with
	// an open item.
	Reason string `json:"reason,omitempty" validate:"-"`
	// Unanswered are the numbers of the criteria the judge's checklist
	// has no item for (see Recompute).
	Unanswered []string `json:"unanswered,omitempty" validate:"-"`
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

// Recompute derives the verdict from the checklist and the criteria the
// judge was asked about (SplitCriteria; nil when unknown): every criterion
// must have an item, its number as the id, and every item must be
// completed. A criterion no item answers becomes an open item saying so
// and is listed in Unanswered: a checklist of one completed item about
// something else must not pass three criteria. An item that
// answers no criterion is kept when open (the judge found something
// undone) and left out when completed (it says nothing of the criteria).
// A judge that says "all complete" with an open item is incomplete. Reason
// says what was corrected; an incomplete answer without pending actions
// gets the open criteria as its actions.
func (a *Answer) Recompute(criteria []string) {
	// Both are ours to say, whatever a judge's text held.
	a.Reason, a.Unanswered = "", nil
	var notes []string
	var missing []Item
	if len(criteria) > 0 {
		answered := make(map[string]bool, len(a.Checklist))
		numbers := make(map[string]bool, len(criteria))
		for i := range criteria {
			numbers[strconv.Itoa(i+1)] = true
		}
		var extra []string
		kept := a.Checklist[:0:0]
		for _, it := range a.Checklist {
			n := criterionNumber(it.ID)
			switch {
			case numbers[n]:
				answered[n] = true
			case it.Done():
				extra = append(extra, it.ID)
				continue
			}
			kept = append(kept, it)
		}
		a.Checklist = kept
		no := false
		for i, c := range criteria {
			n := strconv.Itoa(i + 1)
			if !answered[n] {
				a.Unanswered = append(a.Unanswered, n)
				missing = append(missing, Item{ID: n, Description: c, Completed: &no, Evidence: "the judge gave no checklist item for this criterion"})
			}
		}
		if len(a.Unanswered) > 0 {
			notes = append(notes, fmt.Sprintf("the judge gave no checklist item for %s %s",
				plural(len(a.Unanswered), "criterion", "criteria"), strings.Join(a.Unanswered, ", ")))
		}
		if len(extra) > 0 {
			notes = append(notes, fmt.Sprintf("completed item(s) %q answer no criterion and were left out", extra))
		}
	}
	var open []string
	for _, it := range a.Checklist {
		if !it.Done() {
			open = append(open, it.ID)
		}
	}
	if a.AllComplete && len(open) > 0 {
		notes = append(notes, fmt.Sprintf("the judge said all complete, but item(s) %s are not", strings.Join(open, ", ")))
	}
	a.Checklist = append(a.Checklist, missing...)
	a.AllComplete = len(open) == 0 && len(missing) == 0
	a.Reason = strings.Join(notes, "; ")
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

// criterionNumber reads an item's id as a criterion's number: "2", and
// the "#2", "2." and "2)" a model may echo from a list.
func criterionNumber(id string) string {
	id = strings.TrimSpace(id)
	id = strings.TrimPrefix(id, "#")
	id = strings.TrimRight(id, ".)")
	return strings.TrimSpace(id)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// SplitCriteria splits the completion criteria as the user wrote them into
// the ones the judge answers, numbered from 1 in the prompt: one a line,
// list markers ("- ", "* ", "+ ", "1. ", "1) ") dropped; an indented line
// that is not a list item continues the criterion above it; blank lines and
// Markdown headings are not criteria.
func SplitCriteria(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		item, marked := TrimListMarker(trimmed)
		switch {
		case trimmed == "" || isHeading(trimmed):
			continue
		case !marked && len(out) > 0 && (line[0] == ' ' || line[0] == '\t'):
			out[len(out)-1] += " " + trimmed
			continue
		}
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// isHeading reports whether a trimmed line is a Markdown heading: #s, then
// a space.
func isHeading(l string) bool {
	rest := strings.TrimLeft(l, "#")
	return len(rest) < len(l) && (rest == "" || rest[0] == ' ')
}

// TrimListMarker drops a leading "- ", "* ", "+ ", "1. " or "1) ", and
// reports whether there was one.
func TrimListMarker(l string) (string, bool) {
	for _, m := range []string{"- ", "* ", "+ "} {
		if s, ok := strings.CutPrefix(l, m); ok {
			return s, true
		}
	}
	i := 0
	for i < len(l) && l[i] >= '0' && l[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(l) && (l[i] == '.' || l[i] == ')') && l[i+1] == ' ' {
		return l[i+2:], true
	}
	return l, false
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
// in it, where decoding from every '{' would read to the end of the reply
// from each: quadratic, seconds for a reply of a few hundred KB.
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
