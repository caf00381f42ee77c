package schema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/schema"
)

// TestFileIsGenerated: the checked-in schema is what the registry makes
// now, so a new type, key or rule cannot leave it behind.
func TestFileIsGenerated(t *testing.T) {
	want, err := schema.Generate("..")
	require.NoError(t, err)
	got, err := os.ReadFile(schema.FileName)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "%s is stale: run go generate ./schema", schema.FileName)
}

// TestBinariesDoNotLinkSchema: the generator and the validator the tests
// use are for development; the hooks start a process per call and must
// not pay for either (see TestStartupDoesNoNeedlessWork).
func TestBinariesDoNotLinkSchema(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the binaries' packages with (the Windows tests under Wine)")
	}
	out, err := exec.Command("go", "list", "-deps", "../cmd/...").Output()
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/donegate/donegate/config", "go list -deps found nothing")
	for _, pkg := range []string{"github.com/donegate/donegate/schema", "github.com/santhosh-tekuri/jsonschema/v6", "go/parser"} {
		assert.NotContains(t, deps, pkg)
	}
}

// compiled returns the checked-in schema, compiled by a draft 2020-12
// validator (santhosh-tekuri/jsonschema, which passes the official test
// suite; a test-only dependency). It loads nothing over the network: the
// meta-schemas are built in.
func compiled(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(schema.FileName)
	require.NoError(t, err)
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	require.NoError(t, c.AddResource(schema.ID, doc))
	s, err := c.Compile(schema.ID)
	require.NoError(t, err)
	return s
}

// schemaAccepts reports whether the schema s takes the document data; a
// document that is not JSON it does not.
func schemaAccepts(s *jsonschema.Schema, data []byte) (bool, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return false, err
	}
	err = s.Validate(v)
	return err == nil, err
}

// A loaderOnly rule is one the loader checks and the schema cannot say,
// so a config that breaks only such rules passes the schema. Each names a
// problem message of the loader and a config that shows it.
type loaderOnly struct {
	rule    string
	message *regexp.Regexp // matches the loader's Problem.Message
	example string
}

var loaderOnlyRules = []loaderOnly{
	// A JSON Schema validator reads an object into a map: the last of two
	// equal keys wins, and the schema never sees the first.
	{"no key is given twice", regexp.MustCompile(`^duplicate key$`),
		`{"checkers": [{"type": "test"}], "checkers": [{"type": "plan"}]}`},
	// filepath.Match's syntax (classes, escapes) is no regular language
	// worth a pattern.
	{"a glob must be one filepath.Match can read", regexp.MustCompile(`^invalid glob pattern`),
		`{"checkers": [{"type": "files", "paths": ["dist/*["]}]}`},
	// success_when's forms could be a pattern, but whether the regular
	// expression after "matches:" compiles (Go's RE2 syntax) cannot.
	{"success_when is one of its forms, its regular expression compiles", regexp.MustCompile(`^".*": (unknown form|the regular expression does not compile|the exit code must be|"empty" takes nothing|give the)`),
		`{"checkers": [{"type": "command", "command": "true", "success_when": "matches:(["}]}`},
	// A preset's rule across two keys: a dependentRequired could say it,
	// but it is an OptionsChecker's, which the generator cannot read.
	{"a preset's success_when needs its command", regexp.MustCompile(`^set "command" too`),
		`{"checkers": [{"type": "lint", "success_when": "empty"}]}`},
	{"an external command is not blank, its program not empty", regexp.MustCompile(`^(must not be blank|the program must not be empty)`),
		`{"checkers": [{"type": "external", "command": ["", "x"]}]}`},
	{"a git-commits baseline does not start with '-'", regexp.MustCompile(`is not a commit, branch or tag: it starts with '-'$`),
		`{"checkers": [{"type": "git-commits", "baseline": "--all"}]}`},
	{"an issue-closed repo is owner/name or host/owner/name", regexp.MustCompile(`^must be "owner/name"`),
		`{"checkers": [{"type": "issue-closed", "issue": 1, "repo": "not a repo"}]}`},
	// A condition's path must be one gjson reads as meant (see
	// config.CheckPath): brackets that close, no empty key; and its
	// regular expression must compile.
	{"a condition's path is a gjson path", regexp.MustCompile(`^(".*" (has an empty key|ends in a lone)|".*": (a .* is never closed|a quote is not closed|.* closes nothing open|gjson has no modifier)|must not be empty$)`),
		`{"completion_signal": [{"path": "next_action..action", "equals": "complete"}]}`},
	{"a condition has exactly one test", regexp.MustCompile(`^give (one|only one) of "equals"`),
		`{"completion_signal": [{"path": "status", "equals": "completed", "exists": true}]}`},
	{"a condition's regular expression compiles", regexp.MustCompile(`^invalid regular expression`),
		`{"checkers": [{"type": "output", "conditions": [{"path": "summary", "matches": "(ok"}]}]}`},
	// (retry_templates' files are beyond a schema, and beyond the loader's
	// refusal too: a template that cannot be used is a warning, its
	// pattern keeping the built-in wording; see config's Warnings.)
	// The keyword checker's OptionsChecker: white space only, the tags
	// inside the promise, and the two keys at once.
	{"a keyword or promise is not blank", regexp.MustCompile(`^must not be empty or only white space`),
		`{"checkers": [{"type": "keyword", "keyword": " "}]}`},
	{"a promise is the text between the tags", regexp.MustCompile(`^is the text between the tags`),
		`{"checkers": [{"type": "keyword", "promise": "<promise>DONE</promise>"}]}`},
	{"keyword and promise are not both set", regexp.MustCompile(`^not used with promise`),
		`{"checkers": [{"type": "keyword", "keyword": "X", "promise": "DONE"}]}`},
	// A rule across the config: iterations' min against limits.max_blocks
	// (the default's too), which may be anywhere else in the file.
	{"iterations' min is within limits.max_blocks", regexp.MustCompile(`^\d+ continuations can never be reached: limits\.max_blocks`),
		`{"checkers": [{"type": "iterations", "min": 6}]}`},
	// Exactly one of two keys, neither blank: an OptionsChecker's rule.
	{"a judge has criteria or criteria_file, one, not blank; its model is no option", regexp.MustCompile(`^(required: the completion criteria|give the criteria as text or as criteria_file, not both|must not be blank|".*" is not a model name)`),
		`{"checkers": [{"type": "judge"}]}`},
	// The schema refers to the checker recursively, without a depth.
	{"composites nest at most 32 deep", regexp.MustCompile(`^(composites nest deeper than|nested deeper than) `),
		`{"checkers": [` + strings.Repeat(`{"type": "composite", "checkers": [`, 33) + `{"type": "plan"}` + strings.Repeat(`]}`, 33) + `]}`},
	// The pattern reads a duration's form, not whether it fits in an
	// int64 of nanoseconds (about 292 years).
	{"a duration is in range", regexp.MustCompile(`^invalid duration`),
		`{"limits": {"deadline": "3000000h"}}`},
	// JSON Schema sees decoded strings: a validator's decoder quietly
	// turns bytes that are not UTF-8 into U+FFFD.
	{"the file is UTF-8", regexp.MustCompile(`^not UTF-8 text`),
		"{\"checkers\": [{\"type\": \"test\", \"command\": \"echo \xff\"}]}"},
	{"the file is at most 1 MiB", regexp.MustCompile(`^larger than 1 MiB$`),
		`{"checkers": [{"type": "plan", "name": "` + strings.Repeat("x", 1<<20) + `"}]}`},
}

// problems returns the loader's problems with data, nil when it takes it.
func problems(t *testing.T, data []byte) []config.Problem {
	t.Helper()
	// retry_templates names a directory relative to the config file: the
	// file is put in a directory of its own where that one exists, empty,
	// so that a relative name is no problem (the schema cannot know the
	// file system; loaderOnlyRules has the rule).
	dir := t.TempDir()
	var top struct {
		RetryTemplates string `json:"retry_templates"`
	}
	if json.Unmarshal(data, &top) == nil && top.RetryTemplates != "" && !filepath.IsAbs(top.RetryTemplates) && !strings.HasPrefix(top.RetryTemplates, "~") {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, top.RetryTemplates), 0o755))
	}
	_, err := config.Parse(bytes.NewReader(data), filepath.Join(dir, config.FileName))
	if err == nil {
		return nil
	}
	var ce *config.Error
	require.True(t, errors.As(err, &ce), "not a config error: %v", err)
	return ce.Problems
}

// onlyLoaderRules reports whether every problem is one of loaderOnlyRules.
func onlyLoaderRules(ps []config.Problem) bool {
	for _, p := range ps {
		if !slices.ContainsFunc(loaderOnlyRules, func(r loaderOnly) bool { return r.message.MatchString(p.Message) }) {
			return false
		}
	}
	return true
}

// TestLoaderOnlyRules: each rule of the list is one the schema lets
// through and the loader refuses; when the schema learns one, the rule
// leaves the list.
func TestLoaderOnlyRules(t *testing.T) {
	s := compiled(t)
	for _, r := range loaderOnlyRules {
		t.Run(r.rule, func(t *testing.T) {
			ok, err := schemaAccepts(s, []byte(r.example))
			assert.True(t, ok, "the schema refuses the example: %v", err)
			ps := problems(t, []byte(r.example))
			require.NotEmpty(t, ps, "the loader takes the example")
			for _, p := range ps {
				assert.Regexp(t, r.message, p.Message)
			}
		})
	}
}

// An example is a config from the docs or testdata.
type example struct {
	name string
	data []byte
}

// docExamples returns the JSON blocks of the README and the manual
// (docs/*.md) that are configs: an
// object with "checkers" is a whole config; an object with "type" and
// without "hooks" is one checker (the external checker's examples), put
// in a config of its own. The rest are settings.json snippets, the
// external protocol's input and answer: not configs.
func docExamples(t *testing.T) []example {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, pages, "no pages in docs/")
	var out []example
	for _, page := range append([]string{"../README.md"}, pages...) {
		doc, err := os.ReadFile(page)
		require.NoError(t, err)
		blocks := regexp.MustCompile("(?ms)^```json\n(.*?)^```").FindAllSubmatchIndex(doc, -1)
		for _, b := range blocks {
			block := doc[b[2]:b[3]]
			line := 1 + bytes.Count(doc[:b[0]], []byte("\n"))
			var top map[string]json.RawMessage
			if json.Unmarshal(block, &top) != nil {
				continue // an illustration with "..." in it
			}
			name := docPrefix + strings.TrimPrefix(page, "../") + ":" + strconv.Itoa(line)
			switch _, hooks := top["hooks"]; {
			case top["checkers"] != nil:
				out = append(out, example{name, block})
			case top["type"] != nil && !hooks:
				out = append(out, example{name, append(append([]byte(`{"checkers": [`), block...), "]}"...)})
			}
		}
	}
	return out
}

// docPrefix starts the name of every example docExamples returns.
const docPrefix = "doc: "

// scriptExamples returns the configs of testdata/script: the files of a
// txtar archive whose name ends in donegate.json, or in .json with at
// least one of a config's top-level keys (read from the schema), in
// valid JSON or not (a broken config is the point of some scripts).
// Events, hook answers and task files have none of those keys.
func scriptExamples(t *testing.T) []example {
	t.Helper()
	keys := topLevelKeys(t)
	archives, err := filepath.Glob("../testdata/script/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, archives)
	var out []example
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		require.NoError(t, err)
		for _, f := range ar.Files {
			if !strings.HasSuffix(f.Name, ".json") {
				continue
			}
			if strings.HasSuffix(f.Name, config.FileName) || slices.ContainsFunc(keys, func(k string) bool {
				return bytes.Contains(f.Data, []byte(`"`+k+`"`))
			}) && !isOther(f.Data) {
				out = append(out, example{filepath.Base(a) + ":" + f.Name, f.Data})
			}
		}
	}
	return out
}

// isOther reports whether a JSON file is an event or a hook's answer,
// which may hold a config's key ("reason" is not one, "checkers" could be
// in a message) among keys a config never has.
func isOther(data []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return false
	}
	for _, k := range []string{"hook_event_name", "decision", "hookSpecificOutput", "systemMessage", "continue"} {
		if _, ok := top[k]; ok {
			return true
		}
	}
	return false
}

// topLevelKeys returns the keys the schema lets a config's top level hold.
func topLevelKeys(t *testing.T) []string {
	t.Helper()
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	b, err := os.ReadFile(schema.FileName)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &s))
	var keys []string
	for k := range s.Properties {
		if k != "$schema" { // an editor's, not a sign of a config
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// TestExamplesAgree: every config of the docs and testdata that the
// loader takes, the schema takes; every one it refuses, the schema
// refuses too, unless each of its problems is a rule only the loader can
// check. The docs' examples and the edges must all be valid.
func TestExamplesAgree(t *testing.T) {
	s := compiled(t)
	docs := docExamples(t)
	require.GreaterOrEqual(t, len(docs), 8, "the docs' config examples were not found")
	scripts := scriptExamples(t)
	require.GreaterOrEqual(t, len(scripts), 20, "the scripts' configs were not found")
	for _, ex := range append(append(docs, scripts...), edges...) {
		t.Run(ex.name, func(t *testing.T) {
			ps := problems(t, ex.data)
			ok, err := schemaAccepts(s, ex.data)
			if strings.HasPrefix(ex.name, docPrefix) || strings.HasPrefix(ex.name, "edge: ") {
				assert.Empty(t, ps, "the loader refuses an example that must be valid")
			}
			switch {
			case ps == nil:
				assert.True(t, ok, "the loader takes it, the schema refuses it: %v", err)
			case ok:
				assert.True(t, onlyLoaderRules(ps), "the loader refuses it (%v), the schema takes it: add the rule to the schema or to loaderOnlyRules", ps)
			}
		})
	}
}

// edges are valid configs at the edges of the rules the schema expresses
// by patterns and alternatives, which the README and the scripts do not
// show: each the loader takes, so the schema must.
var edges = []example{
	{"edge: durations", []byte(`{"limits": {"deadline": "1h30m", "budget": "+1.5m"}, "checkers": [
		{"type": "test", "command": "x", "timeout": "0"},
		{"type": "command", "command": "x", "timeout": "-0s"},
		{"type": "lint", "timeout": ".5s"},
		{"type": "format", "timeout": "1µs2μs3us4ns5ms"},
		{"type": "external", "command": ["x"], "timeout": "2.h"}]}`)},
	{"edge: budget just above zero", []byte(`{"limits": {"budget": "0.001ns1ns"}}`)},
	{"edge: every key", []byte(`{"$schema": "` + schema.ID + `", "dialect": "sdk", "on_error": "block", "gate_tools": [],
		"limits": {"max_blocks": 1, "deadline": "0s", "budget": "1s"},
		"checkers": [
			{"type": "composite", "name": "c", "on": ["manual"], "mode": "all", "parallel": true, "checkers": [{"type": "plan", "on": ["stop", "subagent_stop", "tool_use"]}]},
			{"type": "composite", "mode": "", "checkers": [{"type": "git-clean"}]},
			{"type": "git-commits", "min": 0, "baseline": ""},
			{"type": "git-commits", "min": 2, "baseline": "origin/main"},
			{"type": "issue-closed", "issue": 1, "repo": "h.example/o/r"},
			{"type": "test", "command": "x", "cache": true},
			{"type": "command", "command": "x", "success_when": "exit_code:1", "cache": false},
			{"type": "type-check", "command": "x", "success_when": "empty", "cache": false},
			{"type": "external", "command": "./check"},
			{"type": "files", "paths": ["a", "b/*.go"]}]}`)},
}

// TestSchemaRefusesOnlyWhatLoaderRefuses: for each keyword that can make
// the schema refuse a config, configs it refuses for that keyword, which
// the loader must refuse too. TestEveryKeywordIsTried keeps the table up
// with the generator.
func TestSchemaRefusesOnlyWhatLoaderRefuses(t *testing.T) {
	s := compiled(t)
	for _, tt := range invalid {
		t.Run(tt.keyword+"/"+tt.config, func(t *testing.T) {
			ok, _ := schemaAccepts(s, []byte(tt.config))
			assert.False(t, ok, "the schema takes it")
			assert.NotEmpty(t, problems(t, []byte(tt.config)), "the loader takes it")
		})
	}
}

// invalid holds configs the schema refuses, by the keyword that refuses
// them.
var invalid = []struct{ keyword, config string }{
	{"type", `[]`},
	{"type", `{"checkers": "plan"}`},
	{"type", `{"$schema": 5}`},
	{"type", `{"dialect": 1}`},
	{"type", `{"checkers": [{"type": "issue-closed", "issue": 1.5}]}`},
	{"type", `{"checkers": [{"type": "test", "command": "x", "cache": "yes"}]}`},
	{"type", `{"checkers": [{"type": "composite", "checkers": [{"type": "plan"}], "parallel": 1}]}`},
	{"type", `{"limits": []}`},
	{"type", `{"checkers": [{"type": "plan", "name": null}]}`},
	{"type", `{"checkers": [7]}`},
	{"additionalProperties", `{"chekers": [{"type": "plan"}]}`},
	{"additionalProperties", `{"limits": {"max_block": 2}}`},
	{"additionalProperties", `{"checkers": [{"type": "plan", "command": "x"}]}`},
	{"additionalProperties", `{"checkers": [{"type": "git-clean", "paths": ["x"]}]}`},
	{"required", `{"checkers": [{"name": "x"}]}`},
	{"required", `{"checkers": [{"type": "command"}]}`},
	{"required", `{"checkers": [{"type": "composite"}]}`},
	{"required", `{"checkers": [{"type": "issue-closed"}]}`},
	{"required", `{"checkers": [{"type": "external"}]}`},
	{"required", `{"checkers": [{"type": "output"}]}`},
	{"required", `{"checkers": [{"type": "output", "conditions": [{"equals": 1}]}]}`},
	{"required", `{"checkers": [{"type": "claims", "claims": [{"path": "a"}]}]}`},
	{"required", `{"completion_signal": [{"exists": true}]}`},
	{"required", `{"checkers": [{"type": "iterations"}]}`},
	{"minLength", `{"checkers": [{"type": "command", "command": ""}]}`},
	{"minLength", `{"checkers": [{"type": "files", "paths": [""]}]}`},
	{"minLength", `{"gate_tools": [""]}`},
	{"oneOf", `{"checkers": [{"type": "external", "command": ""}]}`},
	{"oneOf", `{"checkers": [{"type": "external", "command": 5}]}`},
	{"minItems", `{"checkers": []}`},
	{"minItems", `{"completion_signal": []}`},
	{"minItems", `{"checkers": [{"type": "claims", "claims": []}]}`},
	{"minItems", `{"checkers": [{"type": "plan", "on": []}]}`},
	{"minItems", `{"checkers": [{"type": "composite", "checkers": []}]}`},
	{"minItems", `{"checkers": [{"type": "files", "paths": []}]}`},
	{"minItems", `{"checkers": [{"type": "external", "command": []}]}`},
	{"enum", `{"dialect": "cc"}`},
	{"enum", `{"checkers": [{"type": "output", "on": ["stop"], "conditions": [{"path": "status", "exists": true}]}]}`},
	{"enum", `{"on_error": "maybe"}`},
	{"enum", `{"checkers": [{"type": "nope"}]}`},
	{"enum", `{"checkers": [{"type": "plan", "on": ["stop", "stopp"]}]}`},
	{"items", `{"checkers": [{"type": "plan", "on": ["stop", 3]}]}`},
	{"items", `{"gate_tools": ["Write", null]}`},
	{"anyOf", `{"checkers": [{"type": "composite", "mode": "some", "checkers": [{"type": "plan"}]}]}`},
	{"anyOf", `{"checkers": [{"type": "git-commits", "min": -1}]}`},
	{"anyOf", `{"checkers": [{"type": "phase", "target": "done"}]}`},
	{"minimum", `{"limits": {"max_blocks": 0}}`},
	{"minimum", `{"checkers": [{"type": "iterations", "min": 0}]}`},
	{"exclusiveMinimum", `{"checkers": [{"type": "issue-closed", "issue": -3}]}`},
	{"not", `{"checkers": [{"type": "issue-closed", "issue": 0}]}`},
	{"not", `{"limits": {"budget": "0s"}}`},
	{"not", `{"limits": {"budget": "0.000h0m"}}`},
	{"pattern", `{"limits": {"deadline": "-1m"}}`},
	{"pattern", `{"limits": {"deadline": "-0.5s"}}`},
	{"pattern", `{"limits": {"budget": "5 minutes"}}`},
	{"pattern", `{"checkers": [{"type": "test", "command": "x", "timeout": "90"}]}`},
	{"pattern", `{"checkers": [{"type": "lint", "timeout": ""}]}`},
	{"allOf", `{"checkers": [{"type": "format", "mode": "all"}]}`},
	{"allOf", `{"checkers": [{"type": "composite", "checkers": [{"type": "plan", "paths": []}]}]}`},
	{"allOf", `{"checkers": [{"type": "claims", "claims": [{"path": "a", "checker": {"type": "command"}}]}]}`},
}

// TestEveryKeyRefusesAWrongValue: for each key of each checker type, a
// valid checker with that key's value of the wrong JSON type, and with a
// key the type does not take: the schema refuses each, and so must the
// loader. Generated from the schema, so a new type or key is tried.
func TestEveryKeyRefusesAWrongValue(t *testing.T) {
	s := compiled(t)
	var doc struct {
		Defs map[string]struct {
			Properties map[string]map[string]any `json:"properties"`
		} `json:"$defs"`
	}
	b, err := os.ReadFile(schema.FileName)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &doc))
	for _, typ := range config.CheckerTypes() {
		ct, ok := checkers.LookupType(typ)
		require.True(t, ok, typ)
		base := ct.Example
		cfg := func(c map[string]any) []byte {
			b, err := json.Marshal(map[string]any{"checkers": []any{c}})
			require.NoError(t, err)
			return b
		}
		var c map[string]any
		require.NoError(t, json.Unmarshal([]byte(base), &c))
		ok, err := schemaAccepts(s, cfg(c))
		require.True(t, ok, "%s's Example: %v", typ, err)
		require.Empty(t, problems(t, cfg(c)), "%s's Example", typ)

		props := doc.Defs["checker-"+typ].Properties
		require.NotEmpty(t, props, typ)
		keys := []string{"zzz"}
		for k := range props {
			if k != "type" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, key := range keys {
			var bad map[string]any
			require.NoError(t, json.Unmarshal([]byte(base), &bad))
			bad[key] = true // a key no type takes
			if key != "zzz" {
				bad[key] = wrongValue(t, props[key])
			}
			t.Run(typ+"/"+key, func(t *testing.T) {
				ok, _ := schemaAccepts(s, cfg(bad))
				assert.False(t, ok, "the schema takes it")
				assert.NotEmpty(t, problems(t, cfg(bad)), "the loader takes it")
			})
		}
	}
}

// wrongValue returns a value of a JSON type that neither the property
// schema p nor any of its alternatives (anyOf, oneOf) allows.
func wrongValue(t *testing.T, p map[string]any) any {
	t.Helper()
	types := map[string]bool{}
	var walk func(p map[string]any)
	walk = func(p map[string]any) {
		if jt, ok := p["type"].(string); ok {
			types[jt] = true
		}
		for _, k := range []string{"anyOf", "oneOf"} {
			alts, _ := p[k].([]any)
			for _, a := range alts {
				walk(a.(map[string]any))
			}
		}
	}
	walk(p)
	for _, c := range []struct {
		typ   string
		value any
	}{{"boolean", true}, {"string", "x"}, {"integer", 5}, {"array", []any{}}, {"object", map[string]any{}}} {
		if !types[c.typ] {
			return c.value
		}
	}
	t.Fatalf("property %v takes every JSON type", p)
	return nil
}

// Keywords that refuse nothing by themselves: they name, describe, refer,
// or choose the subschema that refuses (const is the "if" of a checker's
// type and the zero of an omitempty, tried through anyOf and allOf).
var notRefusing = []string{"$schema", "$id", "$defs", "$ref", "title", "description", "properties", "if", "then", "const"}

// TestEveryKeywordIsTried: each keyword the schema uses is in the table
// of invalid configs or refuses nothing, so a keyword the generator
// starts to emit is tried against the loader.
func TestEveryKeywordIsTried(t *testing.T) {
	b, err := os.ReadFile(schema.FileName)
	require.NoError(t, err)
	var root map[string]any
	require.NoError(t, json.Unmarshal(b, &root))
	used := map[string]bool{}
	keywords(root, used)
	tried := map[string]bool{}
	for _, tt := range invalid {
		tried[tt.keyword] = true
	}
	for k := range used {
		assert.True(t, tried[k] || slices.Contains(notRefusing, k), "keyword %q is not tried in invalid", k)
	}
	for k := range tried {
		assert.True(t, used[k], "invalid tries %q, which the schema does not use", k)
	}
}

// keywords records the keywords of the schema s and of its subschemas.
func keywords(s map[string]any, used map[string]bool) {
	for k, v := range s {
		used[k] = true
		switch k {
		case "properties", "$defs":
			for _, sub := range v.(map[string]any) {
				keywords(sub.(map[string]any), used)
			}
		case "items", "not", "if", "then":
			keywords(v.(map[string]any), used)
		case "allOf", "anyOf", "oneOf":
			for _, sub := range v.([]any) {
				keywords(sub.(map[string]any), used)
			}
		}
	}
}
