package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Condition is one test of a JSON document, the structured output a gated
// tool is handed (its tool_input): the value at Path equals a JSON value,
// exists (or not), or matches a regular expression. Exactly one of
// Equals, Exists and Matches is given. The output checker and the config's
// completion_signal both hold them, so both read and check them the same
// way; CheckOptions refuses a bad one at load.
type Condition struct {
	// Path is a gjson path into the structured output, such as "status"
	// or "validation.tests_passed": keys joined by dots, array indexes,
	// `\` before a dot or wildcard that is part of a key.
	Path string `json:"path" validate:"required"`
	// Equals is the JSON value the path must hold, compared as JSON: 1
	// equals 1.0, and the order of an object's keys does not matter.
	Equals json.RawMessage `json:"equals,omitempty"`
	// Exists says whether the path must hold a value (null counts as
	// one) or hold none.
	Exists *bool `json:"exists,omitempty"`
	// Matches is a regular expression (Go RE2 syntax) the value must
	// match: a string's text, any other value's JSON text; a path that
	// holds nothing does not match.
	Matches string `json:"matches,omitempty"`
}

// CheckOptions implements OptionsChecker: exactly one test, a path gjson
// reads as the person meant, a regular expression that compiles. The
// decoder runs it on every Condition it decodes, with paths under the
// condition's own.
func (c *Condition) CheckOptions() []Problem {
	var ps []Problem
	if err := CheckPath(c.Path); err != nil && c.Path != "" { // "" is the rules' "required"
		ps = append(ps, Problem{Path: "path", Message: err.Error()})
	}
	n := 0
	for _, set := range []bool{c.Equals != nil, c.Exists != nil, c.Matches != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		ps = append(ps, Problem{Message: `give one of "equals", "exists" or "matches" (a non-empty regular expression)`})
	case n > 1:
		ps = append(ps, Problem{Message: `give only one of "equals", "exists" and "matches"; for several tests of one path, write several conditions`})
	}
	if c.Matches != "" {
		if _, err := compiled(c.Matches); err != nil {
			ps = append(ps, Problem{Path: "matches", Message: fmt.Sprintf("invalid regular expression %q: %v", c.Matches, strings.TrimPrefix(err.Error(), "error parsing regexp: "))})
		}
	}
	return ps
}

// CheckPath says why gjson would not read p as a path to one place in a
// document, or nil. gjson itself refuses no path: it reads a malformed one
// as a path that never matches, so a condition with a typo would never
// hold (or, with exists:false, always hold). A valid path is not empty,
// has no empty key (a leading, trailing or doubled dot or pipe), ends in
// no lone `\`, closes every bracket and quote it opens (queries such as
// `friends.#(age>40).name`, multipaths such as `{a,b}`), and names only
// modifiers gjson has (`@reverse`).
func CheckPath(p string) error {
	if strings.TrimSpace(p) == "" {
		return fmt.Errorf("must not be empty")
	}
	if !utf8.ValidString(p) {
		return fmt.Errorf("%q is not UTF-8 text", p)
	}
	var stack []byte // the brackets open
	inString := false
	start := true // at the start of a key
	for i := 0; i < len(p); i++ {
		ch := p[i]
		if inString {
			switch ch {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		if start && len(stack) == 0 && ch == '@' {
			name := p[i+1:]
			if j := strings.IndexAny(name, ".|:"); j >= 0 {
				name = name[:j]
			}
			if !gjson.ModifierExists(name, nil) {
				return fmt.Errorf("%q: gjson has no modifier @%s", p, name)
			}
		}
		wasStart := start
		start = false
		switch ch {
		case '\\':
			if i+1 == len(p) {
				return fmt.Errorf("%q ends in a lone \\ (write \\\\ for a backslash in a key)", p)
			}
			i++
		case '.', '|':
			if len(stack) == 0 {
				if wasStart {
					return fmt.Errorf("%q has an empty key at column %d (a leading, trailing or doubled %q)", p, i+1, ch)
				}
				start = true
			}
		case '"':
			if len(stack) > 0 {
				inString = true
			}
		case '(', '[', '{':
			stack = append(stack, ch)
		case ')', ']', '}':
			if len(stack) == 0 || closer[stack[len(stack)-1]] != ch {
				return fmt.Errorf("%q: %q at column %d closes nothing open", p, ch, i+1)
			}
			stack = stack[:len(stack)-1]
		}
	}
	switch {
	case inString:
		return fmt.Errorf("%q: a quote is not closed", p)
	case len(stack) > 0:
		return fmt.Errorf("%q: a %q is never closed", p, stack[len(stack)-1])
	case start:
		return fmt.Errorf("%q has an empty key at its end (a trailing %q)", p, p[len(p)-1])
	}
	return nil
}

// closer is the bracket that closes each opening one.
var closer = map[byte]byte{'(': ')', '[': ']', '{': '}'}

// Holds reports whether the condition holds on doc, a JSON document (nil:
// none, where every path holds nothing), and the value found at its path
// in words, for feedback: "\"blocked\"", "nothing".
func (c Condition) Holds(doc []byte) (bool, string) {
	r := gjson.GetBytes(doc, c.Path)
	found := foundWords(r)
	switch {
	case c.Exists != nil:
		return r.Exists() == *c.Exists, found
	case c.Equals != nil:
		return r.Exists() && jsonEqual([]byte(r.Raw), c.Equals), found
	case c.Matches != "":
		re, err := compiled(c.Matches)
		if err != nil || !r.Exists() {
			return false, found // CheckOptions refused such a pattern at load
		}
		text := r.Raw
		if r.Type == gjson.String {
			text = r.Str
		}
		return re.MatchString(text), found
	}
	return false, found
}

// regexps holds the conditions' regular expressions, compiled when the
// config is checked at load: a gated call then tests them without
// compiling each again.
var regexps sync.Map // string → *regexp.Regexp

func compiled(pattern string) (*regexp.Regexp, error) {
	if re, ok := regexps.Load(pattern); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	regexps.Store(pattern, re)
	return re, nil
}

// maxFound bounds the value a Condition's feedback shows.
const maxFound = 200

// foundWords shows the value r in feedback: its JSON on one line, cut at maxFound
// characters, or "nothing" when the path holds none.
func foundWords(r gjson.Result) string {
	if !r.Exists() {
		return "nothing"
	}
	raw := strings.TrimSpace(r.Raw)
	var b bytes.Buffer
	if json.Compact(&b, []byte(raw)) == nil {
		raw = b.String() // one line, however the agent spaced it
	}
	if utf8.RuneCountInString(raw) > maxFound {
		raw = string([]rune(raw)[:maxFound]) + "…"
	}
	return raw
}

// DescribeConditions says what each of conds requires, joined by sep:
// "`status` equals \"completed\" or `next_action.action` matches ...".
func DescribeConditions(conds []Condition, sep string) string {
	parts := make([]string, len(conds))
	for i, c := range conds {
		parts[i] = c.String()
	}
	return strings.Join(parts, sep)
}

// String says what the condition requires, for feedback and the criteria
// told up front: "`status` equals \"completed\"".
func (c Condition) String() string {
	switch {
	case c.Exists != nil && *c.Exists:
		return fmt.Sprintf("`%s` is present", c.Path)
	case c.Exists != nil:
		return fmt.Sprintf("`%s` is absent", c.Path)
	case c.Equals != nil:
		var b bytes.Buffer
		if json.Compact(&b, c.Equals) != nil {
			b.Reset()
			b.Write(c.Equals)
		}
		return fmt.Sprintf("`%s` equals %s", c.Path, b.String())
	}
	return fmt.Sprintf("`%s` matches %s", c.Path, strconv.Quote(c.Matches))
}

// jsonEqual reports whether the JSON values a and b are equal as JSON:
// numbers by value (1, 1.0 and 1e0 are equal), objects whatever the order
// of their keys, everything else exactly. Invalid JSON equals nothing.
func jsonEqual(a, b []byte) bool {
	va, ok := decodeValue(a)
	if !ok {
		return false
	}
	vb, ok := decodeValue(b)
	return ok && valuesEqual(va, vb)
}

func decodeValue(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil || d.More() {
		return nil, false
	}
	return v, true
}

func valuesEqual(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, va := range a {
			vb, ok := b[k]
			if !ok || !valuesEqual(va, vb) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !valuesEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case json.Number:
		b, ok := b.(json.Number)
		return ok && numbersEqual(a, b)
	}
	return a == b
}

// numbersEqual compares two JSON numbers by value. big.Float reads any
// exponent without building the number (big.Rat would build 10^N for
// 1eN, a config or an agent could make that huge); 512 bits tell apart
// any two numbers a person writes.
func numbersEqual(a, b json.Number) bool {
	if a == b {
		return true
	}
	fa, _, errA := big.ParseFloat(string(a), 10, 512, big.ToNearestEven)
	fb, _, errB := big.ParseFloat(string(b), 10, 512, big.ToNearestEven)
	// An exponent beyond big.Float's range reads as infinity: two such
	// numbers are equal only as the same text, compared above.
	return errA == nil && errB == nil && !fa.IsInf() && !fb.IsInf() && fa.Cmp(fb) == 0
}
