package config_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/config"
)

// kindsOptions uses every kind of option no registered type uses yet, so
// that the first type that does finds them decoded, checked and
// validated like the others.
type kindsOptions struct {
	Cmd   config.Argv     `json:"cmd" validate:"required"`
	Env   kindsEnv        `json:"env"`
	Steps []kindsStep     `json:"steps,omitempty" validate:"dive"`
	Extra json.RawMessage `json:"extra,omitempty"`
}

type kindsEnv struct {
	Name  string `json:"name" validate:"required"`
	Limit int    `json:"limit,omitempty" validate:"gte=0"`
}

type kindsStep struct {
	Run   string          `json:"run" validate:"required"`
	Globs config.Patterns `json:"globs,omitempty"`
}

// CheckOptions says what tags cannot: a command may not be "bad".
func (o *kindsOptions) CheckOptions() []config.Problem {
	if o.Cmd.Shell == "bad" {
		return []config.Problem{{Path: "cmd", Message: "is bad"}}
	}
	return nil
}

// groupOptions make a composite of a type that is not "composite".
type groupOptions struct {
	Members []config.Checker `json:"members" validate:"min=1,dive"`
}

// registerKinds registers the types "kinds" and "group" for the test.
func registerKinds(t *testing.T) {
	config.RegisterForTest(t, config.CheckerType{Name: "kinds", Options: reflect.TypeFor[kindsOptions](), DefaultOn: []string{config.OnManual}})
	config.RegisterForTest(t, config.CheckerType{Name: "group", Options: reflect.TypeFor[groupOptions](), DefaultOn: config.Events})
}

// TestDecodeEveryKind: objects, arrays of objects, any JSON and commands
// are decoded by the same code as the rest, with the same messages and
// paths; nested objects are validated by their tags; a type's
// CheckOptions runs on options that decoded well, with its paths under
// the checker's.
func TestDecodeEveryKind(t *testing.T) {
	registerKinds(t)
	tests := []struct {
		name    string
		checker string
		want    *kindsOptions // when valid
		errs    []string
	}{
		{"every kind", `{"type":"kinds","cmd":["go","test"],"env":{"name":"x","limit":2},"steps":[{"run":"a","globs":["*.go"]},{"run":"b"}],"extra":{"a":[1, {"b":null}]}}`,
			&kindsOptions{Cmd: config.Argv{Args: []string{"go", "test"}}, Env: kindsEnv{Name: "x", Limit: 2},
				Steps: []kindsStep{{Run: "a", Globs: config.Patterns{"*.go"}}, {Run: "b"}}, Extra: json.RawMessage(`{"a":[1, {"b":null}]}`)}, nil},
		{"a command string", `{"type":"kinds","cmd":"go test","env":{"name":"x"}}`,
			&kindsOptions{Cmd: config.Argv{Shell: "go test"}, Env: kindsEnv{Name: "x"}}, nil},
		{"a command of another type", `{"type":"kinds","cmd":3,"env":{"name":"x"}}`, nil,
			[]string{"checkers[0].cmd: expected a command string or an array of strings, got the number 3"}},
		{"a command array of another type", `{"type":"kinds","cmd":["go",3],"env":{"name":"x"}}`, nil,
			[]string{"checkers[0].cmd[1]: expected a string, got the number 3"}},
		{"no command", `{"type":"kinds","env":{"name":"x"}}`, nil, []string{"checkers[0].cmd: required"}},
		{"an object of another type", `{"type":"kinds","cmd":"x","env":[]}`, nil, []string{"checkers[0].env: expected an object, got an array"}},
		{"an unknown key in an object", `{"type":"kinds","cmd":"x","env":{"nmae":"x"}}`, nil,
			[]string{`checkers[0].env.nmae: unknown key (did you mean "name"? valid: limit, name)`}},
		{"a key twice in an object", `{"type":"kinds","cmd":"x","env":{"name":"x","name":"y"}}`, nil, []string{"checkers[0].env.name: duplicate key"}},
		{"rules in an object", `{"type":"kinds","cmd":"x","env":{"limit":-1}}`, nil,
			[]string{"checkers[0].env.name: required", "checkers[0].env.limit: must be at least 0"}},
		{"objects of another type", `{"type":"kinds","cmd":"x","env":{"name":"x"},"steps":{}}`, nil,
			[]string{"checkers[0].steps: expected an array of objects, got an object"}},
		{"an element of another type", `{"type":"kinds","cmd":"x","env":{"name":"x"},"steps":[{"run":"a"},"b",{}]}`, nil,
			[]string{`checkers[0].steps[1]: expected an object, got the string "b"`, "checkers[0].steps[2].run: required"}},
		{"a glob in an element", `{"type":"kinds","cmd":"x","env":{"name":"x"},"steps":[{"run":"a","globs":["dist/["]}]}`, nil,
			[]string{`checkers[0].steps[0].globs[0]: invalid glob pattern "dist/[": syntax error in pattern`}},
		{"a key twice in any JSON", `{"type":"kinds","cmd":"x","env":{"name":"x"},"extra":[{"a":{"b":1,"b":2}}]}`, nil,
			[]string{"checkers[0].extra[0].a.b: duplicate key"}},
		{"CheckOptions", `{"type":"kinds","cmd":"bad","env":{"name":"x"}}`, nil, []string{"checkers[0].cmd: is bad"}},
		{"CheckOptions only on options that decoded", `{"type":"kinds","cmd":"bad","env":{"name":3}}`, nil,
			[]string{"checkers[0].env.name: expected a string, got the number 3"}},
		{"a key of another type", `{"type":"plan","cmd":"x"}`, nil, []string{`checkers[0].cmd: not used by a "plan" checker (only by kinds)`}},
		{"a type's members", `{"type":"group","members":[{"type":"kinds","cmd":"x","env":{}}]}`, nil,
			[]string{"checkers[0].members[0].env.name: required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{"checkers":[` + tt.checker + `]}`
			c, err := config.Parse(strings.NewReader(doc), "t.json")
			if tt.want == nil {
				assert.Equal(t, tt.errs, problems(t, doc))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.Checkers[0].Options)
			// encoding/json, the decoder's reference, reads the same, and
			// the config survives a round trip.
			ref := config.Defaults()
			require.NoError(t, json.Unmarshal([]byte(doc), ref))
			assert.Equal(t, ref.Checkers, c.Checkers)
			out, err := json.Marshal(c)
			require.NoError(t, err)
			again, err := config.Parse(strings.NewReader(string(out)), "t.json")
			require.NoError(t, err, "%s", out)
			// json.Marshal compacts a json.RawMessage: compare as JSON.
			outAgain, err := json.Marshal(again)
			require.NoError(t, err)
			assert.JSONEq(t, string(out), string(outAgain))
		})
	}
}

// TestAnyTypeWithCheckersIsAComposite: the nesting bound holds for every
// type whose options hold checkers, not only for "composite".
func TestAnyTypeWithCheckersIsAComposite(t *testing.T) {
	registerKinds(t)
	group, _ := config.LookupType("group")
	kinds, _ := config.LookupType("kinds")
	assert.True(t, group.Composite())
	assert.False(t, kinds.Composite())

	nested := func(n int, inner string) string {
		return `{"checkers":[` + strings.Repeat(`{"type":"group","members":[`, n) + inner + strings.Repeat(`]}`, n) + `]}`
	}
	_, err := config.Parse(strings.NewReader(nested(config.MaxCompositeDepth, `{"type":"plan"}`)), "t.json")
	require.NoError(t, err)
	_, err = config.Parse(strings.NewReader(nested(config.MaxCompositeDepth+1, "")), "t.json")
	require.ErrorContains(t, err, "composites nest deeper than 32 levels")

	// A member whose options nest deeper than a files checker's paths is
	// allowed at the deepest level too: the JSON bound follows the types.
	deep := `{"type":"kinds","cmd":"x","env":{"name":"n"},"steps":[{"run":"r","globs":["a"]}],"extra":{"a":[[1]]}}`
	_, err = config.Parse(strings.NewReader(nested(config.MaxCompositeDepth, deep)), "t.json")
	require.NoError(t, err)
}

// TestJSONDepthFollowsTheTypes: with the shipped types the bound is 117
// levels (an output checker's conditions, holding any JSON, under 32
// claims checkers, each three levels: its object, its claims, a claim);
// it grows with a type whose options nest deeper or whose members lie
// deeper, and shrinks back when that type goes.
func TestJSONDepthFollowsTheTypes(t *testing.T) {
	const shipped = 2 + 3*32 + 19
	assert.Equal(t, shipped, config.MaxJSONDepth())
	t.Run("with deeper options", func(t *testing.T) {
		type deepRaw struct {
			Steps []struct {
				Extra struct {
					Raw json.RawMessage `json:"raw"`
				} `json:"extra"`
			} `json:"steps"`
		}
		config.RegisterForTest(t, config.CheckerType{Name: "deep", Options: reflect.TypeFor[deepRaw]()})
		assert.Equal(t, shipped+1, config.MaxJSONDepth())
	})
	t.Run("with members deeper", func(t *testing.T) {
		type deepMembers struct {
			Groups []struct {
				Members []config.Checker `json:"members"`
			} `json:"groups"`
		}
		config.RegisterForTest(t, config.CheckerType{Name: "deep", Options: reflect.TypeFor[deepMembers]()})
		assert.Equal(t, shipped+32, config.MaxJSONDepth())
		ct, _ := config.LookupType("deep")
		assert.True(t, ct.Composite())
	})
	assert.Equal(t, shipped, config.MaxJSONDepth())
}

// TestRegisterTypeRefusesMistakes: a type the config could not decode is
// refused when it registers (the cheap checks) or by CheckTypes (those of
// its fields, which TestEveryTypeIsValid runs over the shipped types), not
// when a config first uses it.
func TestRegisterTypeRefusesMistakes(t *testing.T) {
	type withMap struct {
		M map[string]string `json:"m"`
	}
	type withName struct {
		Name string `json:"name"`
	}
	tests := []struct {
		name string
		ct   config.CheckerType
		want string
	}{
		{"twice", config.CheckerType{Name: "plan", Options: reflect.TypeFor[struct{}]()}, `config: checker type "plan" registered twice or unnamed`},
		{"not a struct", config.CheckerType{Name: "x", Options: reflect.TypeFor[string]()}, `config: checker type "x": options must be a struct type, got string`},
		{"an event that is not one", config.CheckerType{Name: "x", Options: reflect.TypeFor[struct{}](), DefaultOn: []string{"stopp"}}, `config: checker type "x": unknown event "stopp" in DefaultOn`},
		{"an Only event that is not one", config.CheckerType{Name: "x", Options: reflect.TypeFor[struct{}](), Only: []string{"tool"}}, `config: checker type "x": unknown event "tool" in Only`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.PanicsWithValue(t, tt.want, func() { config.RegisterType(tt.ct) })
			_, registered := config.LookupType("x")
			assert.False(t, registered)
		})
	}
	fields := []struct {
		name string
		ct   config.CheckerType
		want string
	}{
		{"a field it cannot decode", config.CheckerType{Name: "x", Options: reflect.TypeFor[withMap]()}, `config: checker type "x": field M: a config cannot hold a map[string]string`},
		{"a key every checker has", config.CheckerType{Name: "x", Options: reflect.TypeFor[withName]()}, `config: checker type "x": option "name" is a key every checker has`},
	}
	for _, tt := range fields {
		t.Run(tt.name, func(t *testing.T) {
			config.RegisterForTest(t, tt.ct)
			assert.EqualError(t, config.CheckTypes(), tt.want)
		})
	}
}

// TestDeclaredTypeIsRegisteredWhenFirstNeeded: a declared type is listed
// without being built, built once when a config or a lookup first needs
// it, whoever asks first and however many at once, and registered by its
// declaration alone.
func TestDeclaredTypeIsRegisteredWhenFirstNeeded(t *testing.T) {
	var built atomic.Int32
	config.DeclareForTest(t, "lazy-x", func() config.CheckerType {
		built.Add(1)
		return config.CheckerType{Name: "lazy-x", Options: reflect.TypeFor[struct {
			Min int `json:"min"`
		}](), DefaultOn: []string{config.OnStop}}
	})
	assert.Contains(t, config.CheckerTypes(), "lazy-x")
	assert.Zero(t, built.Load(), "listed, not built")
	assert.Panics(t, func() { config.RegisterType(config.CheckerType{Name: "lazy-x", Options: reflect.TypeFor[struct{}]()}) },
		"a declared name is its declaration's to register")

	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := config.Defaults()
			problems, _ := config.Decode([]byte(`{"checkers":[{"type":"lazy-x","min":2}]}`), c)
			assert.Empty(t, problems)
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), built.Load(), "built once")
	ct, ok := config.LookupType("lazy-x")
	require.True(t, ok)
	assert.Equal(t, []string{config.OnStop}, ct.DefaultOn)
	assert.Equal(t, int32(1), built.Load())
}

// TestABrokenTypeIsAnErrorNotAPanic: a declared type that cannot be built
// — its build panics, gives another name or an event that is none, or
// its name is declared twice — is an error where it is used (a problem
// of the config that names it, an error of CheckTypes), never a panic
// in a hook; the other types go on.
func TestABrokenTypeIsAnErrorNotAPanic(t *testing.T) {
	empty := reflect.TypeFor[struct{}]()
	for _, tt := range []struct {
		name    string
		declare func(t *testing.T)
		want    string
	}{
		{"its build panics", func(t *testing.T) {
			config.DeclareForTest(t, "broken-x", func() config.CheckerType { panic("a Summary is missing") })
		}, `building it panicked: a Summary is missing`},
		{"it is built under another name", func(t *testing.T) {
			config.DeclareForTest(t, "broken-x", func() config.CheckerType { return config.CheckerType{Name: "other", Options: empty} })
		}, `declared, and built as "other"`},
		{"an event that is none", func(t *testing.T) {
			config.DeclareForTest(t, "broken-x", func() config.CheckerType {
				return config.CheckerType{Name: "broken-x", Options: empty, DefaultOn: []string{"stopp"}}
			})
		}, `unknown event "stopp" in DefaultOn`},
		{"declared twice", func(t *testing.T) {
			build := func() config.CheckerType { return config.CheckerType{Name: "broken-x", Options: empty} }
			config.DeclareForTest(t, "broken-x", build)
			config.DeclareForTest(t, "broken-x", build)
		}, `declared twice`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.declare(t)
			var problems []config.Problem
			require.NotPanics(t, func() {
				problems, _ = config.Decode([]byte(`{"checkers":[{"type":"broken-x"},{"type":"plan"}]}`), config.Defaults())
			})
			require.Len(t, problems, 1)
			assert.Equal(t, "checkers[0].type", problems[0].Path)
			assert.Contains(t, problems[0].Message, `checker type "broken-x" cannot be used, a mistake of donegate's own`)
			assert.Contains(t, problems[0].Message, tt.want)
			require.Error(t, config.TypeError("broken-x"))
			assert.Contains(t, config.CheckTypes().Error(), tt.want)
			_, ok := config.LookupType("broken-x")
			assert.False(t, ok)
			_, ok = config.LookupType("plan")
			assert.True(t, ok, "the other types go on")
		})
	}
	assert.NoError(t, config.CheckTypes(), "gone with the test")
}

// TestTheEventListIsOne: the value rule of a checker's "on" names
// config.Events, the one list of events (package checkers' StopReasons
// are its constants).
func TestTheEventListIsOne(t *testing.T) {
	f, ok := reflect.TypeFor[config.Checker]().FieldByName("On")
	require.True(t, ok)
	_, list, ok := strings.Cut(f.Tag.Get("validate"), "oneof=")
	require.True(t, ok)
	assert.Equal(t, strings.Join(config.Events, " "), list)
}
