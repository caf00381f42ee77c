package checkers

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/donegate/donegate/config"
)

// FromConfig builds the configured chain, an implicit composite of mode
// all, of the checkers that run at reason (see At). A chain with nothing
// left to run at reason is complete.
func FromConfig(c *config.Config, reason StopReason) (Checker, error) {
	return newComposite(false, false, At(c.Checkers, reason))
}

// New builds one checker from its config, members and all, whatever
// their "on".
func New(spec config.Checker) (Checker, error) {
	t, ok := LookupType(spec.Type)
	if !ok {
		if err := config.TypeError(spec.Type); err != nil {
			// A mistake of donegate's own, found when the type was built.
			return nil, fmt.Errorf("checker type %q cannot be used: %w", spec.Type, err)
		}
		// config validation makes this unreachable; keep it an error, not a panic.
		return nil, fmt.Errorf("unknown checker type %q", spec.Type)
	}
	return t.New(spec)
}

func newComposite(any, parallel bool, specs []config.Checker) (Composite, error) {
	m := Composite{Any: any, Parallel: parallel, Members: make([]Member, len(specs))}
	for i, s := range specs {
		ch, err := New(s)
		if err != nil {
			return Composite{}, err
		}
		m.Members[i] = Member{Label: s.Label(), Checker: ch}
	}
	return m, nil
}

// Describe says in one line what spec requires, after its label: "unit:
// `go test ./...` passes".
func Describe(spec config.Checker) string {
	return spec.Label() + ": " + requirement(spec)
}

// requirement says what spec requires in its type's own words, without
// its label: "`go test ./...` passes".
func requirement(spec config.Checker) string {
	if t, ok := LookupType(spec.Type); ok {
		return t.Describe(spec)
	}
	return spec.Type // config validation makes this unreachable
}

// At returns the checkers of specs that run at reason, with the members
// of each composite that do not run there left out. A checker runs where
// its own "on" says, else where the nearest composite around it that sets
// "on" says, else at its type's DefaultOn. A composite that sets neither
// runs where any of its members runs: one left with no member is dropped.
// specs are not changed.
func At(specs []config.Checker, reason StopReason) []config.Checker {
	return at(specs, string(reason), nil)
}

// at is At inside composites whose nearest "on" is inherited (nil: none).
func at(specs []config.Checker, reason string, inherited []string) []config.Checker {
	var out []config.Checker
	for _, s := range specs {
		if s, ok := runsAt(s, reason, inherited); ok {
			out = append(out, s)
		}
	}
	return out
}

// runsAt reports whether spec runs at reason and returns it with the
// members that do not run there left out.
func runsAt(spec config.Checker, reason string, inherited []string) (config.Checker, bool) {
	on := spec.On
	if on == nil {
		on = inherited
	}
	if t, ok := LookupType(spec.Type); ok && t.Only != nil && !slices.Contains(t.Only, StopReason(reason)) {
		return spec, false // it cannot run there, whatever is inherited
	}
	members := memberLists(spec)
	if members == nil {
		if on == nil {
			t, ok := LookupType(spec.Type)
			return spec, ok && slices.Contains(t.DefaultOn, StopReason(reason))
		}
		return spec, slices.Contains(on, reason)
	}
	if on != nil && !slices.Contains(on, reason) {
		return spec, false
	}
	spec, left := withMembers(spec, members, func(list []config.Checker) []config.Checker { return at(list, reason, on) })
	return spec, left > 0
}

// withMembers returns spec with each of its member lists (the fields
// members names) replaced by what keep makes of it, and how many members
// are left. The options are copied: the config is shared by every event
// a process checks.
func withMembers(spec config.Checker, members []int, keep func([]config.Checker) []config.Checker) (config.Checker, int) {
	opts := reflect.New(reflect.TypeOf(spec.Options).Elem())
	opts.Elem().Set(reflect.ValueOf(spec.Options).Elem())
	left := 0
	for _, i := range members {
		f := opts.Elem().Field(i)
		kept := keep(f.Interface().([]config.Checker))
		left += len(kept)
		f.Set(reflect.ValueOf(kept))
	}
	spec.Options = opts.Interface()
	return spec, left
}

// checkerList is the Go type of a field that holds members.
var checkerList = reflect.TypeFor[[]config.Checker]()

// memberLists returns the indexes of the fields of spec's options that
// hold member checkers; nil for a checker that holds none.
func memberLists(spec config.Checker) []int {
	if spec.Options == nil {
		return nil
	}
	t := reflect.TypeOf(spec.Options).Elem()
	var idx []int
	for i := range t.NumField() {
		if t.Field(i).Type == checkerList {
			idx = append(idx, i)
		}
	}
	return idx
}

// Chain builds the chain of specs, as FromConfig does of a config's.
func Chain(specs []config.Checker) (Checker, error) {
	return newComposite(false, false, specs)
}

// AgentOnly returns specs without the checkers of the project's state
// (Type.ProjectState: tests, commands, the presets, git, files, issues,
// judges, external programs), composites keeping their other members,
// and the labels of those it left out. What is left checks what the
// agent itself said and planned: the plan, its keyword, its phase, its
// structured output and claims.
func AgentOnly(specs []config.Checker) (kept []config.Checker, dropped []string) {
	for _, s := range specs {
		t, ok := LookupType(s.Type)
		if ok && t.ProjectState {
			dropped = append(dropped, s.Label())
			continue
		}
		members := memberLists(s)
		if members == nil {
			kept = append(kept, s)
			continue
		}
		s, left := withMembers(s, members, func(list []config.Checker) []config.Checker {
			k, d := AgentOnly(list)
			dropped = append(dropped, d...)
			return k
		})
		if left > 0 {
			kept = append(kept, s)
		}
	}
	return kept, dropped
}
