package config

import (
	"reflect"
	"testing"
)

// What the external tests (package config_test, which imports checkers
// for its registered types: config itself cannot) need of the internals.

var (
	Decode   = decode
	Defaults = defaults
	Validate = validate
	// GlobError is globError.
	GlobError = globError
	// JSONName is jsonName.
	JSONName = jsonName
	// JSONEqual is jsonEqual, how a condition's equals compares.
	JSONEqual = jsonEqual
)

// MaxCompositeDepth is maxCompositeDepth.
const MaxCompositeDepth = maxCompositeDepth

// ProblemOf is what validate reports for a value that breaks the rule tag
// (with param) at path.
func ProblemOf(path, tag, param string, value any) Problem {
	return violation{path: path, tag: tag, param: param, value: value}.Problem()
}

// CheckStruct applies the value rules to the struct v.
func CheckStruct(v any) []Problem {
	var vs []violation
	checkStruct(reflect.ValueOf(v), nil, &vs)
	var ps []Problem
	for _, v := range vs {
		ps = append(ps, v.Problem())
	}
	return ps
}

// KeysOf returns the keys the decoder takes for a JSON object decoded into
// the struct type t, with what each holds.
func KeysOf(t reflect.Type) map[string]string {
	keys := map[string]string{}
	for name, f := range fieldsOf(t) {
		keys[name] = f.kind.String()
	}
	return keys
}

// CheckerKeys returns the keys a checker of the registered type name takes.
func CheckerKeys(name string) []string { return checkerKeys(lookupType(name)) }

// RegisterForTest registers ct for the length of the test t: a type that
// stays registered would change the lists of types other tests expect.
func RegisterForTest(t testing.TB, ct CheckerType) {
	RegisterType(ct)
	nesting = newNesting()
	t.Cleanup(func() {
		typesMu.Lock()
		delete(types, ct.Name)
		typesMu.Unlock()
		nesting = newNesting()
	})
}

// DeclareForTest declares the type name for the length of the test t.
func DeclareForTest(t testing.TB, name string, build func() CheckerType) {
	DeclareType(name, build)
	nesting = newNesting()
	t.Cleanup(func() {
		delete(declared, name)
		typesMu.Lock()
		delete(types, name)
		typesMu.Unlock()
		nesting = newNesting()
	})
}

// MaxJSONDepth is maxJSONDepth, for tests.
var MaxJSONDepth = maxJSONDepth

// DefaultJSON is the embedded default config's file.
var DefaultJSON = defaultJSON
