package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
)

// kind is the JSON type a key must hold; kindOf derives it from the Go
// type of the key's field.
type kind int

const (
	kString kind = iota
	kInt
	kBool
	kDuration
	kStrings
	kGlobs // an array of strings, each a path or a filepath.Match pattern
	kCheckers
	kObject  // a struct's fields
	kObjects // an array of objects
	kRaw     // any JSON value
	kArgv    // a string, or an array of strings
	kChecker // one checker, held in a type's options (a claim's)
)

func (k kind) String() string {
	return [...]string{"a string", "a whole number", "true or false", "a duration string such as \"90s\"", "an array of strings", "an array of strings", "an array of checkers", "an object", "an array of objects", "a JSON value", "a command string or an array of strings", "a checker object"}[k]
}

// field is a key of a JSON object: the struct field it decodes into and
// what JSON it holds.
type field struct {
	index int
	kind  kind
}

// fields maps the JSON names of a struct type's fields to them.
type fields map[string]field

// names returns the keys, sorted.
func (fs fields) names() []string {
	names := make([]string, 0, len(fs))
	for n := range fs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// fieldCache holds fieldsOf's answers: reflect.Type to fields.
var fieldCache sync.Map

// fieldsOf returns the keys of a JSON object decoded into the struct type
// t: its exported fields with a JSON name. The config's own types and
// every registered type's options are read this way, so the keys a file
// may hold are never listed a second time.
func fieldsOf(t reflect.Type) fields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(fields)
	}
	fs := fields{}
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" || !f.IsExported() {
			continue
		}
		k, err := kindOf(f.Type)
		if err != nil {
			panic(fmt.Sprintf("config: %v.%s: %v", t, f.Name, err))
		}
		fs[name] = field{i, k}
	}
	fieldCache.Store(t, fs)
	return fs
}

// checkerFields are the keys every checker has, whatever its type.
func checkerFields() fields { return fieldsOf(reflect.TypeFor[Checker]()) }

// maxCompositeDepth is how deeply composites may nest: a composite inside
// 32 others is refused. Real chains nest two or three deep. A 1 MB file of
// composites nested 30,000 deep took 162 s to decode when the depth was
// not bounded: gjson finds where a nested value ends by scanning it, again
// at each level above it, and every value's JSON path was built as a
// string as long as its depth (most of the time, with the garbage
// collector scanning a stack 30,000 calls deep). Paths are now spelt out
// only for problems, and the bound leaves the rescans a small factor.
const maxCompositeDepth = 32

// maxJSONDepth is the deepest a valid config nests: the top object and
// its checkers array, the levels each of maxCompositeDepth composites
// adds (compositeStep: a claims checker's object, its claims array and a
// claim's object), and the deepest registered checker (an output
// checker's conditions holding any JSON: 117 in all with the types of
// 2026-11-23). It is worked out from the registered types, so a type
// whose options nest deeper (arrays of objects, any JSON) raises it. A
// file that nests deeper is refused at once, before any reader that
// recurses per level (gjson's validator, encoding/json) or rescans per
// level sees it.
func maxJSONDepth() int {
	step, member := nesting()
	return 2 + step*maxCompositeDepth + member
}

// leastJSONDepth is maxJSONDepth with the least any set of types gives
// (a composite adds 2 levels, a checker's keys none): a file within it is
// within maxJSONDepth, which decode then need not work out from the types.
const leastJSONDepth = 2 + 2*maxCompositeDepth + 1

// decode reads data into c in one pass that checks syntax, unknown and
// duplicate keys and the JSON type of every value, so each problem can
// name its exact path. A value goes into the field of c whose JSON name is
// its key, only once it has the right type; the fields of c with a problem
// keep their defaults.
//
// It also returns the paths whose value is missing or cut short because
// of a problem it reports, where the value rules must not report again.
//
// It does the work of encoding/json.Unmarshal with gjson, which the hooks
// use anyway: encoding/json's first decode of a type costs a new process
// about half a millisecond, and this about a tenth of that.
func decode(data []byte, c *Config) ([]Problem, pathSet) {
	if !jsondepth.Within(data, leastJSONDepth) {
		if limit := maxJSONDepth(); !jsondepth.Within(data, limit) {
			return []Problem{{Message: fmt.Sprintf("nested deeper than %d levels of JSON (composites may nest at most %d deep)", limit, maxCompositeDepth)}}, nil
		}
	}
	if !gjson.ValidBytes(data) {
		return []Problem{{Message: syntaxMessage(data)}}, nil
	}
	if !utf8.Valid(data) {
		// JSON is UTF-8 (RFC 8259); encoding/json would quietly turn the
		// bad bytes into U+FFFD, in a command or a path.
		return []Problem{{Message: invalidUTF8Message(data)}}, nil
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return []Problem{{Message: "expected a JSON object at the top level"}}, nil
	}
	// gjson leaves the root's Index at 0 even after leading white space;
	// the Index of every value below counts from it.
	root.Index = len(data) - len(root.Raw)
	d := decoder{data: data, undecided: pathSet{}}
	ms, _ := d.members(root, nil)
	d.object(ms, nil, reflect.ValueOf(c).Elem(), 0)
	return d.problems, d.undecided
}

// decoder holds what decode has found so far.
type decoder struct {
	data      []byte // the document, to give line and column
	problems  []Problem
	undecided pathSet
}

// jsonPath is the path of a value in the document, such as
// checkers[1].timeout: a key or an index under its parent, nil for the
// top. It is spelt out only for a problem; building every value's path as
// a string cost time in proportion to the file's size times its depth.
type jsonPath struct {
	up    *jsonPath
	name  string // "" for an element of an array
	index int
}

// key returns the path of the member k of the object at p.
func (p *jsonPath) key(k string) *jsonPath { return &jsonPath{up: p, name: k} }

// at returns the path of the element i of the array at p.
func (p *jsonPath) at(i int) *jsonPath { return &jsonPath{up: p, index: i} }

// String spells the path out: "checkers[1].timeout", "" for the top.
func (p *jsonPath) String() string {
	var steps []*jsonPath
	for q := p; q != nil; q = q.up {
		steps = append(steps, q)
	}
	var b strings.Builder
	for i := len(steps) - 1; i >= 0; i-- {
		switch q := steps[i]; {
		case q.name == "":
			fmt.Fprintf(&b, "[%d]", q.index)
		case b.Len() > 0:
			b.WriteString("." + q.name)
		default:
			b.WriteString(q.name)
		}
	}
	return b.String()
}

// pathSet is a set of JSON paths, spelt out.
type pathSet map[string]bool

// covers reports whether path or a path it lies under is in s.
func (s pathSet) covers(path string) bool {
	for p := path; p != ""; {
		if s[p] {
			return true
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return false
}

// report records a problem about a key that has no field.
func (d *decoder) report(path *jsonPath, msg string) {
	d.problems = append(d.problems, Problem{path.String(), msg})
}

// fail records a problem with the value at path, whose field then holds
// nothing from the file.
func (d *decoder) fail(path *jsonPath, msg string) {
	d.report(path, msg)
	d.undecided[path.String()] = true
}

// member is one key and its value in a JSON object.
type member struct {
	key   string
	value gjson.Result
}

// members returns the members of the object obj, in order, leaving out
// and reporting (and returning) each key seen before in it: encoding/json
// would take the last value and gjson's Get the first, so a checker could
// be validated as one type and built as another.
func (d *decoder) members(obj gjson.Result, path *jsonPath) (ms []member, dups []string) {
	var seen map[string]bool // made only for an object with many keys
	obj.ForEach(func(k, v gjson.Result) bool {
		key := str(k)
		dup := seen[key]
		if seen == nil {
			dup = slices.ContainsFunc(ms, func(m member) bool { return m.key == key })
		}
		if dup {
			d.fail(path.key(key), "duplicate key")
			dups = append(dups, key)
			return true
		}
		ms = append(ms, member{key, v})
		if seen == nil && len(ms) > 8 {
			seen = make(map[string]bool)
			for _, m := range ms {
				seen[m.key] = true
			}
		} else if seen != nil {
			seen[key] = true
		}
		return true
	})
	return ms, dups
}

// object checks each member of an object against the keys of the struct
// dst and stores its value in the field of that JSON name. depth is the
// number of composites around it.
func (d *decoder) object(ms []member, path *jsonPath, dst reflect.Value, depth int) {
	fs := fieldsOf(dst.Type())
	for _, m := range ms {
		f, ok := fs[m.key]
		if !ok {
			d.unknown(ms, path, m.key, "unknown key", fs.names())
			continue
		}
		d.value(m.value, path.key(m.key), f.kind, dst.Field(f.index), depth)
	}
}

// unknown reports the key of ms that is not one of valid, suggesting a
// near miss. When the near miss is not in ms either, the person most
// likely meant it: its value rules stay quiet, so a misspelt "comand" is
// not also reported as a missing "command".
func (d *decoder) unknown(ms []member, path *jsonPath, key, msg string, valid []string) {
	near, hint := suggest(key, valid)
	d.report(path.key(key), msg+hint)
	if near != "" && !slices.ContainsFunc(ms, func(m member) bool { return m.key == near }) {
		d.undecided[path.key(near).String()] = true
	}
}

// value checks that v is of kind want and stores it in dst. depth is the
// number of composites around it.
func (d *decoder) value(v gjson.Result, path *jsonPath, want kind, dst reflect.Value, depth int) {
	bad := func() { d.fail(path, fmt.Sprintf("expected %s, got %s", want, describe(v))) }
	switch want {
	case kString:
		if v.Type != gjson.String {
			bad()
			return
		}
		if dst.Kind() == reflect.Pointer { // optional: nil means unset
			s := str(v)
			dst.Set(reflect.ValueOf(&s))
		} else {
			dst.SetString(str(v))
		}
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
		dur, err := parseDuration(str(v))
		if err != nil {
			d.fail(path, err.Error())
			return
		}
		dst.SetInt(int64(dur))
	case kStrings, kGlobs:
		if !v.IsArray() {
			bad()
			return
		}
		dst.Set(reflect.ValueOf(d.strings(v, path, want == kGlobs)).Convert(dst.Type()))
	case kArgv:
		switch {
		case v.Type == gjson.String:
			dst.Set(reflect.ValueOf(Argv{Shell: str(v)}))
		case v.IsArray():
			dst.Set(reflect.ValueOf(Argv{Args: d.strings(v, path, false)}))
		default:
			bad()
		}
	case kRaw:
		// Kept as written, for the checker to read; a key given twice in
		// it is refused all the same, as everywhere in a config.
		d.noDuplicates(v, path)
		dst.SetBytes(append(json.RawMessage(nil), v.Raw...))
	case kObject:
		if !v.IsObject() {
			bad()
			return
		}
		ms, _ := d.members(v, path)
		before := len(d.problems)
		d.object(ms, path, dst, depth)
		d.checkObject(path, dst, before)
	case kObjects:
		if !v.IsArray() {
			bad()
			return
		}
		objs := reflect.MakeSlice(dst.Type(), 0, 0) // [] is an empty list, not a missing one
		v.ForEach(func(_, e gjson.Result) bool {
			at := path.at(objs.Len())
			objs = reflect.Append(objs, reflect.New(dst.Type().Elem()).Elem())
			if !e.IsObject() {
				d.fail(at, "expected an object, got "+describe(e))
				return true
			}
			ms, _ := d.members(e, at)
			before := len(d.problems)
			d.object(ms, at, objs.Index(objs.Len()-1), depth)
			d.checkObject(at, objs.Index(objs.Len()-1), before)
			return true
		})
		dst.Set(objs)
	case kChecker:
		d.checker(v, path, dst.Addr().Interface().(*Checker), depth)
	case kCheckers:
		if !v.IsArray() {
			bad()
			return
		}
		cs := make([]Checker, 0)
		v.ForEach(func(_, e gjson.Result) bool {
			cs = append(cs, Checker{})
			d.checker(e, path.at(len(cs)-1), &cs[len(cs)-1], depth)
			return true
		})
		dst.Set(reflect.ValueOf(cs))
	}
}

// checkObject runs the rules tags cannot say (OptionsChecker) on the
// object decoded into dst at path, when decoding it found no problem
// (none after the first before): a Condition's "exactly one test".
func (d *decoder) checkObject(path *jsonPath, dst reflect.Value, before int) {
	oc, ok := dst.Addr().Interface().(OptionsChecker)
	if !ok || len(d.problems) > before {
		return
	}
	for _, p := range oc.CheckOptions() {
		p.Path = joinPath(path.String(), p.Path)
		d.problems = append(d.problems, p)
	}
}

// strings returns the strings of the array v, reporting each element that
// is not one and, for globs, each pattern filepath.Match cannot read.
func (d *decoder) strings(v gjson.Result, path *jsonPath, globs bool) []string {
	strs := make([]string, 0) // [] is an empty list, not a missing one
	v.ForEach(func(_, e gjson.Result) bool {
		s := str(e)
		switch {
		case e.Type != gjson.String:
			d.fail(path.at(len(strs)), "expected a string, got "+describe(e))
		case globs && IsGlob(s):
			if err := globError(s); err != nil {
				d.fail(path.at(len(strs)), fmt.Sprintf("invalid glob pattern %q: %v", s, err))
			}
		}
		strs = append(strs, s)
		return true
	})
	return strs
}

// noDuplicates reports every key given twice in an object within v.
func (d *decoder) noDuplicates(v gjson.Result, path *jsonPath) {
	switch {
	case v.IsObject():
		ms, _ := d.members(v, path)
		for _, m := range ms {
			d.noDuplicates(m.value, path.key(m.key))
		}
	case v.IsArray():
		i := 0
		v.ForEach(func(_, e gjson.Result) bool {
			d.noDuplicates(e, path.at(i))
			i++
			return true
		})
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

// checker decodes the checker v, inside depth composites, into dst: the
// keys every checker has into dst's fields, and the options of its
// registered type into a new value of the type's Options struct, stored
// in dst.Options. Without a known type nothing in it can be checked, so
// the value rules skip it all.
func (d *decoder) checker(v gjson.Result, path *jsonPath, dst *Checker, depth int) {
	if !v.IsObject() {
		d.fail(path, "expected a checker object such as {\"type\": \"plan\"}, got "+describe(v))
		return
	}
	ms, dups := d.members(v, path)
	var typ *CheckerType
	if i := slices.IndexFunc(ms, func(m member) bool { return m.key == "type" }); i < 0 {
		d.report(path.key("type"), "missing (valid: "+strings.Join(CheckerTypes(), ", ")+")")
	} else if t := ms[i].value; t.Type != gjson.String {
		d.report(path.key("type"), "expected a string, got "+describe(t))
	} else if typ = lookupType(str(t)); typ == nil {
		if err := TypeError(str(t)); err != nil {
			d.report(path.key("type"), fmt.Sprintf("checker type %q cannot be used, a mistake of donegate's own (please report it): %v", str(t), err))
		} else {
			d.report(path.key("type"), fmt.Sprintf("unknown checker type %q (valid: %s)", str(t), strings.Join(CheckerTypes(), ", ")))
		}
	} else if slices.Contains(dups, "type") {
		// Already reported: which of the types was meant is unknown.
		typ = nil
	} else if typ.Composite() && depth >= maxCompositeDepth {
		// The path of a composite this deep is long: it is shortened, and
		// the position given.
		line, col := position(d.data[:v.Index])
		d.problems = append(d.problems, Problem{abbreviate(path.String()),
			fmt.Sprintf("composites nest deeper than %d levels (this one starts at line %d, column %d)", maxCompositeDepth, line, col)})
		typ = nil
	}
	if typ == nil {
		d.undecided[path.String()] = true
		return
	}
	common, own := checkerFields(), fieldsOf(typ.Options)
	opts := reflect.New(typ.Options)
	before := len(d.problems)
	for _, m := range ms {
		dv, f, ok := reflect.ValueOf(dst).Elem(), field{}, false
		if f, ok = common[m.key]; !ok {
			dv = opts.Elem()
			f, ok = own[m.key]
		}
		if !ok {
			if users := typesAccepting(m.key); len(users) > 0 {
				d.report(path.key(m.key), fmt.Sprintf("not used by a %q checker (only by %s)", typ.Name, strings.Join(users, ", ")))
			} else {
				d.unknown(ms, path, m.key, fmt.Sprintf("unknown key for a %q checker", typ.Name), checkerKeys(typ))
			}
			continue
		}
		next := depth
		if typ.Composite() {
			next++
		}
		d.value(m.value, path.key(m.key), f.kind, dv.Field(f.index), next)
	}
	dst.Options = opts.Interface()
	if oc, ok := dst.Options.(OptionsChecker); ok && len(d.problems) == before {
		// Rules tags cannot say, on options known to be well formed; the
		// paths they give are the checker's own.
		for _, p := range oc.CheckOptions() {
			p.Path = joinPath(path.String(), p.Path)
			d.problems = append(d.problems, p)
		}
	}
	for i, e := range dst.On {
		if typ.Only != nil && slices.Contains(Events, e) && !slices.Contains(typ.Only, e) {
			d.report(path.key("on").at(i), fmt.Sprintf("a %q checker cannot run at %q, only at %s", typ.Name, e, strings.Join(typ.Only, ", ")))
		}
	}
}

// checkerKeys returns the keys a checker of type t takes, sorted.
func checkerKeys(t *CheckerType) []string {
	keys := append(checkerFields().names(), fieldsOf(t.Options).names()...)
	sort.Strings(keys)
	return keys
}

// joinPath puts the path rel, relative to a checker, under the checker's
// path at.
func joinPath(at, rel string) string {
	switch {
	case rel == "":
		return at
	case strings.HasPrefix(rel, "["):
		return at + rel
	}
	return at + "." + rel
}

// abbreviate shortens a path of many levels to its first and last two, so
// that the message stays readable.
func abbreviate(path string) string {
	parts := strings.Split(path, ".")
	if len(parts) <= 5 {
		return path
	}
	return strings.Join(parts[:2], ".") + ".…(" + strconv.Itoa(len(parts)-4) + " more)…." + strings.Join(parts[len(parts)-2:], ".")
}

// IsGlob reports whether a path of a files checker is a pattern: one with
// *, ? or [ must match at least one file, any other names one file. The
// files checker asks the same function, so load and check never disagree.
func IsGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// globError returns why filepath.Match cannot read all of the pattern p,
// or nil, so that such a pattern is refused once, at load, and not
// reported as an error by every check the files checker makes.
//
// Match(p, "") is not enough: Match reads a pattern only as far as the
// name at hand needs, so a pattern such as "dist/*[" fails only once
// dist/ holds a file. And filepath.Glob matches each part between
// separators on its own, so a class or an escape may not span a separator
// ("dist/[a/b]"). So each part is split into chunks as Match splits a
// pattern (at each star outside a class), and each chunk given to Match
// alone, which then reads all of it.
func globError(p string) error {
	// Windows' Glob splits at / as at \.
	for _, part := range strings.FieldsFunc(p, func(r rune) bool { return r < utf8.RuneSelf && os.IsPathSeparator(uint8(r)) }) {
		for part != "" {
			var chunk string
			chunk, part = nextChunk(part)
			if _, err := filepath.Match(chunk, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// nextChunk drops the stars that begin s and returns the text up to the
// next star outside a class, and the rest, as filepath.Match's scanChunk.
func nextChunk(s string) (chunk, rest string) {
	s = strings.TrimLeft(s, "*")
	inClass := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if runtime.GOOS != "windows" { // a separator there, not an escape
				i++
			}
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '*':
			if !inClass {
				return s[:i], s[i:]
			}
		}
	}
	return s, ""
}

// typesAccepting returns the registered types that take the option key.
func typesAccepting(key string) []string {
	var ts []string
	for _, name := range CheckerTypes() {
		if t := lookupType(name); t != nil {
			if _, ok := fieldsOf(t.Options)[key]; ok {
				ts = append(ts, name)
			}
		}
	}
	return ts
}

// suggest names the valid keys, putting a near miss first; it returns the
// near miss, if any, and the text to append to the message.
func suggest(key string, valid []string) (near, hint string) {
	best, bestDist := "", 3
	for _, k := range valid {
		if d := distance(key, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best != "" {
		return best, fmt.Sprintf(" (did you mean %q? valid: %s)", best, strings.Join(valid, ", "))
	}
	return "", " (valid: " + strings.Join(valid, ", ") + ")"
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
