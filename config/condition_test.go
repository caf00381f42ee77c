package config_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/config"
)

// TestCheckPath: what "a valid gjson path" means. gjson refuses nothing:
// each path refused here is one it reads as a path that never matches (or
// matches what the person did not mean), checked below with gjson itself.
func TestCheckPath(t *testing.T) {
	doc := `{"status":"completed","a":{"b.c":1,"d":[1,2]},"friends":[{"age":44,"name":"x"}],"k\\":2}`
	valid := map[string]string{
		"status":                   `"completed"`,
		"a.d.1":                    `2`,
		`a.b\.c`:                   `1`,
		"a.d.#":                    `2`,
		"friends.#(age>40).name":   `"x"`,
		`friends.#(name=="x").age`: `44`,
		"friends.#(name==\"a)b\")": ``, // a quoted ")" does not close the query
		"{status,a.d}":             `{"status":"completed","d":[1,2]}`,
		"a.d|@reverse":             `[2,1]`,
		"@this.status":             `"completed"`,
		"a.d.[0]":                  `[1]`,
		"st*":                      `"completed"`,
		`k\\`:                      `2`,
	}
	for p, want := range valid {
		t.Run(p, func(t *testing.T) {
			require.NoError(t, config.CheckPath(p))
			assert.Equal(t, want, gjson.Get(doc, p).Raw, "gjson reads it as meant")
		})
	}
	invalid := map[string]string{
		"":                     "must not be empty",
		"  ":                   "must not be empty",
		".status":              `".status" has an empty key at column 1 (a leading, trailing or doubled '.')`,
		"status.":              `"status." has an empty key at its end (a trailing '.')`,
		"a..d":                 `"a..d" has an empty key at column 3 (a leading, trailing or doubled '.')`,
		"a.d|":                 `"a.d|" has an empty key at its end (a trailing '|')`,
		`status\`:              `"status\\" ends in a lone \ (write \\ for a backslash in a key)`,
		"friends.#(age>40":     `"friends.#(age>40": a '(' is never closed`,
		"friends.#(name==\"x)": `"friends.#(name==\"x)": a quote is not closed`,
		"a.d)":                 `"a.d)": ')' at column 4 closes nothing open`,
		"{status,a.d":          `"{status,a.d": a '{' is never closed`,
		"a.d|@revers":          `"a.d|@revers": gjson has no modifier @revers`,
	}
	for p, want := range invalid {
		t.Run("invalid "+p, func(t *testing.T) {
			err := config.CheckPath(p)
			require.Error(t, err)
			assert.Equal(t, want, err.Error())
		})
	}
	// What the refused ones do in gjson: they never find the value meant.
	for _, p := range []string{".status", "status.", "a..d", "friends.#(age>40"} {
		assert.False(t, gjson.Get(doc, p).Exists(), "gjson finds nothing at %q", p)
	}
}

// TestJSONEqual: equals compares JSON values, not their text.
func TestJSONEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{`1`, `1.0`, true},
		{`1`, `1e0`, true},
		{`100`, `1E2`, true},
		{`1`, `1.0000000000000001`, false},
		{`12345678901234567890`, `12345678901234567891`, false},
		{`1`, `"1"`, false},
		{`{"a":1,"b":[true,null]}`, `{"b":[true,null],"a":1.0}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`"completed"`, `"completed"`, true},
		{`"a\u00e9"`, `"aé"`, true},
		{`null`, `null`, true},
		{`null`, `false`, false},
		{`1e999999999`, `1e999999999`, true},
		{`1e999999999`, `2e999999999`, false},
		{`{`, `{`, false},
		{`1 2`, `1`, false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, config.JSONEqual([]byte(tt.a), []byte(tt.b)), "%s == %s", tt.a, tt.b)
		assert.Equal(t, tt.want, config.JSONEqual([]byte(tt.b), []byte(tt.a)), "%s == %s", tt.b, tt.a)
	}
}

// TestConditionHolds: each test on recorded structured outputs, with the
// value found as feedback shows it.
func TestConditionHolds(t *testing.T) {
	done := []byte(`{"status":"completed","summary":"ok: all 12 tests pass","next_action":{"action":"complete"},"validation":{"tests_passed":true,"lint_passed":false,"note":null},"count":3}`)
	cond := func(s string) config.Condition {
		var c config.Condition
		require.NoError(t, json.Unmarshal([]byte(s), &c))
		require.Empty(t, c.CheckOptions(), s)
		return c
	}
	tests := []struct {
		cond  string
		doc   []byte
		holds bool
		found string
	}{
		{`{"path":"status","equals":"completed"}`, done, true, `"completed"`},
		{`{"path":"status","equals":"blocked"}`, done, false, `"completed"`},
		{`{"path":"count","equals":3.0}`, done, true, `3`},
		{`{"path":"next_action","equals":{"action":"complete"}}`, done, true, `{"action":"complete"}`},
		{`{"path":"validation.note","equals":null}`, done, true, `null`},
		{`{"path":"missing","equals":null}`, done, false, `nothing`},
		{`{"path":"validation.note","exists":true}`, done, true, `null`},
		{`{"path":"validation.evidence","exists":true}`, done, false, `nothing`},
		{`{"path":"validation.evidence","exists":false}`, done, true, `nothing`},
		{`{"path":"summary","matches":"^ok:"}`, done, true, `"ok: all 12 tests pass"`},
		{`{"path":"summary","matches":"^\"ok"}`, done, false, `"ok: all 12 tests pass"`},
		{`{"path":"count","matches":"^[0-9]+$"}`, done, true, `3`},
		{`{"path":"missing","matches":".*"}`, done, false, `nothing`},
		{`{"path":"status","equals":"completed"}`, nil, false, `nothing`},
		{`{"path":"summary","equals":"` + strings.Repeat("x", 300) + `"}`, []byte(`{"summary":"` + strings.Repeat("y", 300) + `"}`), false, `"` + strings.Repeat("y", 199) + `…`},
	}
	for _, tt := range tests {
		t.Run(tt.cond, func(t *testing.T) {
			c := cond(tt.cond)
			holds, found := c.Holds(tt.doc)
			assert.Equal(t, tt.holds, holds)
			assert.Equal(t, tt.found, found)
		})
	}
	assert.Equal(t, "`status` equals \"completed\"", cond(`{"path":"status","equals": "completed"}`).String())
	assert.Equal(t, "`a` equals {\"b\":[1,2]}", cond(`{"path":"a","equals": {"b": [1, 2]}}`).String())
	assert.Equal(t, "`a` is present", cond(`{"path":"a","exists":true}`).String())
	assert.Equal(t, "`a` is absent", cond(`{"path":"a","exists":false}`).String())
	assert.Equal(t, "`a` matches \"^ok\"", cond(`{"path":"a","matches":"^ok"}`).String())
}

// TestBadConditionsAreRefusedAtLoad: in completion_signal and in a
// checker's conditions, each mistake is refused with the field named.
func TestBadConditionsAreRefusedAtLoad(t *testing.T) {
	tests := []struct {
		name, json string
		want       []string
	}{
		{"empty path", `{"completion_signal":[{"path":"","equals":1}]}`, []string{"completion_signal[0].path: required"}},
		{"no path", `{"completion_signal":[{"exists":true}]}`, []string{"completion_signal[0].path: required"}},
		{"blank path", `{"completion_signal":[{"path":" ","equals":1}]}`, []string{"completion_signal[0].path: must not be empty"}},
		{"a path gjson misreads", `{"completion_signal":[{"path":"status","equals":"completed"},{"path":"next_action..action","equals":"complete"}]}`,
			[]string{`completion_signal[1].path: "next_action..action" has an empty key at column 13 (a leading, trailing or doubled '.')`}},
		{"no test", `{"completion_signal":[{"path":"status"}]}`,
			[]string{`completion_signal[0]: give one of "equals", "exists" or "matches" (a non-empty regular expression)`}},
		{"an empty regex", `{"completion_signal":[{"path":"status","matches":""}]}`,
			[]string{`completion_signal[0]: give one of "equals", "exists" or "matches" (a non-empty regular expression)`}},
		{"two tests", `{"completion_signal":[{"path":"status","equals":"x","exists":true}]}`,
			[]string{`completion_signal[0]: give only one of "equals", "exists" and "matches"; for several tests of one path, write several conditions`}},
		{"an empty signal", `{"completion_signal":[]}`, []string{"completion_signal: must not be empty"}},
		{"a regex that does not compile", `{"checkers":[{"type":"plan"},{"type":"composite","checkers":[{"type":"plan"}]},{"type":"output","conditions":[{"path":"status","exists":true},{"path":"summary","matches":"(ok"}]}]}`,
			[]string{`checkers[2].conditions[1].matches: invalid regular expression "(ok": missing closing ): ` + "`(ok`"}},
		{"an unknown key", `{"checkers":[{"type":"output","conditions":[{"path":"status","equal":"x"}]}]}`,
			[]string{`checkers[0].conditions[0].equal: unknown key (did you mean "equals"? valid: equals, exists, matches, path)`}},
		{"exists of another type", `{"checkers":[{"type":"output","conditions":[{"path":"status","exists":"yes"}]}]}`,
			[]string{`checkers[0].conditions[0].exists: expected true or false, got the string "yes"`}},
		{"no conditions", `{"checkers":[{"type":"output","conditions":[]}]}`, []string{"checkers[0].conditions: must not be empty"}},
		{"output at stop", `{"checkers":[{"type":"output","on":["tool_use","stop"],"conditions":[{"path":"status","exists":true}]}]}`,
			[]string{`checkers[0].on[1]: a "output" checker cannot run at "stop", only at tool_use`}},
		{"claims at manual", `{"checkers":[{"type":"claims","on":["manual"],"claims":[{"path":"a","checker":{"type":"plan"}}]}]}`,
			[]string{`checkers[0].on[0]: a "claims" checker cannot run at "manual", only at tool_use`}},
		{"a claim's bad path", `{"checkers":[{"type":"claims","claims":[{"path":"validation.tests_passed.","checker":{"type":"plan"}}]}]}`,
			[]string{`checkers[0].claims[0].path: "validation.tests_passed." has an empty key at its end (a trailing '.')`}},
		{"a claim without a checker", `{"checkers":[{"type":"claims","claims":[{"path":"a"}]}]}`, []string{"checkers[0].claims[0].checker: required"}},
		{"a claim's checker broken", `{"checkers":[{"type":"claims","claims":[{"path":"a","checker":{"type":"command","timeout":"soon"}},{"path":"b","checker":{"type":"command","command":"x","success_when":"matches:("}}]}]}`,
			[]string{`checkers[0].claims[0].checker.timeout: invalid duration "soon" (use a Go duration such as "90s", "5m", "1h30m")`,
				`checkers[0].claims[1].checker.success_when: "matches:(": the regular expression does not compile: error parsing regexp: missing closing ): ` + "`(`",
				`checkers[0].claims[0].checker.command: required`}},
		{"a claim's checker of no type", `{"checkers":[{"type":"claims","claims":[{"path":"a","checker":{"typ":"test"}}]}]}`,
			[]string{"checkers[0].claims[0].checker.type: missing (valid: " + strings.Join(config.CheckerTypes(), ", ") + ")"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, problems(t, tt.json))
		})
	}
}

// TestGoodConditionsLoad: the examples of docs/configuration.md load, and keep every
// test as written.
func TestGoodConditionsLoad(t *testing.T) {
	c, err := config.Parse(strings.NewReader(`{
		"completion_signal": [
			{"path": "status", "equals": "completed"},
			{"path": "next_action.action", "matches": "^(complete|closing)$"},
			{"path": "note", "equals": null}
		],
		"checkers": [
			{"type": "output", "conditions": [{"path": "validation.evidence", "exists": true}]},
			{"type": "claims", "claims": [{"path": "validation.tests_passed", "checker": {"type": "test", "command": "go test ./...", "on": ["stop"]}}]}
		]}`), "t.json")
	require.NoError(t, err)
	require.Len(t, c.CompletionSignal, 3)
	assert.JSONEq(t, `"completed"`, string(c.CompletionSignal[0].Equals))
	assert.Equal(t, "^(complete|closing)$", c.CompletionSignal[1].Matches)
	assert.Equal(t, json.RawMessage("null"), c.CompletionSignal[2].Equals, "equals null is a test, not a missing one")
	b, err := json.Marshal(c.Checkers)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"type":"output","conditions":[{"path":"validation.evidence","exists":true}]},
		{"type":"claims","claims":[{"path":"validation.tests_passed","checker":{"type":"test","command":"go test ./...","on":["stop"]}}]}]`, string(b))
}

// FuzzCondition: a path CheckPath accepts is one gjson reads without
// failing, on any document; a valid JSON value equals itself.
func FuzzCondition(f *testing.F) {
	f.Add("validation.tests_passed", `{"validation":{"tests_passed":true}}`)
	f.Add("friends.#(age>40).name", `{"friends":[{"age":44,"name":"x"}]}`)
	f.Add("{a,b}|@reverse", `[1e999999999, {"a":[1.0,"x"]}]`)
	f.Fuzz(func(t *testing.T, path, doc string) {
		if config.CheckPath(path) == nil {
			c := config.Condition{Path: path, Matches: "."}
			c.Holds([]byte(doc))
		}
		if json.Valid([]byte(doc)) && !config.JSONEqual([]byte(doc), []byte(doc)) {
			t.Fatalf("%s does not equal itself", doc)
		}
	})
}

// TestEachCheckerFindsHeldCheckers: every checker a config holds is
// visited with its path, a claim's checker and a composite's members
// included, so that a rule across the config (iterations' min against
// limits.max_blocks) reaches them all.
func TestEachCheckerFindsHeldCheckers(t *testing.T) {
	c, err := config.Parse(strings.NewReader(`{"checkers": [
		{"type": "plan"},
		{"type": "composite", "checkers": [{"type": "files", "paths": ["a"]},
			{"type": "claims", "claims": [{"path": "x", "checker": {"type": "composite", "mode": "any", "checkers": [{"type": "test", "command": "t"}]}}]}]}]}`), "t.json")
	require.NoError(t, err)
	var got []string
	config.EachChecker(c.Checkers, func(path string, ch config.Checker) { got = append(got, path+" "+ch.Type) })
	assert.Equal(t, []string{
		"checkers[0] plan",
		"checkers[1] composite",
		"checkers[1].checkers[0] files",
		"checkers[1].checkers[1] claims",
		"checkers[1].checkers[1].claims[0].checker composite",
		"checkers[1].checkers[1].claims[0].checker.checkers[0] test",
	}, got)

	assert.Equal(t, []string{
		"checkers[0].claims[0].checker.min: 6 continuations can never be reached: limits.max_blocks (5) lets the agent stop after 5; raise limits.max_blocks to at least 6, or lower min",
	}, problems(t, `{"checkers": [{"type": "claims", "claims": [{"path": "x", "checker": {"type": "iterations", "min": 6}}]}]}`))
}
