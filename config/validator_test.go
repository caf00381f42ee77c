package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reference checks c with validator/v10 itself, on the same tags, and
// returns what validate must return.
func reference(t testing.TB, c *Config) []Problem {
	t.Helper()
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(jsonName)
	v.RegisterStructValidation(func(sl validator.StructLevel) {
		c := sl.Current().Interface().(Checker)
		field, empty := c.nonemptyByType()
		if !empty {
			return
		}
		cur := sl.Current()
		for i := range cur.NumField() {
			if f := cur.Type().Field(i); jsonName(f) == field {
				sl.ReportError(cur.Field(i).Interface(), field, f.Name, ruleNonempty, "")
				return
			}
		}
		t.Fatalf("Checker has no field named %q in JSON", field)
	}, Checker{})

	err := v.Struct(c)
	if err == nil {
		return nil
	}
	var fes validator.ValidationErrors
	require.True(t, errors.As(err, &fes), "validator: %v", err)
	ps := make([]Problem, len(fes))
	for i, fe := range fes {
		// The namespace is "Config.checkers[1].command"; drop the type.
		_, path, _ := strings.Cut(fe.Namespace(), ".")
		ps[i] = violation{path: path, tag: fe.Tag(), param: fe.Param(), value: fe.Value()}.Problem()
	}
	return ps
}

// validConfig is a config that breaks no rule and sets every field.
func validConfig() *Config {
	no := false
	return &Config{
		Dialect:   "sdk",
		OnError:   "block",
		GateTools: []string{"StructuredOutput", "Write"},
		Limits:    Limits{MaxBlocks: 3, Deadline: Duration(time.Minute), Budget: Duration(time.Second)},
		Checkers: []Checker{
			{Type: TypePlan, Name: "plan"},
			{Type: TypeFiles, Paths: []string{"a", "b/*.go"}},
			{Type: TypeTest, Command: "go test ./...", Timeout: Duration(time.Minute), Cache: &no},
			{Type: TypeComposite, Mode: "any", Parallel: true, Checkers: []Checker{
				{Type: TypePlan},
				{Type: TypeComposite, Checkers: []Checker{{Type: TypeFiles, Paths: []string{"x"}}}},
			}},
		},
	}
}

// TestRulesMatchValidator: for each way to break a rule, alone and
// together, validate reports what validator/v10 reports, in its order.
func TestRulesMatchValidator(t *testing.T) {
	tests := []struct {
		name    string
		breakIt func(c *Config)
		want    []string // what the person reads; nil for a valid config
	}{
		{"valid", func(c *Config) {}, nil},
		{"defaults", func(c *Config) { *c = *defaults(); c.Checkers = []Checker{{Type: TypePlan}} }, nil},
		{"dialect", func(c *Config) { c.Dialect = "sdk2" }, []string{`dialect: must be one of claude-code, sdk, got "sdk2"`}},
		{"empty dialect", func(c *Config) { c.Dialect = "" }, []string{`dialect: must be one of claude-code, sdk, got ""`}},
		{"on_error", func(c *Config) { c.OnError = "deny" }, []string{`on_error: must be one of allow, block, got "deny"`}},
		{"empty gate tool", func(c *Config) { c.GateTools[1] = "" }, []string{"gate_tools[1]: required"}},
		{"no gate tools", func(c *Config) { c.GateTools = nil }, nil},
		{"max_blocks", func(c *Config) { c.Limits.MaxBlocks = 0 }, []string{"limits.max_blocks: must be at least 1"}},
		{"negative deadline", func(c *Config) { c.Limits.Deadline = -1 }, []string{"limits.deadline: must be at least 0"}},
		{"zero budget", func(c *Config) { c.Limits.Budget = 0 }, []string{"limits.budget: must be greater than 0"}},
		{"no checkers", func(c *Config) { c.Checkers = nil }, []string{`checkers: must not be empty; leave the key out to use the default, [{"type":"plan"}]`}},
		{"empty checkers", func(c *Config) { c.Checkers = []Checker{} }, []string{`checkers: must not be empty; leave the key out to use the default, [{"type":"plan"}]`}},
		{"one checker", func(c *Config) { c.Checkers = c.Checkers[:1] }, nil},
		{"no type", func(c *Config) { c.Checkers[0].Type = "" }, []string{"checkers[0].type: required"}},
		{"unknown type", func(c *Config) { c.Checkers[0].Type = "lint" }, []string{`checkers[0].type: must be one of plan, files, test, composite, got "lint"`}},
		{"files without paths", func(c *Config) { c.Checkers[1].Paths = nil }, []string{"checkers[1].paths: must not be empty"}},
		{"files with an empty path", func(c *Config) { c.Checkers[1].Paths[0] = "" }, []string{"checkers[1].paths[0]: required"}},
		{"test without command", func(c *Config) { c.Checkers[2].Command = "" }, []string{"checkers[2].command: required"}},
		{"plan without command", func(c *Config) { c.Checkers[0].Command = "" }, nil},
		{"negative timeout", func(c *Config) { c.Checkers[2].Timeout = -1 }, []string{"checkers[2].timeout: must be at least 0"}},
		{"composite mode", func(c *Config) { c.Checkers[3].Mode = "some" }, []string{`checkers[3].mode: must be one of all, any, got "some"`}},
		{"composite without mode", func(c *Config) { c.Checkers[3].Mode = "" }, nil},
		{"composite without members", func(c *Config) { c.Checkers[3].Checkers = []Checker{} }, []string{"checkers[3].checkers: must not be empty"}},
		{"nested", func(c *Config) {
			inner := &c.Checkers[3].Checkers[1].Checkers[0]
			inner.Paths = []string{""}
			inner.Type = TypeTest
		}, []string{"checkers[3].checkers[1].checkers[0].paths[0]: required", "checkers[3].checkers[1].checkers[0].command: required"}},
		{"several, in field order", func(c *Config) {
			c.OnError = "x"
			c.Dialect = "x"
			c.Limits.MaxBlocks = -2
			c.Checkers[3].Mode = "x"
			c.Checkers[3].Checkers = nil
			c.Checkers[1].Type = TypeTest
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
			got := validate(c)
			require.Equal(t, reference(t, c), got, "validate and validator/v10 disagree")
			var msgs []string
			for _, p := range got {
				msgs = append(msgs, p.String())
			}
			assert.Equal(t, tt.want, msgs)
		})
	}
}

// FuzzRulesMatchValidator builds configs from arbitrary values and
// requires validate to report exactly what validator/v10 reports.
func FuzzRulesMatchValidator(f *testing.F) {
	f.Add("claude-code", "allow", "StructuredOutput", 5, int64(0), int64(time.Minute), "test", "", "", "all", "x", true, uint8(2))
	f.Add("", "", "", 0, int64(-1), int64(0), "", "go test", "name", "", "", false, uint8(0))
	f.Add("sdk", "block", "", -3, int64(5), int64(-5), "composite", "", "n", "some", "", true, uint8(1))
	f.Add("x", "y", "z", 1, int64(1), int64(1), "files", "cmd", "", "any", "", false, uint8(3))
	f.Fuzz(func(t *testing.T, dialect, onError, tool string, maxBlocks int, deadline, budget int64,
		typ, command, name, mode, path string, nest bool, chain uint8) {
		member := Checker{Type: typ, Name: name, Command: command, Mode: mode, Timeout: Duration(deadline)}
		if path != "" || nest {
			member.Paths = []string{path}
		}
		if nest {
			member.Checkers = []Checker{{Type: typ, Paths: []string{path}}, {Type: TypePlan}}
		}
		c := &Config{
			Dialect:   dialect,
			OnError:   onError,
			GateTools: []string{tool},
			Limits:    Limits{MaxBlocks: maxBlocks, Deadline: Duration(deadline), Budget: Duration(budget)},
			Checkers:  []Checker{member, {Type: TypeComposite, Mode: mode, Checkers: []Checker{member}}},
		}
		switch chain % 4 { // 2 keeps both; 3, nil, and 0, empty, break min=1
		case 0:
			c.Checkers = []Checker{}
		case 1:
			c.Checkers = c.Checkers[:1]
		case 3:
			c.Checkers = nil
		}
		if want, got := reference(t, c), validate(c); !reflect.DeepEqual(want, got) {
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
	var vs []violation
	assert.PanicsWithValue(t, `config: rule "email" on mail is not supported; add it to applyRules and to the tests`, func() {
		checkStruct(reflect.ValueOf(withEmail{}), nil, &vs)
	})
}
