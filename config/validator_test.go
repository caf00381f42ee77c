package config_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
)

// reference checks c with validator/v10 itself, on the same tags, and
// returns what validate must return.
func reference(t testing.TB, c *config.Config) []config.Problem {
	t.Helper()
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(config.JSONName)
	err := v.Struct(c)
	if err == nil {
		return nil
	}
	var fes validator.ValidationErrors
	require.True(t, errors.As(err, &fes), "validator: %v", err)
	ps := make([]config.Problem, len(fes))
	for i, fe := range fes {
		// The namespace is "Config.checkers[1].Options.command": drop the
		// type, and the Options field a checker's options are in (their
		// keys are the checker's own in the file).
		_, path, _ := strings.Cut(fe.Namespace(), ".")
		path = strings.ReplaceAll(path, ".Options.", ".")
		ps[i] = config.ProblemOf(path, fe.Tag(), fe.Param(), fe.Value())
	}
	return ps
}

// spec returns a checker of the registered type typ with the options set
// by JSON name; a name the type does not take, or a value its field
// cannot hold, is left out, so the same settings serve every type.
func spec(t testing.TB, typ string, set map[string]any) config.Checker {
	t.Helper()
	ct, ok := config.LookupType(typ)
	require.True(t, ok, "type %q is not registered", typ)
	opts := reflect.New(ct.Options).Elem()
	for i := range opts.NumField() {
		v, ok := set[config.JSONName(opts.Type().Field(i))]
		if !ok || v == nil {
			continue
		}
		f := opts.Field(i)
		if s, isString := v.(string); isString && f.Type() == reflect.TypeFor[config.Argv]() {
			v = config.Argv{Shell: s} // a command, as a string is in a file
		}
		if rv := reflect.ValueOf(v); rv.Type().ConvertibleTo(f.Type()) && rv.Kind() == f.Kind() {
			f.Set(rv.Convert(f.Type()))
		}
	}
	return config.Checker{Type: typ, Options: opts.Addr().Interface()}
}

// optionsOf returns the options of c, of type *T.
func optionsOf[T any](t testing.TB, c config.Checker) *T {
	t.Helper()
	o, ok := c.Options.(*T)
	require.True(t, ok, "options of a %q checker are %T", c.Type, c.Options)
	return o
}

// validConfig is a config that breaks no rule and sets every field.
func validConfig() *config.Config {
	no := false
	return &config.Config{
		Schema:    "https://raw.githubusercontent.com/donegate/donegate/main/schema/donegate.schema.json",
		Dialect:   "sdk",
		OnError:   "block",
		GateTools: []string{"StructuredOutput", "Write"},
		Limits:    config.Limits{MaxBlocks: 3, Deadline: config.Duration(time.Minute), Budget: config.Duration(time.Second)},
		Checkers: []config.Checker{
			{Type: "plan", Name: "plan", On: []string{"stop", "subagent_stop"}, Options: &checkers.PlanOptions{}},
			{Type: "files", Options: &checkers.FilesOptions{Paths: config.Patterns{"a", "b/*.go"}}},
			{Type: "command", Options: &checkers.CommandOptions{Command: "go test ./...", Timeout: config.Duration(time.Minute), Cache: &no}},
			{Type: "composite", On: []string{"manual"}, Options: &checkers.CompositeOptions{Mode: "any", Parallel: true, Checkers: []config.Checker{
				{Type: "plan", Options: &checkers.PlanOptions{}},
				{Type: "composite", Options: &checkers.CompositeOptions{Checkers: []config.Checker{
					{Type: "files", On: []string{"tool_use"}, Options: &checkers.FilesOptions{Paths: config.Patterns{"x"}}}}}},
			}}},
			{Type: "output", Options: &checkers.OutputOptions{Conditions: []config.Condition{{Path: "status", Equals: []byte(`"completed"`)}, {Path: "evidence", Exists: &no}}}},
			{Type: "claims", Options: &checkers.ClaimsOptions{Claims: []checkers.Claim{
				{Path: "validation.tests_passed", Checker: config.Checker{Type: "command", Options: &checkers.CommandOptions{Command: "go test ./..."}}},
				{Path: "validation.git_clean", Checker: config.Checker{Type: "git-clean", On: []string{"stop"}, Options: &checkers.GitCleanOptions{}}}}}},
		},
		CompletionSignal: []config.Condition{{Path: "status", Equals: []byte(`"completed"`)}, {Path: "next_action.action", Matches: "^complete$"}},
	}
}

// TestRulesMatchValidator: for each way to break a rule, alone and
// together, validate reports what validator/v10 reports, in its order.
func TestRulesMatchValidator(t *testing.T) {
	files := func(c *config.Config) *checkers.FilesOptions {
		return optionsOf[checkers.FilesOptions](t, c.Checkers[1])
	}
	command := func(c *config.Config) *checkers.CommandOptions {
		return optionsOf[checkers.CommandOptions](t, c.Checkers[2])
	}
	composite := func(c *config.Config) *checkers.CompositeOptions {
		return optionsOf[checkers.CompositeOptions](t, c.Checkers[3])
	}
	tests := []struct {
		name    string
		breakIt func(c *config.Config)
		want    []string // what the person reads; nil for a valid config
	}{
		{"valid", func(c *config.Config) {}, nil},
		{"defaults", func(c *config.Config) { *c = *config.Defaults(); c.Checkers = config.Default().Checkers }, nil},
		{"dialect", func(c *config.Config) { c.Dialect = "sdk2" }, []string{`dialect: must be one of claude-code, sdk, got "sdk2"`}},
		{"empty dialect", func(c *config.Config) { c.Dialect = "" }, []string{`dialect: must be one of claude-code, sdk, got ""`}},
		{"on_error", func(c *config.Config) { c.OnError = "deny" }, []string{`on_error: must be one of allow, block, got "deny"`}},
		{"empty gate tool", func(c *config.Config) { c.GateTools[1] = "" }, []string{"gate_tools[1]: required"}},
		{"no gate tools", func(c *config.Config) { c.GateTools = nil }, nil},
		{"max_blocks", func(c *config.Config) { c.Limits.MaxBlocks = 0 }, []string{"limits.max_blocks: must be at least 1"}},
		{"negative deadline", func(c *config.Config) { c.Limits.Deadline = -1 }, []string{"limits.deadline: must be at least 0"}},
		{"zero budget", func(c *config.Config) { c.Limits.Budget = 0 }, []string{"limits.budget: must be greater than 0"}},
		{"no checkers", func(c *config.Config) { c.Checkers = nil }, []string{`checkers: must not be empty; leave the key out to use the default, [{"type":"plan"},{"type":"test"}]`}},
		{"empty checkers", func(c *config.Config) { c.Checkers = []config.Checker{} }, []string{`checkers: must not be empty; leave the key out to use the default, [{"type":"plan"},{"type":"test"}]`}},
		{"one checker", func(c *config.Config) { c.Checkers = c.Checkers[:1] }, nil},
		{"no type", func(c *config.Config) { c.Checkers[0].Type = "" }, []string{"checkers[0].type: required"}},
		// Which names are types is the registry's to say, when decoding
		// (TestParseReportsAllAtOnce); the value rules only require one.
		{"unknown type", func(c *config.Config) { c.Checkers[0].Type = "pylint" }, nil},
		{"files without paths", func(c *config.Config) { files(c).Paths = nil }, []string{"checkers[1].paths: must not be empty"}},
		{"files with an empty path", func(c *config.Config) { files(c).Paths[0] = "" }, []string{"checkers[1].paths[0]: required"}},
		{"command without command", func(c *config.Config) { command(c).Command = "" }, []string{"checkers[2].command: required"}},
		// A test checker without one runs the project's detected test command.
		{"test without command", func(c *config.Config) { c.Checkers[2] = spec(t, "test", nil) }, nil},
		{"plan without command", func(c *config.Config) { c.Checkers[0].Options = &checkers.PlanOptions{} }, nil},
		{"negative timeout", func(c *config.Config) { command(c).Timeout = -1 }, []string{"checkers[2].timeout: must be at least 0"}},
		{"composite mode", func(c *config.Config) { composite(c).Mode = "some" }, []string{`checkers[3].mode: must be one of all, any, got "some"`}},
		{"composite without mode", func(c *config.Config) { composite(c).Mode = "" }, nil},
		{"composite without members", func(c *config.Config) { composite(c).Checkers = []config.Checker{} }, []string{"checkers[3].checkers: must not be empty"}},
		{"nested", func(c *config.Config) {
			inner := optionsOf[checkers.CompositeOptions](t, composite(c).Checkers[1])
			optionsOf[checkers.FilesOptions](t, inner.Checkers[0]).Paths = config.Patterns{""}
			inner.Checkers = append(inner.Checkers, spec(t, "command", nil))
		}, []string{"checkers[3].checkers[1].checkers[0].paths[0]: required", "checkers[3].checkers[1].checkers[1].command: required"}},
		{"a condition without a path", func(c *config.Config) { c.CompletionSignal[1].Path = "" }, []string{"completion_signal[1].path: required"}},
		{"an empty completion_signal", func(c *config.Config) { c.CompletionSignal = []config.Condition{} }, []string{"completion_signal: must not be empty"}},
		{"no completion_signal", func(c *config.Config) { c.CompletionSignal = nil }, nil},
		{"output without conditions", func(c *config.Config) { optionsOf[checkers.OutputOptions](t, c.Checkers[4]).Conditions = nil }, []string{"checkers[4].conditions: must not be empty"}},
		{"output condition without a path", func(c *config.Config) { optionsOf[checkers.OutputOptions](t, c.Checkers[4]).Conditions[1].Path = "" }, []string{"checkers[4].conditions[1].path: required"}},
		{"claims without claims", func(c *config.Config) {
			optionsOf[checkers.ClaimsOptions](t, c.Checkers[5]).Claims = []checkers.Claim{}
		}, []string{"checkers[5].claims: must not be empty"}},
		{"a claim without a checker", func(c *config.Config) {
			optionsOf[checkers.ClaimsOptions](t, c.Checkers[5]).Claims[1].Checker = config.Checker{}
		}, []string{"checkers[5].claims[1].checker: required"}},
		{"a claim's checker broken", func(c *config.Config) {
			cl := optionsOf[checkers.ClaimsOptions](t, c.Checkers[5]).Claims
			cl[0].Path = ""
			cl[0].Checker.Options.(*checkers.CommandOptions).Command = ""
			cl[1].Checker.On = []string{"Stop"}
		}, []string{"checkers[5].claims[0].path: required", "checkers[5].claims[0].checker.command: required",
			`checkers[5].claims[1].checker.on[0]: must be one of stop, subagent_stop, tool_use, manual, got "Stop"`}},
		{"on, unknown event", func(c *config.Config) { c.Checkers[0].On[1] = "subagent" }, []string{`checkers[0].on[1]: must be one of stop, subagent_stop, tool_use, manual, got "subagent"`}},
		{"on, empty", func(c *config.Config) { c.Checkers[3].On = []string{} }, []string{"checkers[3].on: must not be empty"}},
		{"on, left out", func(c *config.Config) { c.Checkers[0].On = nil }, nil},
		{"on of a member", func(c *config.Config) {
			inner := optionsOf[checkers.CompositeOptions](t, composite(c).Checkers[1])
			inner.Checkers[0].On = []string{"tool_use", "Stop"}
		}, []string{`checkers[3].checkers[1].checkers[0].on[1]: must be one of stop, subagent_stop, tool_use, manual, got "Stop"`}},
		{"on before the options", func(c *config.Config) {
			c.Checkers[2].On = []string{"never"}
			command(c).Command = ""
		}, []string{
			`checkers[2].on[0]: must be one of stop, subagent_stop, tool_use, manual, got "never"`,
			"checkers[2].command: required",
		}},
		{"several, in field order", func(c *config.Config) {
			c.OnError = "x"
			c.Dialect = "x"
			c.Limits.MaxBlocks = -2
			composite(c).Mode = "x"
			composite(c).Checkers = nil
			c.Checkers[1] = spec(t, "command", nil)
		}, []string{
			`dialect: must be one of claude-code, sdk, got "x"`,
			"checkers[1].command: required",
			`checkers[3].mode: must be one of all, any, got "x"`,
			"checkers[3].checkers: must not be empty",
			"limits.max_blocks: must be at least 1",
			`on_error: must be one of allow, block, got "x"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := validConfig()
			tt.breakIt(c)
			got := config.Validate(c)
			require.Equal(t, reference(t, c), got, "validate and validator/v10 disagree")
			var msgs []string
			for _, p := range got {
				msgs = append(msgs, p.String())
			}
			assert.Equal(t, tt.want, msgs)
		})
	}
}

// TestOnNamesEveryEvent: the rule on "on" lists the events, in order.
func TestOnNamesEveryEvent(t *testing.T) {
	f, ok := reflect.TypeFor[config.Checker]().FieldByName("On")
	require.True(t, ok)
	assert.Equal(t, "omitempty,min=1,dive,oneof="+strings.Join(config.Events, " "), f.Tag.Get("validate"))
}

// FuzzRulesMatchValidator builds configs from arbitrary values, through
// the registered types, and requires validate to report exactly what
// validator/v10 reports.
func FuzzRulesMatchValidator(f *testing.F) {
	f.Add("claude-code", "allow", "StructuredOutput", 5, int64(0), int64(time.Minute), "test", "", "", "all", "x", true, uint8(2), uint8(2), "stop manual")
	f.Add("", "", "", 0, int64(-1), int64(0), "", "go test", "name", "", "", false, uint8(0), uint8(3), "")
	f.Add("sdk", "block", "", -3, int64(5), int64(-5), "composite", "", "n", "some", "", true, uint8(1), uint8(0), "-")
	f.Add("x", "y", "z", 1, int64(1), int64(1), "files", "cmd", "", "any", "", false, uint8(3), uint8(1), "tool_use x")
	f.Fuzz(func(t *testing.T, dialect, onError, tool string, maxBlocks int, deadline, budget int64,
		typ, command, name, mode, path string, nest bool, chain, kind uint8, on string) {
		types := checkers.Types()
		set := map[string]any{"command": command, "mode": mode, "timeout": config.Duration(deadline)}
		if path != "" || nest {
			set["paths"] = []string{path}
		}
		if nest {
			set["checkers"] = []config.Checker{spec(t, types[int(kind)/len(types)%len(types)].Name, map[string]any{"paths": []string{path}}), spec(t, "plan", nil)}
		}
		member := spec(t, types[int(kind)%len(types)].Name, set)
		member.Type, member.Name = typ, name
		switch on {
		case "":
		case "-":
			member.On = []string{} // breaks min=1
		default:
			member.On = strings.Fields(on)
		}
		c := &config.Config{
			Dialect:   dialect,
			OnError:   onError,
			GateTools: []string{tool},
			Limits:    config.Limits{MaxBlocks: maxBlocks, Deadline: config.Duration(deadline), Budget: config.Duration(budget)},
			Checkers:  []config.Checker{member, spec(t, "composite", map[string]any{"mode": mode, "checkers": []config.Checker{member}})},
		}
		switch chain % 4 { // 2 keeps both; 3, nil, and 0, empty, break min=1
		case 0:
			c.Checkers = []config.Checker{}
		case 1:
			c.Checkers = c.Checkers[:1]
		case 3:
			c.Checkers = nil
		}
		if want, got := reference(t, c), config.Validate(c); !reflect.DeepEqual(want, got) {
			t.Fatalf("validate and validator/v10 disagree on %+v:\nvalidator: %v\nvalidate:  %v", c, want, got)
		}
	})
}

// TestUnknownRulePanics: a tag the rules do not implement is a programming
// error that must not pass as valid.
func TestUnknownRulePanics(t *testing.T) {
	type withEmail struct {
		Mail string `json:"mail" validate:"email"`
	}
	assert.PanicsWithValue(t, `config: rule "email" on mail is not supported; add it to applyRules and to the tests`, func() {
		config.CheckStruct(withEmail{})
	})
}
