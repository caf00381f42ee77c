package checkers

import (
	"fmt"
	"reflect"

	"github.com/donegate/donegate/config"
)

// A Type is one kind of checker, described in one value in the type's own
// file: its name, what "complete" means, its options, when it runs, the
// failure patterns it reports and how it is built. Registering it makes it
// known to the config (keys, kinds and value rules are derived from
// Options) and to FromConfig.
type Type struct {
	// Name is the config's "type".
	Name string
	// Summary says in one line when a checker of the type is complete; the
	// reference in docs/checkers.md and error messages use it.
	Summary string
	// Options is a nil pointer to the type's options struct, such as
	// (*CommandOptions)(nil), set by register from its type parameter: see
	// config.CheckerType.Options.
	Options any
	// DefaultOn lists the events it runs at unless its config says "on".
	DefaultOn []StopReason
	// Only lists the only events a checker of the type can run at (nil:
	// any): an "on" naming another is refused at load, and At leaves the
	// checker out there whatever the composites around it say.
	Only []StopReason
	// Patterns lists the failure patterns its checkers report (see
	// Context.Fail), each worded by the built-in template
	// internal/feedback/templates/<pattern>.tmpl; a composite reports its
	// members' and lists none. TestEveryPatternHasATemplate holds the
	// list, the templates and what checkers report to one another.
	Patterns []string
	// Example is a checker of the type as a config writes it, setting
	// every key the type takes to a value that breaks no rule: the
	// schema's tests break one key of it at a time.
	Example string
	// New builds a checker from its config; set by register.
	New func(spec config.Checker) (Checker, error)
	// Describe says in one line what this configured checker requires,
	// for closer check's checklist and the criteria told up front; the
	// checker's label is not part of it (see the function Describe). Set
	// by register.
	Describe func(spec config.Checker) string
	// ProjectState is set for a type that checks the state of the project
	// (its tests, files, git, an issue) rather than what the agent said or
	// planned: in a session whose agent changed nothing, it does not hold
	// (see AgentOnly).
	ProjectState bool
	// Commands lists the processes a configured checker of the type
	// starts in the project in dir (see ProjectCommand), detecting them
	// as its check does; nil for a type that starts none. Set with
	// commands; a type that starts a process without it fails
	// TestEveryCommandNeedsConsent.
	Commands func(spec config.Checker, dir string) ([]ProjectCommand, error)
}

// declare makes the checker type called name known, here and to the
// config, built by build (which calls register) when either first asks
// for it: the config's registry is the one registry, and it keeps the
// built *Type beside what the config reads of it (CheckerType.Impl).
// Each type's file declares its type in a package-level var, so every
// binary that links checkers knows every type; building all 18 at every
// hook's start, where a stop's config names two or three and an ungated
// tool call none, cost it a tenth of a millisecond (docs/performance.md).
// A mistake in a type (see register) is an error of that type's, told
// where it is used, never a panic on a hook's path.
func declare(name string, build func() *Type) string {
	config.DeclareType(name, func() config.CheckerType {
		t := build()
		return config.CheckerType{Name: t.Name, Options: reflect.TypeOf(t.Options).Elem(), DefaultOn: events(t.DefaultOn), Only: events(t.Only), Impl: t}
	})
	return name
}

// register builds t, with the functions that build a checker of it and
// describe one from its options: a *O, decoded and valid, asserted here
// once for every type. A type's declare calls it, and the config
// registers what it builds. It panics on a mistake in t.
func register[O any](t Type, build func(*O) (Checker, error), describe func(*O) string) *Type {
	if t.Options != nil || t.New != nil || t.Describe != nil || build == nil || describe == nil || t.Summary == "" || t.Example == "" {
		panic(fmt.Sprintf("checkers: type %q needs a Summary, an Example, a build and a describe function (and leaves Options, New and Describe to register)", t.Name))
	}
	t.Options = (*O)(nil)
	t.New = func(spec config.Checker) (Checker, error) {
		o, ok := spec.Options.(*O)
		if !ok {
			// A config.Checker built by hand, not decoded.
			return nil, fmt.Errorf("%s checker: options are %T, want %T", spec.Type, spec.Options, (*O)(nil))
		}
		if o == nil {
			o = new(O) // built by hand too: its defaults
		}
		return build(o)
	}
	t.Describe = func(spec config.Checker) string {
		o, _ := spec.Options.(*O)
		if o == nil {
			o = new(O) // as in New, a spec built by hand: its defaults
		}
		return describe(o)
	}
	return &t
}

// events returns rs as the config's event names; nil stays nil.
func events(rs []StopReason) []string {
	if rs == nil {
		return nil
	}
	on := make([]string, len(rs))
	for i, r := range rs {
		on[i] = string(r)
	}
	return on
}

// LookupType returns the declared type called name; false for none, or
// for one whose declaration is broken (config.TypeError says why).
func LookupType(name string) (*Type, bool) {
	ct, ok := config.LookupType(name)
	if !ok {
		return nil, false
	}
	t, ok := ct.Impl.(*Type)
	return t, ok
}

// Types returns every declared type that builds, sorted by name.
func Types() []*Type {
	var ts []*Type
	for _, name := range config.CheckerTypes() {
		if t, ok := LookupType(name); ok {
			ts = append(ts, t)
		}
	}
	return ts
}

// allReasons is every event a checker can run at, for DefaultOn:
// config.Events.
func allReasons() []StopReason {
	rs := make([]StopReason, len(config.Events))
	for i, e := range config.Events {
		rs[i] = StopReason(e)
	}
	return rs
}

// Most types look at the project, not at one agent: they do not run when
// a subagent stops (every subagent would run the test suite).
var projectReasons = []StopReason{ReasonStop, ReasonToolUse, ReasonManual}

// The structured output's checkers read the gated tool's input, which
// only a tool_use event carries.
var toolReasons = []StopReason{ReasonToolUse}
