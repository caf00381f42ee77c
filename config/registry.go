package config

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"
)

// A CheckerType is what the config needs to know about one kind of checker:
// its name, the struct its options decode into, and the events it runs at
// by default. Package checkers registers one for each type, in the type's
// own file, with its constructor beside it (checkers.Type); the config
// package derives from it everything it checks — the keys a checker of the
// type takes, the JSON each holds, the value rules — so a new type is one
// file in checkers/ and nothing here.
type CheckerType struct {
	// Name is the "type" in the config.
	Name string
	// Options is the type's options struct. Its exported fields with a
	// json name are the keys the type takes besides type, name and on;
	// their Go types say what JSON each key holds (see kindOf); their
	// validate tags, the go-playground/validator tags that validate.go
	// applies, are the value rules. A field of type []Checker or Checker,
	// at any depth (a claim's checker), makes the type a composite of
	// others. A pointer to the struct may implement
	// OptionsChecker for rules tags cannot say.
	Options reflect.Type
	// DefaultOn lists the events a checker of the type runs at when its
	// config says nothing: Events' values.
	DefaultOn []string
	// Only lists the only events a checker of the type can run at, nil
	// for all: an output checker reads the gated tool's input, which
	// only tool_use has. An "on" that names another event is refused at
	// load.
	Only []string
	// Impl is what the package that declared the type keeps of it
	// (package checkers: its *checkers.Type, with the constructor), so
	// that one registry holds each type once.
	Impl any

	// composite is set for a type whose options hold other checkers (a
	// field of type []Checker or Checker, at any depth of its options):
	// the decoder bounds how deep they nest.
	composite bool
}

// Composite reports whether checkers of the type hold other checkers.
func (t *CheckerType) Composite() bool { return t.composite }

// OptionsChecker is implemented by options whose rules tags cannot say (a
// regular expression that must compile, one of several forms). It runs
// only on options that decoded without a problem; the paths of the
// problems it returns are relative to the checker ("success_when").
type OptionsChecker interface {
	CheckOptions() []Problem
}

// LimitsChecker is implemented by options whose rules depend on the
// config's limits: a number of continuations the agent must be held for
// can never be reached beyond limits.max_blocks, which lets it stop. It
// runs once the whole config has decoded, on checkers and limits without
// a problem of their own; the paths of the problems it returns are
// relative to the checker ("min").
type LimitsChecker interface {
	CheckLimits(Limits) []Problem
}

// Events a checker can run at: the values of a checker's "on".
const (
	OnStop         = "stop"          // the main agent ends its turn
	OnSubagentStop = "subagent_stop" // a subagent ends
	OnToolUse      = "tool_use"      // the agent calls a gated tool
	OnManual       = "manual"        // closer check
)

// Events lists every event, in the order the docs name them.
var Events = []string{OnStop, OnSubagentStop, OnToolUse, OnManual}

// The checker types: registered ones by name, under typesMu (a declared
// type is registered when first needed, and configs may be decoded at
// once), and the declared ones.
var (
	typesMu  sync.RWMutex
	types    = map[string]*CheckerType{}
	declared = map[string]*declaration{}
)

// A declaration is a type known by name, built when first needed; err
// is why it cannot be used (a mistake in its build, found then, or a
// second declaration of its name).
type declaration struct {
	once  sync.Once
	build func() CheckerType
	err   error
}

// DeclareType makes the checker type called name known to the config;
// build gives it when the config first needs it, and it is registered
// then. Each checker type's file declares its type at start-up, which
// costs a map entry; building one makes what the type is made of, and
// all 18 at every hook's start cost it a tenth of a millisecond, though a
// hook decodes a few or none (docs/performance.md). It is for package
// initialization: the declarations are read without a lock. A name
// declared twice, or empty, or a build that panics or gives another name
// or a type RegisterType would refuse, makes the type unusable: a config
// naming it gets that error as a problem (see TypeError), and CheckTypes,
// which a test runs over every shipped type, returns it. Nothing here
// panics where a hook may run.
func DeclareType(name string, build func() CheckerType) {
	switch {
	case name == "" || build == nil:
		declared[name] = &declaration{err: fmt.Errorf("config: checker type %q declared unnamed or without a build function", name)}
	case declared[name] != nil:
		declared[name].err = fmt.Errorf("config: checker type %q declared twice", name)
	default:
		declared[name] = &declaration{build: build}
	}
}

// lookupType returns the type called name, registering it if it is
// declared and not registered yet; nil if there is none or it is broken
// (see TypeError).
func lookupType(name string) *CheckerType {
	if d := declared[name]; d != nil {
		d.once.Do(func() {
			if d.err != nil {
				return
			}
			defer func() {
				if p := recover(); p != nil {
					d.err = fmt.Errorf("config: checker type %q: building it panicked: %v", name, p)
				}
			}()
			t := d.build()
			if t.Name != name {
				d.err = fmt.Errorf("config: checker type %q declared, and built as %q", name, t.Name)
				return
			}
			d.err = registerType(t)
		})
		if d.err != nil {
			return nil
		}
	}
	typesMu.RLock()
	defer typesMu.RUnlock()
	return types[name]
}

// TypeError says why the declared type called name cannot be used; nil
// for a type that can, or none of that name.
func TypeError(name string) error {
	d := declared[name]
	if d == nil {
		return nil
	}
	lookupType(name)
	return d.err
}

// RegisterType makes a checker type known to the config at once; a
// declared type is registered by its declaration, and by nothing else.
// It panics on a second type of the same name, an options type that is
// not a struct or an event that is not one: it is for package
// initialization and tests, where a declared type's mistakes are errors
// (see DeclareType). The fields' own mistakes (a Go type the config
// cannot decode, a key every checker has) are found by CheckTypes, which
// TestEveryTypeIsValid in package checkers runs over every shipped type:
// they are donegate's, not a config's.
func RegisterType(t CheckerType) {
	if declared[t.Name] != nil {
		panic(fmt.Sprintf("config: checker type %q registered twice or unnamed", t.Name))
	}
	if err := registerType(t); err != nil {
		panic(err.Error())
	}
}

// registerType registers t, declared or not, or says why it cannot.
func registerType(t CheckerType) error {
	typesMu.Lock()
	defer typesMu.Unlock()
	if t.Name == "" || types[t.Name] != nil {
		return fmt.Errorf("config: checker type %q registered twice or unnamed", t.Name)
	}
	if t.Options == nil || t.Options.Kind() != reflect.Struct {
		return fmt.Errorf("config: checker type %q: options must be a struct type, got %v", t.Name, t.Options)
	}
	for _, l := range []struct {
		what   string
		events []string
	}{{"DefaultOn", t.DefaultOn}, {"Only", t.Only}} {
		for _, e := range l.events {
			if !slices.Contains(Events, e) {
				return fmt.Errorf("config: checker type %q: unknown event %q in %s", t.Name, e, l.what)
			}
		}
	}
	t.composite = memberStep(t.Options) > 0
	types[t.Name] = &t
	return nil
}

// CheckTypes returns the first mistake in the options of a registered
// type (see RegisterType), or nil.
func CheckTypes() error {
	for _, name := range CheckerTypes() {
		t := lookupType(name)
		if err := TypeError(name); err != nil {
			return err
		}
		if t == nil {
			return fmt.Errorf("config: checker type %q is not registered", name)
		}
		if err := t.check(); err != nil {
			return fmt.Errorf("config: checker type %q: %w", name, err)
		}
	}
	return nil
}

// check is CheckTypes' look at t's fields.
func (t *CheckerType) check() error {
	if err := checkOptionsType(t.Options); err != nil {
		return err
	}
	for i := range t.Options.NumField() {
		f := t.Options.Field(i)
		name := jsonName(f)
		if name == "" || !f.IsExported() {
			continue
		}
		if isCheckerKey(name) {
			// The key would mean two things, and Checker's JSON encoding
			// would write it twice.
			return fmt.Errorf("option %q is a key every checker has", name)
		}
	}
	return nil
}

// nesting is how deeply the known types let a config nest (see
// maxJSONDepth), worked out at its first call, which registers every
// declared type; types are declared at init, before any config is read
// (RegisterForTest and DeclareForTest start it over):
// step is how many levels of JSON one composite adds, from a checker's
// object to a member's (memberStep's most: 2 for a composite,
// {"checkers": [{...}]}, 3 for claims, {"claims": [{"checker": {...}}]});
// depth is how deeply the deepest checker nests, counting its own object
// and not the members of a composite (2 for a files checker,
// {"paths": [...]}).
var nesting = newNesting()

func newNesting() func() (step, depth int) {
	return sync.OnceValues(func() (step, depth int) {
		step, depth = 2, 1
		for _, name := range CheckerTypes() {
			t := lookupType(name)
			if t == nil {
				continue // a declaration that registered nothing: CheckTypes says so
			}
			step = max(step, memberStep(t.Options))
			depth = max(depth, 1+optionsDepth(t.Options))
		}
		return step, depth
	})
}

// memberStep is how many levels of JSON lie between the object holding
// the keys of the struct t and the object of a checker held in them; 0
// when t holds no checker.
func memberStep(t reflect.Type) int {
	s := 0
	for i := range t.NumField() {
		f := t.Field(i)
		if jsonName(f) == "" || !f.IsExported() {
			continue
		}
		switch k, _ := kindOf(f.Type); k {
		case kCheckers:
			s = max(s, 2)
		case kChecker:
			s = max(s, 1)
		case kObject:
			if n := memberStep(f.Type); n > 0 {
				s = max(s, 1+n)
			}
		case kObjects:
			if n := memberStep(f.Type.Elem()); n > 0 {
				s = max(s, 2+n)
			}
		}
	}
	return s
}

// rawDepth is how deeply a value of any JSON (json.RawMessage) may nest
// inside a config.
const rawDepth = 16

// optionsDepth is how deeply the keys of the struct t nest in JSON below
// the object that holds them; a composite's members count apart.
func optionsDepth(t reflect.Type) int {
	d := 0
	for i := range t.NumField() {
		f := t.Field(i)
		if jsonName(f) == "" || !f.IsExported() {
			continue
		}
		switch k, _ := kindOf(f.Type); k {
		case kStrings, kGlobs, kArgv:
			d = max(d, 1)
		case kObject:
			d = max(d, 1+optionsDepth(f.Type))
		case kObjects:
			d = max(d, 2+optionsDepth(f.Type.Elem()))
		case kRaw:
			d = max(d, rawDepth)
		}
	}
	return d
}

// isCheckerKey reports whether every checker has the key name (type,
// name, on).
func isCheckerKey(name string) bool {
	c := reflect.TypeFor[Checker]()
	for i := range c.NumField() {
		if jsonName(c.Field(i)) == name {
			return true
		}
	}
	return false
}

// LookupType returns the type called name, registered or declared.
func LookupType(name string) (*CheckerType, bool) {
	t := lookupType(name)
	return t, t != nil
}

// CheckerTypes returns the names of the declared and registered checker
// types, sorted; it registers none.
func CheckerTypes() []string {
	typesMu.RLock()
	names := make([]string, 0, len(declared)+len(types))
	for n := range types {
		if declared[n] == nil {
			names = append(names, n)
		}
	}
	typesMu.RUnlock()
	for n := range declared {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Patterns is a list of paths of which each may be a filepath.Match
// pattern (see IsGlob); a pattern that cannot be read is refused at load.
type Patterns []string

// Argv is a command in a config: a string, run with sh -c, or an array of
// strings, run as it is (the first is the program). Exactly one is set.
type Argv struct {
	Shell string
	Args  []string
}

// MarshalJSON writes the command as it was written: a string or an array.
func (a Argv) MarshalJSON() ([]byte, error) {
	if a.Args == nil {
		return json.Marshal(a.Shell)
	}
	return json.Marshal(a.Args)
}

// UnmarshalJSON reads a string or an array of strings. The decoder does
// not use it; it is what encoding/json, the decoder's reference in tests,
// and a round trip through JSON use.
func (a *Argv) UnmarshalJSON(b []byte) error {
	*a = Argv{}
	if err := json.Unmarshal(b, &a.Shell); err == nil {
		return nil
	}
	return json.Unmarshal(b, &a.Args)
}

// String shows the command as a person would type it.
func (a Argv) String() string {
	if a.Args == nil {
		return a.Shell
	}
	return fmt.Sprint(a.Args)
}

// kindOf says what JSON a field of Go type t holds in a config.
func kindOf(t reflect.Type) (kind, error) {
	switch t {
	case reflect.TypeOf(Duration(0)):
		return kDuration, nil
	case reflect.TypeOf(Patterns(nil)):
		return kGlobs, nil
	case reflect.TypeOf(Argv{}):
		return kArgv, nil
	case reflect.TypeOf(json.RawMessage(nil)):
		return kRaw, nil
	case reflect.TypeOf([]Checker(nil)):
		return kCheckers, nil
	case reflect.TypeOf(Checker{}):
		return kChecker, nil
	case reflect.TypeOf([]string(nil)):
		return kStrings, nil
	}
	switch t.Kind() {
	case reflect.String:
		return kString, nil
	case reflect.Int:
		return kInt, nil
	case reflect.Bool:
		return kBool, nil
	case reflect.Pointer:
		switch t.Elem().Kind() {
		case reflect.Bool:
			return kBool, nil // optional: nil means unset
		case reflect.String:
			// Optional: nil means unset, so that an options struct can
			// tell a key left out (its default) from "" written out.
			return kString, nil
		}
	case reflect.Struct:
		return kObject, checkOptionsType(t)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct {
			return kObjects, checkOptionsType(t.Elem())
		}
	}
	return 0, fmt.Errorf("a config cannot hold a %v", t)
}

// checkOptionsType checks that every field of the struct t with a json
// name has a Go type the config can decode.
func checkOptionsType(t reflect.Type) error {
	for i := range t.NumField() {
		f := t.Field(i)
		if jsonName(f) == "" || !f.IsExported() {
			continue
		}
		if _, err := kindOf(f.Type); err != nil {
			return fmt.Errorf("field %s: %w", f.Name, err)
		}
	}
	return nil
}
