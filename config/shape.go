package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// kind is the JSON type a key must hold.
type kind int

const (
	kString kind = iota
	kInt
	kBool
	kDuration
	kStrings
	kCheckers
	kLimits
)

func (k kind) String() string {
	return [...]string{"a string", "a whole number", "true or false", "a duration string such as \"90s\"", "an array of strings", "an array of checkers", "an object"}[k]
}

var topKeys = map[string]kind{
	"dialect":    kString,
	"checkers":   kCheckers,
	"limits":     kLimits,
	"on_error":   kString,
	"gate_tools": kStrings,
}

var limitKeys = map[string]kind{
	"max_blocks": kInt,
	"deadline":   kDuration,
	"budget":     kDuration,
}

// checkerKeys lists, per checker type, the keys it accepts besides the
// common ones. A key of another type is an error, not silently ignored: a
// "timeout" on a files checker means the person expects something we do not do.
var checkerKeys = map[string]map[string]kind{
	TypePlan:      {},
	TypeFiles:     {"paths": kStrings},
	TypeTest:      {"command": kString, "timeout": kDuration, "cache": kBool},
	TypeComposite: {"mode": kString, "checkers": kCheckers, "parallel": kBool},
}

var commonCheckerKeys = map[string]kind{"type": kString, "name": kString}

// CheckerTypes returns the valid checker type names, sorted.
func CheckerTypes() []string {
	names := make([]string, 0, len(checkerKeys))
	for n := range checkerKeys {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// checkShape checks syntax, unknown keys and the JSON type of every value,
// before any decoding, so each problem can name its exact path.
func checkShape(data []byte) []Problem {
	if !gjson.ValidBytes(data) {
		return []Problem{{Message: syntaxMessage(data)}}
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return []Problem{{Message: "expected a JSON object at the top level"}}
	}
	var ps []Problem
	walkObject(root, "", topKeys, &ps)
	return ps
}

func walkObject(obj gjson.Result, path string, keys map[string]kind, ps *[]Problem) {
	obj.ForEach(func(k, v gjson.Result) bool {
		p := join(path, k.Str)
		want, ok := keys[k.Str]
		if !ok {
			*ps = append(*ps, Problem{p, "unknown key" + suggest(k.Str, keys)})
			return true
		}
		checkValue(v, p, want, ps)
		return true
	})
}

func checkValue(v gjson.Result, path string, want kind, ps *[]Problem) {
	bad := func() { *ps = append(*ps, Problem{path, fmt.Sprintf("expected %s, got %s", want, describe(v))}) }
	switch want {
	case kString:
		if v.Type != gjson.String {
			bad()
		}
	case kInt:
		if v.Type != gjson.Number || v.Num != float64(int64(v.Num)) {
			bad()
		}
	case kBool:
		if !v.IsBool() {
			bad()
		}
	case kDuration:
		if v.Type != gjson.String {
			bad()
			return
		}
		if _, err := parseDuration(v.Str); err != nil {
			*ps = append(*ps, Problem{path, err.Error()})
		}
	case kStrings:
		if !v.IsArray() {
			bad()
			return
		}
		for i, e := range v.Array() {
			if e.Type != gjson.String {
				*ps = append(*ps, Problem{fmt.Sprintf("%s[%d]", path, i), "expected a string, got " + describe(e)})
			}
		}
	case kLimits:
		if !v.IsObject() {
			bad()
			return
		}
		walkObject(v, path, limitKeys, ps)
	case kCheckers:
		if !v.IsArray() {
			bad()
			return
		}
		for i, e := range v.Array() {
			checkChecker(e, fmt.Sprintf("%s[%d]", path, i), ps)
		}
	}
}

func checkChecker(v gjson.Result, path string, ps *[]Problem) {
	if !v.IsObject() {
		*ps = append(*ps, Problem{path, "expected a checker object such as {\"type\": \"plan\"}, got " + describe(v)})
		return
	}
	t := v.Get("type")
	if !t.Exists() {
		*ps = append(*ps, Problem{path + ".type", "missing (valid: " + strings.Join(CheckerTypes(), ", ") + ")"})
		return
	}
	if t.Type != gjson.String {
		*ps = append(*ps, Problem{path + ".type", "expected a string, got " + describe(t)})
		return
	}
	own, ok := checkerKeys[t.Str]
	if !ok {
		*ps = append(*ps, Problem{path + ".type", fmt.Sprintf("unknown checker type %q (valid: %s)", t.Str, strings.Join(CheckerTypes(), ", "))})
		return
	}
	keys := make(map[string]kind, len(own)+len(commonCheckerKeys))
	for k, v := range commonCheckerKeys {
		keys[k] = v
	}
	for k, v := range own {
		keys[k] = v
	}
	v.ForEach(func(k, val gjson.Result) bool {
		p := join(path, k.Str)
		want, ok := keys[k.Str]
		if !ok {
			msg := fmt.Sprintf("unknown key for a %q checker", t.Str)
			if users := typesAccepting(k.Str); len(users) > 0 {
				msg = fmt.Sprintf("not used by a %q checker (only by %s)", t.Str, strings.Join(users, ", "))
			} else {
				msg += suggest(k.Str, keys)
			}
			*ps = append(*ps, Problem{p, msg})
			return true
		}
		checkValue(val, p, want, ps)
		return true
	})
}

func typesAccepting(key string) []string {
	var ts []string
	for _, t := range CheckerTypes() {
		if _, ok := checkerKeys[t][key]; ok {
			ts = append(ts, t)
		}
	}
	return ts
}

// suggest names the valid keys, putting a near miss first.
func suggest(key string, keys map[string]kind) string {
	valid := make([]string, 0, len(keys))
	for k := range keys {
		valid = append(valid, k)
	}
	sort.Strings(valid)
	best, bestDist := "", 3
	for _, k := range valid {
		if d := distance(key, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %q? valid: %s)", best, strings.Join(valid, ", "))
	}
	return " (valid: " + strings.Join(valid, ", ") + ")"
}

// distance is the Levenshtein distance, for "did you mean".
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func describe(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "an array"
	case v.IsBool():
		return v.Raw
	case v.Type == gjson.Null:
		return "null"
	case v.Type == gjson.Number:
		return "the number " + v.Raw
	case v.Type == gjson.String:
		return "the string " + v.Raw
	}
	return v.Raw
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// syntaxMessage locates a JSON syntax error by line and column.
func syntaxMessage(data []byte) string {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := 1, 1
		for _, c := range data[:min(int(se.Offset), len(data))] {
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Sprintf("invalid JSON at line %d, column %d: %s", line, col, se.Error())
	}
	if err != nil {
		return "invalid JSON: " + err.Error()
	}
	return "invalid JSON"
}
