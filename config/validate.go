package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The value rules of a config are written once, as go-playground/validator
// tags on the types in config.go and on each checker type's options struct
// (checkers/*.go), and validator/v10 is their reference
// implementation: TestRulesMatchValidator and FuzzRulesMatchValidator run
// it on the same configs and require the same problems, in the same order.
//
// The hooks do not link validator/v10 itself. Each hook call is a new
// process, and Go initialises every linked package at start-up: validator's
// table of built-in rules drags in mimetype, x/net/html, encoding/xml, net,
// x/crypto and x/text, about 4.5 ms a call, most of the time a hook takes.
// So the functions below apply the few tags the config uses, the way
// validator does; a tag they do not know panics, as validator's New does.

// violation is one rule a value breaks.
type violation struct {
	path  string // JSON path, e.g. checkers[1].command
	tag   string // the rule, e.g. "oneof"
	param string // its parameter, e.g. "claude-code sdk"
	value any
}

// Problem returns the violation in a person's words.
func (v violation) Problem() Problem {
	var msg string
	switch v.tag {
	case "required":
		msg = "required"
	case "min": // applyRules allows it on lists only
		msg = "must hold at least " + v.param + " items"
		if v.param == "1" {
			msg = "must not be empty"
		}
		if v.path == "checkers" {
			msg += "; leave the key out to use the default, " + defaultCheckers()
		}
	case "oneof":
		msg = fmt.Sprintf("must be one of %s, got %q", strings.Join(strings.Fields(v.param), ", "), fmt.Sprint(v.value))
	case "gte":
		msg = "must be at least " + v.param
	case "gt":
		msg = "must be greater than " + v.param
	default:
		msg = fmt.Sprintf("fails rule %q", v.tag)
	}
	return Problem{Path: v.path, Message: msg}
}

func validate(c *Config) []Problem {
	var vs []violation
	checkStruct(reflect.ValueOf(*c), nil, &vs)
	var ps []Problem
	for _, v := range vs {
		ps = append(ps, v.Problem())
	}
	return ps
}

// defaultCheckers is the checkers of the embedded default, as JSON.
func defaultCheckers() string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(gjson.GetBytes(defaultJSON, "checkers").Raw)); err != nil {
		panic("embedded default config is invalid: " + err.Error())
	}
	return b.String()
}

// jsonName is the name a field has in the file; "" for one that is not in
// it. Paths in problems use these names, so they match the file.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

// checkStruct checks every field of the struct v in order. A checker's
// options come last, as its last field, and are checked as if their
// fields were the checker's own: their paths are the file's,
// checkers[0].command (validator/v10 descends into them too, as
// Checkers[0].Options.Command).
func checkStruct(v reflect.Value, path *jsonPath, out *[]violation) {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" || !f.IsExported() {
			continue
		}
		applyRules(v.Field(i), path.key(name), f.Tag.Get("validate"), out)
	}
	if c, ok := v.Interface().(Checker); ok && c.Options != nil {
		checkStruct(reflect.ValueOf(c.Options).Elem(), path, out)
	}
}

// applyRules applies the comma-separated rules in tag to fv. Like
// validator it stops at a field's first broken rule, and descends into
// structs.
func applyRules(fv reflect.Value, path *jsonPath, tag string, out *[]violation) {
	var rules []string
	if tag != "" {
		rules = strings.Split(tag, ",")
	}
	for i, rule := range rules {
		name, param, _ := strings.Cut(rule, "=")
		broken := false
		switch name {
		case "omitempty":
			if fv.IsZero() {
				return
			}
		case "dive":
			rest := strings.Join(rules[i+1:], ",")
			for j := range fv.Len() {
				applyRules(fv.Index(j), path.at(j), rest, out)
			}
			return
		case "required":
			broken = !hasValue(fv)
		case "min":
			n, err := strconv.Atoi(param)
			if err != nil || fv.Kind() != reflect.Slice {
				panic(fmt.Sprintf("config: rule %q on %s: only a whole-number least length of a list is supported", rule, path))
			}
			broken = fv.Len() < n
		case "oneof":
			broken = !slices.Contains(strings.Fields(param), fv.String())
		case "gte", "gt":
			n, err := strconv.ParseInt(param, 10, 64)
			if err != nil || !fv.CanInt() {
				panic(fmt.Sprintf("config: rule %q on %s: only whole-number limits on integers are supported", rule, path))
			}
			broken = fv.Int() < n || (name == "gt" && fv.Int() == n)
		default:
			panic(fmt.Sprintf("config: rule %q on %s is not supported; add it to applyRules and to the tests", rule, path))
		}
		if broken {
			*out = append(*out, violation{path: path.String(), tag: name, param: param, value: fv.Interface()})
			return
		}
	}
	if fv.Kind() == reflect.Struct {
		checkStruct(fv, path, out)
	}
}

// RulesHold reports whether v keeps the value rules in tag, a field's
// validate tag, as Parse applies them. The schema generator asks it what
// a key left out of a file holds: a field whose value when absent breaks
// its own rules (composite's "checkers") is a key the file must give.
func RulesHold(v reflect.Value, tag string) bool {
	var vs []violation
	applyRules(v, nil, tag, &vs)
	return len(vs) == 0
}

// hasValue is validator's test for "required": a nil-able value is set
// when it is not nil, any other when it is not its zero value.
func hasValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.Pointer, reflect.Interface, reflect.Chan, reflect.Func:
		return !v.IsNil()
	}
	return !v.IsZero()
}
