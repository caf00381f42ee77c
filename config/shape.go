package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode/utf8"

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

// decode reads data into c in one pass that checks syntax, unknown keys
// and the JSON type of every value, so each problem can name its exact
// path. A value goes into the field of c whose JSON name is its key, only
// once it has the right type; c is not to be used if problems are found.
//
// It does the work of encoding/json.Unmarshal with gjson, which the hooks
// use anyway: encoding/json's first decode of a type costs a new process
// about half a millisecond, and this about a tenth of that.
func decode(data []byte, c *Config) []Problem {
	if !gjson.ValidBytes(data) {
		return []Problem{{Message: syntaxMessage(data)}}
	}
	if !utf8.Valid(data) {
		// JSON is UTF-8 (RFC 8259); encoding/json would quietly turn the
		// bad bytes into U+FFFD, in a command or a path.
		return []Problem{{Message: invalidUTF8Message(data)}}
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return []Problem{{Message: "expected a JSON object at the top level"}}
	}
	var ps []Problem
	walkObject(root, "", topKeys, reflect.ValueOf(c).Elem(), &ps)
	return ps
}

// walkObject checks each key of obj against keys and stores its value in
// the field of the struct dst with that JSON name.
func walkObject(obj gjson.Result, path string, keys map[string]kind, dst reflect.Value, ps *[]Problem) {
	obj.ForEach(func(k, v gjson.Result) bool {
		p := join(path, k.Str)
		want, ok := keys[k.Str]
		if !ok {
			*ps = append(*ps, Problem{p, "unknown key" + suggest(k.Str, keys)})
			return true
		}
		checkValue(v, p, want, fieldByJSONName(dst, k.Str), ps)
		return true
	})
}

// fieldByJSONName returns the field of the struct v named name in JSON.
// The key tables and the types must agree; TestKeyTablesMatchTypes holds
// them to it.
func fieldByJSONName(v reflect.Value, name string) reflect.Value {
	t := v.Type()
	for i := range t.NumField() {
		if jsonName(t.Field(i)) == name {
			return v.Field(i)
		}
	}
	panic(fmt.Sprintf("config: %s has no field named %q in JSON", t, name))
}

// checkValue checks that v is of kind want and stores it in dst.
func checkValue(v gjson.Result, path string, want kind, dst reflect.Value, ps *[]Problem) {
	bad := func() { *ps = append(*ps, Problem{path, fmt.Sprintf("expected %s, got %s", want, describe(v))}) }
	switch want {
	case kString:
		if v.Type != gjson.String {
			bad()
			return
		}
		dst.SetString(str(v))
	case kInt:
		if v.Type != gjson.Number || v.Num != float64(int64(v.Num)) {
			bad()
			return
		}
		dst.SetInt(v.Int())
	case kBool:
		if !v.IsBool() {
			bad()
			return
		}
		b := v.Bool()
		if dst.Kind() == reflect.Pointer { // optional: nil means unset
			dst.Set(reflect.ValueOf(&b))
		} else {
			dst.SetBool(b)
		}
	case kDuration:
		if v.Type != gjson.String {
			bad()
			return
		}
		d, err := parseDuration(str(v))
		if err != nil {
			*ps = append(*ps, Problem{path, err.Error()})
			return
		}
		dst.SetInt(int64(d))
	case kStrings:
		if !v.IsArray() {
			bad()
			return
		}
		elems := v.Array()
		strs := make([]string, len(elems))
		for i, e := range elems {
			if e.Type != gjson.String {
				*ps = append(*ps, Problem{fmt.Sprintf("%s[%d]", path, i), "expected a string, got " + describe(e)})
			}
			strs[i] = str(e)
		}
		dst.Set(reflect.ValueOf(strs))
	case kLimits:
		if !v.IsObject() {
			bad()
			return
		}
		walkObject(v, path, limitKeys, dst, ps)
	case kCheckers:
		if !v.IsArray() {
			bad()
			return
		}
		elems := v.Array()
		cs := make([]Checker, len(elems))
		for i, e := range elems {
			checkChecker(e, fmt.Sprintf("%s[%d]", path, i), &cs[i], ps)
		}
		dst.Set(reflect.ValueOf(cs))
	}
}

// str returns the string v holds. Strings with escapes, rare in a config,
// are decoded by encoding/json: gjson reads some invalid escapes (a lone
// surrogate) differently, and the two readers must agree.
func str(v gjson.Result) string {
	if !strings.Contains(v.Raw, `\`) {
		return v.Str
	}
	var s string
	if err := json.Unmarshal([]byte(v.Raw), &s); err != nil {
		return v.Str // gjson found it valid; keep its reading
	}
	return s
}

func checkChecker(v gjson.Result, path string, dst *Checker, ps *[]Problem) {
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
	dv := reflect.ValueOf(dst).Elem()
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
		checkValue(val, p, want, fieldByJSONName(dv, k.Str), ps)
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

// invalidUTF8Message locates the first byte that is not UTF-8.
func invalidUTF8Message(data []byte) string {
	for off := 0; off < len(data); {
		r, size := utf8.DecodeRune(data[off:])
		if r == utf8.RuneError && size <= 1 {
			line, col := position(data[:off])
			return fmt.Sprintf("not UTF-8 text: byte 0x%02x at line %d, column %d", data[off], line, col)
		}
		off += size
	}
	return "not UTF-8 text"
}

// position returns the line and column, counted in characters as an
// editor counts them, of the byte that follows prefix.
func position(prefix []byte) (line, col int) {
	lineStart := bytes.LastIndexByte(prefix, '\n') + 1
	return 1 + bytes.Count(prefix, []byte("\n")), 1 + utf8.RuneCount(prefix[lineStart:])
}

// syntaxMessage locates a JSON syntax error by line and column.
func syntaxMessage(data []byte) string {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the offending one included: an
		// invalid character is the byte before it; at the end of the
		// input, the position is just past the last byte.
		off := min(int(se.Offset), len(data))
		if off > 0 && strings.HasPrefix(se.Error(), "invalid character") {
			off--
		}
		line, col := position(data[:off])
		return fmt.Sprintf("invalid JSON at line %d, column %d: %s", line, col, se.Error())
	}
	if err != nil {
		return "invalid JSON: " + err.Error()
	}
	return "invalid JSON"
}
