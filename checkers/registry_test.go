package checkers_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
)

// TestEveryTypeIsDocumented: a registered type has a summary, which
// docs/checkers.md's table and reference, generated from the registry,
// TestEveryTypeIsValid: the config decodes every field of every shipped
// type's options, and none is a key every checker has. The hooks do not
// look at start-up (config.RegisterType): this is where a mistake shows.
func TestEveryTypeIsValid(t *testing.T) {
	require.NoError(t, config.CheckTypes())
	for _, typ := range checkers.Types() {
		_, ok := config.LookupType(typ.Name)
		assert.True(t, ok, typ.Name)
	}
}

// show (internal/docgen's test fails while the page is stale).
func TestEveryTypeIsDocumented(t *testing.T) {
	types := checkers.Types()
	require.NotEmpty(t, types)
	for _, typ := range types {
		assert.NotEmpty(t, typ.Summary, "%s: Summary", typ.Name)
	}
}

// TestTypesAreKnownToTheConfig: each type registered here is the config's
// type of that name, with the same options and events.
func TestTypesAreKnownToTheConfig(t *testing.T) {
	var names []string
	for _, typ := range checkers.Types() {
		names = append(names, typ.Name)
		ct, ok := config.LookupType(typ.Name)
		require.True(t, ok, typ.Name)
		assert.Equal(t, reflect.TypeOf(typ.Options).Elem(), ct.Options, typ.Name)
		var on []string
		for _, r := range typ.DefaultOn {
			on = append(on, string(r))
		}
		assert.Equal(t, on, ct.DefaultOn, typ.Name)
		got, ok := checkers.LookupType(typ.Name)
		require.True(t, ok)
		assert.Same(t, typ, got)
	}
	assert.Equal(t, config.CheckerTypes(), names)
	assert.Equal(t, config.Events, []string{string(checkers.ReasonStop), string(checkers.ReasonSubagentStop), string(checkers.ReasonToolUse), string(checkers.ReasonManual)},
		"the config's events are the stop reasons")
}

// TestNewRefusesOptionsOfAnotherType: a checker built by hand with the
// wrong options is an error, not a panic in the type's New.
func TestNewRefusesOptionsOfAnotherType(t *testing.T) {
	tests := []struct {
		name string
		spec config.Checker
		want string
	}{
		{"no options", config.Checker{Type: "test"}, "test checker: options are <nil>, want *checkers.TestOptions"},
		{"another type's", config.Checker{Type: "files", Options: &checkers.TestOptions{Command: "x"}}, "files checker: options are *checkers.TestOptions, want *checkers.FilesOptions"},
		{"an unknown type", config.Checker{Type: "pylint"}, `unknown checker type "pylint"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := checkers.New(tt.spec)
			require.EqualError(t, err, tt.want)
		})
	}
	ch, err := checkers.New(config.Checker{Type: "files", Options: &checkers.FilesOptions{Paths: config.Patterns{"a"}}})
	require.NoError(t, err)
	assert.Equal(t, checkers.Files{Paths: []string{"a"}}, ch)
}

// chain renders what FromConfig built: the members' labels, with a
// composite's members in brackets.
func chain(c checkers.Composite) string {
	var parts []string
	for _, m := range c.Members {
		if inner, ok := m.Checker.(checkers.Composite); ok {
			parts = append(parts, m.Label+"("+chain(inner)+")")
			continue
		}
		parts = append(parts, m.Label)
	}
	return strings.Join(parts, " ")
}

// TestFromConfigRunsWhatIsOn: a checker runs at the events of its own
// "on", else of the nearest composite around it that sets one, else of
// its type's defaults (plan everywhere, the others everywhere but at a
// subagent's stop); a composite that sets none runs where its members do.
func TestFromConfigRunsWhatIsOn(t *testing.T) {
	const plan, test = `{"type":"plan","name":"P"}`, `{"type":"test","name":"T","command":"false"}`
	tests := []struct {
		name     string
		checkers string
		want     map[checkers.StopReason]string // the chain at each event
	}{
		{"defaults", plan + "," + test, map[checkers.StopReason]string{
			checkers.ReasonStop: "P T", checkers.ReasonSubagentStop: "P", checkers.ReasonToolUse: "P T", checkers.ReasonManual: "P T"}},
		{"explicit on", `{"type":"plan","name":"P","on":["stop"]},{"type":"test","name":"T","command":"x","on":["subagent_stop","manual"]}`, map[checkers.StopReason]string{
			checkers.ReasonStop: "P", checkers.ReasonSubagentStop: "T", checkers.ReasonToolUse: "", checkers.ReasonManual: "T"}},
		{"a composite's on applies to its members", `{"type":"composite","name":"C","on":["subagent_stop"],"checkers":[` + plan + "," + test + `]}`, map[checkers.StopReason]string{
			checkers.ReasonStop: "", checkers.ReasonSubagentStop: "C(P T)", checkers.ReasonToolUse: "", checkers.ReasonManual: ""}},
		{"through a composite that sets none", `{"type":"composite","name":"C","on":["manual"],"checkers":[{"type":"composite","name":"D","checkers":[` + test + `]}]}`, map[checkers.StopReason]string{
			checkers.ReasonStop: "", checkers.ReasonSubagentStop: "", checkers.ReasonToolUse: "", checkers.ReasonManual: "C(D(T))"}},
		{"a member's own on wins where its composite runs", `{"type":"composite","name":"C","on":["stop","tool_use"],"checkers":[` + test + `,{"type":"plan","name":"P","on":["tool_use"]}]}`, map[checkers.StopReason]string{
			checkers.ReasonStop: "C(T)", checkers.ReasonSubagentStop: "", checkers.ReasonToolUse: "C(T P)", checkers.ReasonManual: ""}},
		{"a composite without on runs where its members do", `{"type":"composite","name":"C","mode":"any","checkers":[` + plan + "," + test + `]},{"type":"composite","name":"D","checkers":[` + test + `]}`, map[checkers.StopReason]string{
			checkers.ReasonStop: "C(P T) D(T)", checkers.ReasonSubagentStop: "C(P)", checkers.ReasonToolUse: "C(P T) D(T)", checkers.ReasonManual: "C(P T) D(T)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse(strings.NewReader(`{"checkers":[`+tt.checkers+`]}`), "t.json")
			require.NoError(t, err)
			before, err := encode(c)
			require.NoError(t, err)
			for reason, want := range tt.want {
				built, err := checkers.FromConfig(c, reason)
				require.NoError(t, err)
				require.IsType(t, checkers.Composite{}, built)
				assert.Equal(t, want, chain(built.(checkers.Composite)), "at %s", reason)
				if want == "" {
					// Nothing runs: the chain is complete.
					r, err := built.Check(context.Background(), &checkers.Context{Reason: reason})
					require.NoError(t, err)
					assert.True(t, r.Complete, "at %s", reason)
				}
			}
			after, err := encode(c)
			require.NoError(t, err)
			assert.Equal(t, before, after, "FromConfig changed the config")
		})
	}
}

// encode renders c, to compare it before and after.
func encode(c *config.Config) (string, error) {
	var b strings.Builder
	for _, ch := range c.Checkers {
		out, err := ch.MarshalJSON()
		if err != nil {
			return "", err
		}
		b.Write(out)
	}
	return b.String(), nil
}

// TestDescribe: each type says what a configured checker requires, in
// one line, for closer check's checklist, after the checker's label.
func TestDescribe(t *testing.T) {
	c, err := config.Parse(strings.NewReader(`{"checkers":[
		{"type":"plan"},
		{"type":"files","name":"report","paths":["r.md","dist/*.pdf"]},
		{"type":"test","command":"go test ./..."},
		{"type":"composite","name":"either","mode":"any","checkers":[{"type":"files","paths":["a"]},{"type":"composite","checkers":[{"type":"plan"},{"type":"test","name":"build","command":"make"}]}]}]}`), "t.json")
	require.NoError(t, err)
	want := []string{
		"plan: every item of the agent's plan is completed",
		"report: required files exist: r.md, dist/*.pdf",
		"test: `go test ./...` passes",
		// A member is named only when the config names it; a composite
		// member is bracketed.
		"either: any one of: required files exist: a | (all of: every item of the agent's plan is completed | build: `make` passes)",
	}
	for i, spec := range c.Checkers {
		assert.Equal(t, want[i], checkers.Describe(spec))
	}
}

// TestEveryTypeDecodes: the types written against the registry alone are
// read by the config's one decoder: their keys, kinds, tags and
// CheckOptions, with the file's paths.
func TestEveryTypeDecodes(t *testing.T) {
	tests := []struct {
		name    string
		checker string
		want    []string // problems; nil: valid
	}{
		{"external, argv", `{"type":"external","command":["./check","--strict"],"timeout":"1m"}`, nil},
		{"external, shell", `{"type":"external","command":"./check"}`, nil},
		{"external, blank", `{"type":"external","command":"  "}`, []string{"checkers[0].command: must not be blank"}},
		{"external, no program", `{"type":"external","command":[""]}`, []string{"checkers[0].command[0]: the program must not be empty"}},
		{"external, a number", `{"type":"external","command":3}`, []string{"checkers[0].command: expected a command string or an array of strings, got the number 3"}},
		{"external, no command", `{"type":"external"}`, []string{"checkers[0].command: required"}},
		{"issue-closed", `{"type":"issue-closed","issue":12,"repo":"acme/app"}`, nil},
		{"issue-closed, bad repo", `{"type":"issue-closed","issue":12,"repo":"acme app"}`, []string{`checkers[0].repo: must be "owner/name" (or "host/owner/name"), got "acme app"`}},
		{"issue-closed, no issue", `{"type":"issue-closed"}`, []string{"checkers[0].issue: required"}},
		{"issue-closed, a files key", `{"type":"issue-closed","issue":1,"paths":["x"]}`, []string{`checkers[0].paths: not used by a "issue-closed" checker (only by files)`}},
		// Bad judge config is refused when the config loads, with the field named.
		{"judge, criteria", `{"type":"judge","criteria":"- it works\n- it is documented","model":"haiku","timeout":"90s"}`, nil},
		{"judge, criteria_file", `{"type":"judge","criteria_file":"docs/DONE.md","claude":"/usr/local/bin/claude","cache":false}`, nil},
		{"judge, neither", `{"type":"judge"}`, []string{"checkers[0].criteria: required: the completion criteria the judge checks, as text (or a file, with criteria_file)"}},
		{"judge, both", `{"type":"judge","criteria":"x","criteria_file":"y"}`, []string{"checkers[0].criteria: give the criteria as text or as criteria_file, not both"}},
		{"judge, empty criteria", `{"type":"judge","criteria":""}`, []string{"checkers[0].criteria: required: the completion criteria the judge checks, as text (or a file, with criteria_file)"}},
		{"judge, blank criteria", `{"type":"judge","criteria":"  \n"}`, []string{"checkers[0].criteria: must not be blank"}},
		{"judge, blank criteria_file", `{"type":"judge","criteria_file":" "}`, []string{"checkers[0].criteria_file: must not be blank"}},
		{"judge, negative timeout", `{"type":"judge","criteria":"x","timeout":"-1s"}`, []string{`checkers[0].timeout: duration "-1s" is negative`}},
		{"judge, criteria not text", `{"type":"judge","criteria":["a","b"]}`, []string{"checkers[0].criteria: expected a string, got an array"}},
		{"judge, a test's key", `{"type":"judge","criteria":"x","command":"go test"}`, []string{`checkers[0].command: not used by a "judge" checker (only by command, external, format, lint, test, type-check)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse(strings.NewReader(`{"checkers":[`+tt.checker+`]}`), "t.json")
			if tt.want == nil {
				require.NoError(t, err)
				_, err = checkers.FromConfig(c, checkers.ReasonStop)
				require.NoError(t, err)
				return
			}
			assert.Equal(t, tt.want, configProblems(t, `{"checkers":[`+tt.checker+`]}`))
		})
	}
}
