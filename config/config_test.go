package config_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
)

// TestParseProblems covers the rules the validator enforces after the shape
// check: each bad document must be refused with the JSON path at fault.
func TestParseProblems(t *testing.T) {
	tests := []struct {
		name string
		json string
		want []string // Problem strings, in order
	}{
		{"dialect", `{"dialect":"sdk2"}`, []string{`dialect: must be one of claude-code, sdk, got "sdk2"`}},
		{"on_error", `{"on_error":"deny"}`, []string{`on_error: must be one of allow, block, got "deny"`}},
		{"max_blocks zero", `{"limits":{"max_blocks":0}}`, []string{"limits.max_blocks: must be at least 1"}},
		{"negative deadline", `{"limits":{"deadline":"-1m"}}`, []string{`limits.deadline: duration "-1m" is negative`}},
		{"zero budget", `{"limits":{"budget":"0s"}}`, []string{"limits.budget: must be greater than 0"}},
		{"command without command", `{"checkers":[{"type":"command"}]}`, []string{"checkers[0].command: required"}},
		{"files without paths", `{"checkers":[{"type":"files","paths":[]}]}`, []string{"checkers[0].paths: must not be empty"}},
		{"empty path", `{"checkers":[{"type":"files","paths":["a",""]}]}`, []string{"checkers[0].paths[1]: required"}},
		{"composite without members", `{"checkers":[{"type":"composite","mode":"all"}]}`, []string{"checkers[0].checkers: must not be empty"}},
		{"composite mode", `{"checkers":[{"type":"composite","mode":"some","checkers":[{"type":"plan"}]}]}`, []string{`checkers[0].mode: must be one of all, any, got "some"`}},
		{"nested", `{"checkers":[{"type":"composite","checkers":[{"type":"plan"},{"type":"test","timeout":"-5s","command":"x"}]}]}`, []string{`checkers[0].checkers[1].timeout: duration "-5s" is negative`}},
		{"empty gate tool", `{"gate_tools":[""]}`, []string{"gate_tools[0]: required"}},
		{"empty chain", `{"checkers":[]}`, []string{`checkers: must not be empty; leave the key out to use the default, [{"type":"plan"},{"type":"test"}]`}},
		{"empty chain in a composite", `{"checkers":[{"type":"composite","checkers":[]}]}`, []string{"checkers[0].checkers: must not be empty"}},
		{"unclosed class", `{"checkers":[{"type":"files","paths":["a","dist/["]}]}`, []string{`checkers[0].paths[1]: invalid glob pattern "dist/[": syntax error in pattern`}},
		{"escape at the end", `{"checkers":[{"type":"files","paths":["*\\"]}]}`, []string{`checkers[0].paths[0]: invalid glob pattern "*\\": syntax error in pattern`}},
		// filepath.Glob also checks each directory part that holds magic
		// characters, so a class or an escape may not span a "/".
		{"class across a separator", `{"checkers":[{"type":"files","paths":["dist/[a/b]"]}]}`, []string{`checkers[0].paths[0]: invalid glob pattern "dist/[a/b]": syntax error in pattern`}},
		{"escaped separator", `{"checkers":[{"type":"files","paths":["a\\/b*"]}]}`, []string{`checkers[0].paths[0]: invalid glob pattern "a\\/b*": syntax error in pattern`}},
		{"absolute pattern", `{"checkers":[{"type":"files","paths":["/srv/[a-"]}]}`, []string{`checkers[0].paths[0]: invalid glob pattern "/srv/[a-": syntax error in pattern`}},
		{"duplicate checker type", `{"checkers":[{"type":"files","type":"test","paths":["a"]}]}`, []string{"checkers[0].type: duplicate key"}},
		{"duplicate top-level key", `{"dialect":"sdk","on_error":"block","dialect":"sdk"}`, []string{"dialect: duplicate key"}},
		{"duplicate limit", `{"limits":{"budget":"1m","max_blocks":2,"budget":"2m"}}`, []string{"limits.budget: duplicate key"}},
		{"duplicate spelt with an escape", `{"on_error":"allow","on_\u0065rror":"block"}`, []string{"on_error: duplicate key"}},
		{"duplicate in a member", `{"checkers":[{"type":"composite","checkers":[{"type":"test","command":"a","name":"x","command":"b"}]}]}`, []string{"checkers[0].checkers[0].command: duplicate key"}},
		{"keys that differ are not duplicates", `{"checkers":[{"type":"files","paths":["a"]},{"type":"files","paths":["a"],"name":"paths"}]}`, nil},
		{"several at once", `{"dialect":"x","limits":{"max_blocks":0},"checkers":[{"type":"command"}]}`, []string{
			`dialect: must be one of claude-code, sdk, got "x"`,
			"checkers[0].command: required",
			"limits.max_blocks: must be at least 1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			skipUnixEscape(t, tt.json) // the patterns' escapes
			_, err := config.Parse(strings.NewReader(tt.json), "t.json")
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var cerr *config.Error
			require.ErrorAs(t, err, &cerr)
			assert.Equal(t, "t.json", cerr.Source)
			var got []string
			for _, p := range cerr.Problems {
				got = append(got, p.String())
			}
			assert.ElementsMatch(t, tt.want, got)
			assert.True(t, strings.HasPrefix(err.Error(), "config t.json: "), err.Error())
		})
	}
}

// TestParseReportsAllAtOnce: problems of shape (in the order of the
// file) and then of value (in the order of the fields) come in one error,
// and what decoding already reported is not reported again by the rules.
func TestParseReportsAllAtOnce(t *testing.T) {
	// The registered types, as messages list them: every new type is in
	// the list, and no test of the config changes for it.
	types := strings.Join(config.CheckerTypes(), ", ")
	require.Contains(t, types, "composite, ")
	tests := []struct {
		name string
		json string
		want []string // in order
	}{
		{"shape, then value", `{"dialect":"x","limits":{"budget":"5 minutes","max_blocks":0},"checkers":[{"type":"command","timeout":3}]}`, []string{
			`limits.budget: invalid duration "5 minutes" (use a Go duration such as "90s", "5m", "1h30m")`,
			`checkers[0].timeout: expected a duration string such as "90s", got the number 3`,
			`dialect: must be one of claude-code, sdk, got "x"`,
			"checkers[0].command: required",
			"limits.max_blocks: must be at least 1",
		}},
		{"a checker of unknown type is not checked further", `{"checkers":[{"type":"pylint","command":""},{"type":"command"}]}`, []string{
			`checkers[0].type: unknown checker type "pylint" (valid: ` + types + `)`,
			"checkers[1].command: required",
		}},
		{"nor one without a type", `{"checkers":[{"name":"x"},{"type":"files","paths":[]}]}`, []string{
			"checkers[0].type: missing (valid: " + types + ")",
			"checkers[1].paths: must not be empty",
		}},
		{"nor one whose type is given twice", `{"checkers":[{"type":"test","type":"files"}],"on_error":"x"}`, []string{
			"checkers[0].type: duplicate key",
			`on_error: must be one of allow, block, got "x"`,
		}},
		{"nor one that is not an object", `{"checkers":[3,{"type":"command"}]}`, []string{
			`checkers[0]: expected a checker object such as {"type": "plan"}, got the number 3`,
			"checkers[1].command: required",
		}},
		{"a misspelt key is not also missing", `{"checkers":[{"type":"test","comand":"go test"}]}`, []string{
			`checkers[0].comand: unknown key for a "test" checker (did you mean "command"? valid: cache, command, name, on, scope, timeout, type, weakening)`,
		}},
		{"unless the right spelling is there too", `{"checkers":[{"type":"command","command":"","comand":"go test"}]}`, []string{
			`checkers[0].comand: unknown key for a "command" checker (did you mean "command"? valid: cache, command, name, on, success_when, timeout, type)`,
			"checkers[0].command: required",
		}},
		{"a value of the wrong type is not also missing", `{"checkers":[{"type":"test","command":3},{"type":"files","paths":[3,""]}]}`, []string{
			"checkers[0].command: expected a string, got the number 3",
			"checkers[1].paths[0]: expected a string, got the number 3",
			"checkers[1].paths[1]: required",
		}},
		{"a checkers list of the wrong type keeps the default", `{"checkers":{"type":"plan"},"gate_tools":[""]}`, []string{
			"checkers: expected an array of checkers, got an object",
			"gate_tools[0]: required",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, problems(t, tt.json))
		})
	}
}

// nestedComposites returns a config of n composites, each the only member
// of the one around it, the innermost holding inner.
// problems returns the problems config.Parse reports in the config doc,
// each as its message reads.
func problems(t *testing.T, doc string) []string {
	t.Helper()
	_, err := config.Parse(strings.NewReader(doc), "t.json")
	var cerr *config.Error
	require.ErrorAs(t, err, &cerr)
	var got []string
	for _, p := range cerr.Problems {
		got = append(got, p.String())
	}
	return got
}

func nestedComposites(n int, inner string) string {
	return `{"checkers":[` + strings.Repeat(`{"type":"composite","checkers":[`, n) + inner + strings.Repeat(`]}`, n) + `]}`
}

// nestedClaims returns a config of n claims checkers, each the checker of
// the one claim of the one around it, the innermost holding inner.
func nestedClaims(n int, inner string) string {
	return `{"checkers":[` + strings.Repeat(`{"type":"claims","claims":[{"path":"a","checker":`, n) + inner + strings.Repeat(`}]}`, n) + `]}`
}

// TestParseBoundsNesting: composites nest at most maxCompositeDepth deep,
// and a file nested deeper than any valid config is refused before
// anything reads it level by level. A 1 MB config of 30,000 composites
// took 162 s to refuse when the depth was not bounded.
func TestParseBoundsNesting(t *testing.T) {
	tooDeep := []config.Problem{{Message: "nested deeper than 117 levels of JSON (composites may nest at most 32 deep)"}}
	tests := []struct {
		name string
		json string
		want []config.Problem // nil: valid
	}{
		{"32 composites", nestedComposites(32, `{"type":"files","paths":["a"]}`), nil},
		{"a 33rd composite", "\n  " + nestedComposites(33, ""), []config.Problem{{
			Path:    "checkers[0].checkers[0].…(29 more)….checkers[0].checkers[0]",
			Message: "composites nest deeper than 32 levels (this one starts at line 2, column 1040)",
		}}},
		{"a 33rd composite with members", nestedComposites(33, `{"type":"plan"}`), []config.Problem{{
			Path:    "checkers[0].checkers[0].…(29 more)….checkers[0].checkers[0]",
			Message: "composites nest deeper than 32 levels (this one starts at line 1, column 1038)",
		}}},
		{"60 composites with members", nestedComposites(60, `{"type":"plan"}`), tooDeep},
		// A claim's checker is a member: claims nest as composites do, one
		// level of JSON deeper each.
		{"32 claims", nestedClaims(32, `{"type":"output","conditions":[{"path":"a","equals":`+strings.Repeat("[", 16)+strings.Repeat("]", 16)+`}]}`), nil},
		{"a 33rd claims", nestedClaims(33, `{"type":"plan"}`), []config.Problem{{
			Path:    "checkers[0].claims[0].…(61 more)….claims[0].checker",
			Message: "composites nest deeper than 32 levels (this one starts at line 1, column 1582)",
		}}},
		{"30,000 composites (1 MB)", nestedComposites(30_000, `{"type":"plan"}`), tooDeep},
		{"nothing but brackets (1 MB)", strings.Repeat("[", 1<<20), tooDeep},
		{"deep where no array belongs", `{"limits":{"budget":` + strings.Repeat("[", 200) + strings.Repeat("]", 200) + `}}`, tooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() {
				_, err := config.Parse(strings.NewReader(tt.json), "t.json")
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute): // it takes milliseconds, 162 s unbounded
				t.Fatal("Parse still running after a minute")
			}
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var cerr *config.Error
			require.ErrorAs(t, err, &cerr)
			assert.Equal(t, tt.want, cerr.Problems)
		})
	}
}

// BenchmarkParseDeepComposite decodes and validates composites nested as
// deep as they may.
func BenchmarkParseDeepComposite(b *testing.B) {
	data := []byte(nestedComposites(config.MaxCompositeDepth, `{"type":"test","command":"go test ./..."},{"type":"files","paths":["a","b/*"]}`))
	b.SetBytes(int64(len(data)))
	for range b.N {
		if _, err := config.Parse(bytes.NewReader(data), "b.json"); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGlobError: the patterns the files checker would fail on are found
// without reading a directory, including those filepath.Match(p, "")
// passes because it stops reading at the first chunk that does not match.
// skipUnixEscape skips a case of a pattern with a backslash on Windows,
// where filepath.Match reads it as a path separator, not an escape
// (docs/install.md, Windows).
func skipUnixEscape(t *testing.T, pattern string) {
	t.Helper()
	if runtime.GOOS == "windows" && strings.Contains(pattern, `\`) {
		t.Skip(`\ is a path separator on Windows, not an escape`)
	}
}

func TestGlobError(t *testing.T) {
	tests := []struct {
		pattern string
		bad     bool
	}{
		{"*.go", false},
		{"dist/*.html", false},
		{"a?c", false},
		{"[a-z]*", false},
		{"[^a]x", false},
		{"[*[]", false}, // a star in a class does not end the chunk
		{`[\]]`, false},
		{`a\*b`, false},
		{"**/x", false},
		{"/srv/*/x-[0-9]", false},
		{"../x*", false},
		{"é[é-ü]*", false},
		{"[", true},
		{"dist/[", true},
		{"[a-", true},
		{"[-a]", true},
		{"[a-]", true},
		{"[]]", true},
		{"[^]", true},
		{"dist/*[", true},    // Match(p, "") passes it
		{`x*\`, true},        // Match(p, "") passes it
		{"a*b*[z-", true},    // Match(p, "") passes it
		{"dist/[a/b]", true}, // Glob matches "dist/[a" and "b]" apart
		{`a\/b*`, true},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			skipUnixEscape(t, tt.pattern)
			err := config.GlobError(tt.pattern)
			if tt.bad {
				assert.ErrorIs(t, err, filepath.ErrBadPattern)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

func TestParseDefaultsAndValues(t *testing.T) {
	c, err := config.Parse(strings.NewReader(`{"limits":{"deadline":"30m"},"checkers":[{"type":"test","name":"unit","command":"go test ./...","timeout":"90s","cache":false}]}`), "t.json")
	require.NoError(t, err)
	assert.Equal(t, "claude-code", c.Dialect)
	assert.Equal(t, "allow", c.OnError)
	assert.Equal(t, config.DefaultGateTools, c.GateTools)
	assert.Equal(t, 5, c.Limits.MaxBlocks)
	assert.Equal(t, 30*time.Minute, c.Limits.Deadline.D())
	assert.Equal(t, 540*time.Second, c.Limits.Budget.D())
	require.Len(t, c.Checkers, 1)
	require.IsType(t, &checkers.TestOptions{}, c.Checkers[0].Options)
	opts := c.Checkers[0].Options.(*checkers.TestOptions)
	assert.Equal(t, 90*time.Second, opts.Timeout.D())
	assert.False(t, opts.CacheEnabled())
	assert.Equal(t, "unit", c.Checkers[0].Label())
	assert.Equal(t, "t.json", c.Source)

	// No checkers at all means the embedded default's: the plan checker
	// and the project's detected test command.
	c, err = config.Parse(strings.NewReader(`{}`), "empty.json")
	require.NoError(t, err)
	assert.Equal(t, []config.Checker{{Type: "plan", Options: &checkers.PlanOptions{}}, {Type: "test", Options: &checkers.TestOptions{}}}, c.Checkers)
	assert.Equal(t, config.Default().Checkers, c.Checkers)
}

// TestParseTakesSchemaKey: "$schema", which points an editor at the
// config's JSON Schema, is a key like any other, a string, and changes
// nothing else.
func TestParseTakesSchemaKey(t *testing.T) {
	const url = "https://raw.githubusercontent.com/donegate/donegate/main/schema/donegate.schema.json"
	for _, tt := range []struct {
		name, doc, schema, problem string
	}{
		{"url", `{"$schema": "` + url + `", "checkers": [{"type": "plan"}, {"type": "test"}]}`, url, ""},
		{"any string", `{"$schema": "./donegate.schema.json"}`, "./donegate.schema.json", ""},
		{"not a string", `{"$schema": 1}`, "", "$schema: expected a string, got the number 1"},
		{"not in a checker", `{"checkers": [{"type": "plan", "$schema": "x"}]}`, "", `checkers[0].$schema: unknown key for a "plan" checker`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := config.Parse(strings.NewReader(tt.doc), "s.json")
			if tt.problem != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.problem)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.schema, c.Schema)
			c.Schema = ""
			def := config.Default()
			def.Source = c.Source
			assert.Equal(t, def, c, "only $schema differs from the default")
		})
	}
}

func TestParseRefusesOversizedAndNonJSON(t *testing.T) {
	_, err := config.Parse(strings.NewReader(`{"checkers":[`+strings.Repeat(" ", 1<<20)+`]}`), "big.json")
	require.ErrorContains(t, err, "larger than 1 MiB")
	_, err = config.Parse(strings.NewReader(`dialect = "sdk"`), "toml.json")
	var cerr *config.Error
	require.ErrorAs(t, err, &cerr)
}

func TestFindOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(p string) string {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(`{}`), 0o644))
		return p
	}
	flag := write(filepath.Join(dir, "flag.json"))
	env := write(filepath.Join(dir, "env.json"))
	proj := write(filepath.Join(dir, "proj", ".claude", config.FileName))
	cwd := write(filepath.Join(dir, "cwd", ".claude", config.FileName))
	// The host-neutral file, alone and beside .claude/donegate.json.
	neutral := write(filepath.Join(dir, "neutral", config.NeutralFileName))
	write(filepath.Join(dir, "proj", config.NeutralFileName))
	cwdNeutral := write(filepath.Join(dir, "cwdneutral", config.NeutralFileName))
	// A directory where the project file would be is not a config.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "dirproj", ".claude", config.FileName), 0o755))
	// A FIFO is returned, for Load to report, and never opened here.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "fifoproj", ".claude"), 0o755))
	fifo := filepath.Join(dir, "fifoproj", ".claude", config.FileName)
	fifotest.Make(t, fifo)

	tests := []struct {
		name   string
		lookup config.Lookup
		want   string
		err    error
	}{
		{"flag first", config.Lookup{Flag: flag, Env: env, ProjectDir: filepath.Join(dir, "proj"), Cwd: filepath.Join(dir, "cwd")}, flag, nil},
		{"then env", config.Lookup{Env: env, ProjectDir: filepath.Join(dir, "proj")}, env, nil},
		{"then project dir", config.Lookup{ProjectDir: filepath.Join(dir, "proj"), Cwd: filepath.Join(dir, "cwd")}, proj, nil},
		{"then cwd", config.Lookup{ProjectDir: filepath.Join(dir, "none"), Cwd: filepath.Join(dir, "cwd")}, cwd, nil},
		{"host-neutral .donegate.json in the project dir", config.Lookup{ProjectDir: filepath.Join(dir, "neutral")}, neutral, nil},
		{".claude/donegate.json before .donegate.json", config.Lookup{ProjectDir: filepath.Join(dir, "proj")}, proj, nil},
		{"the project dir's .donegate.json before the cwd's .claude/donegate.json", config.Lookup{ProjectDir: filepath.Join(dir, "neutral"), Cwd: filepath.Join(dir, "cwd")}, neutral, nil},
		{"host-neutral .donegate.json in the cwd", config.Lookup{ProjectDir: filepath.Join(dir, "none"), Cwd: filepath.Join(dir, "cwdneutral")}, cwdNeutral, nil},
		{"a directory is skipped", config.Lookup{ProjectDir: filepath.Join(dir, "dirproj"), Cwd: filepath.Join(dir, "cwd")}, cwd, nil},
		{"a FIFO is returned for Load to report", config.Lookup{ProjectDir: filepath.Join(dir, "fifoproj"), Cwd: filepath.Join(dir, "cwd")}, fifo, nil},
		{"a FIFO as --config is returned", config.Lookup{Flag: fifo}, fifo, nil},
		{"nothing: embedded default", config.Lookup{Cwd: filepath.Join(dir, "none")}, "", nil},
		{"missing --config is an error", config.Lookup{Flag: filepath.Join(dir, "nope.json"), Env: env}, "", config.ErrNotFound},
		{"missing DONEGATE_CONFIG is an error", config.Lookup{Env: filepath.Join(dir, "nope.json"), Cwd: filepath.Join(dir, "cwd")}, "", config.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				got string
				err error
			)
			returnsWithin(t, time.Minute, func() { got, err = config.Find(tt.lookup) })
			if tt.err != nil {
				require.True(t, errors.Is(err, tt.err), "err = %v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestBrokenConfigSaysItsOnError: the error of a broken config carries the
// on_error it asks for, read by the same pass, when that can be read.
func TestBrokenConfigSaysItsOnError(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		json string
		want bool
	}{
		{`{"on_error":"block","checkers":[{"type":"nope"}]}`, true},
		{`{"checkers":[{"type":"nope"}],"on_error":"block"}`, true},
		{`{"on_error":"block","checkers":[`, false}, // not JSON: cannot know
		{`{"on_error":"bogus"}`, false},
		{`{"on_error":"block","x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, true}, // too deep for a config, not to read
		{`{"on_error":["block"],"checkers":[]}`, false},
		{`{"checkers":[{"type":"nope"}]}`, false},
		{`{"on_error":"block","x":` + strings.Repeat("[", 500_000) + strings.Repeat("]", 500_000) + `}`, false}, // too deep to read
		{`{"on_error":"block","x":"` + strings.Repeat("x", 1<<20) + `"}`, false},                                // over 1 MiB
	}
	for i, tt := range tests {
		p := filepath.Join(dir, strings.Repeat("x", i+1)+".json")
		require.NoError(t, os.WriteFile(p, []byte(tt.json), 0o644))
		_, err := config.Load(p)
		require.Error(t, err)
		assert.Equal(t, tt.want, config.BlockOnError(err), "%.60s", tt.json)
	}
	_, err := config.Resolve(config.Lookup{Flag: filepath.Join(dir, "missing.json")})
	require.Error(t, err)
	assert.False(t, config.BlockOnError(err), "a missing --config file says nothing")
}

// TestErrorListsAtMostTwentyProblems: a config with thousands of problems
// is reported in a message of bounded length, saying how many more.
func TestErrorListsAtMostTwentyProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"checkers":[`)
	for i := range 5000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"type":"nope"}`)
	}
	b.WriteString(`]}`)
	_, err := config.Parse(strings.NewReader(b.String()), "big.json")
	var ce *config.Error
	require.ErrorAs(t, err, &ce)
	assert.Len(t, ce.Problems, 5000, "every problem is kept")
	msg := err.Error()
	assert.Equal(t, 20, strings.Count(msg, `unknown checker type "nope"`))
	assert.True(t, strings.HasSuffix(msg, "; and 4980 more problems"), msg[len(msg)-60:])
	assert.Less(t, len(msg), 8000)
}

// returnsWithin fails the test, instead of hanging it, when fn has not
// returned after d: opening a FIFO to read blocks for ever.
func returnsWithin(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
	}
}

// TestConfigNotRegular: a config path that is a FIFO, a directory or a
// device is a config error naming the file and its kind, returned at once
// by Load and Resolve, which does not ask to block.
func TestConfigNotRegular(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		kind string
	}{
		{"FIFO", func(t *testing.T, p string) { fifotest.Make(t, p) }, "a FIFO"},
		{"directory", func(t *testing.T, p string) { require.NoError(t, os.Mkdir(p, 0o755)) }, "a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), config.FileName)
			tt.make(t, p)
			for _, load := range []struct {
				name string
				fn   func() (*config.Config, error)
			}{
				{"Load", func() (*config.Config, error) { return config.Load(p) }},
				{"Resolve --config", func() (*config.Config, error) { return config.Resolve(config.Lookup{Flag: p}) }},
			} {
				var err error
				returnsWithin(t, time.Minute, func() { _, err = load.fn() })
				var cerr *config.Error
				require.ErrorAs(t, err, &cerr, load.name)
				assert.Equal(t, "config "+p+": not a regular file ("+tt.kind+"); a config is a JSON file", err.Error(), load.name)
			}
			_, err := config.Load(p)
			assert.False(t, config.BlockOnError(err))
		})
	}
	t.Run("character device", func(t *testing.T) {
		_, err := config.Load(os.DevNull)
		require.EqualError(t, err, "config "+os.DevNull+": not a regular file (a character device); a config is a JSON file")
	})
}

// TestKeyTablesMatchTypes: the keys the decoder takes are derived from
// the JSON names of the types' fields, and what each must hold from its
// Go type; a checker takes the keys every checker has and its type's
// options. Nothing lists them a second time.
func TestKeyTablesMatchTypes(t *testing.T) {
	for _, tt := range []struct {
		typ  reflect.Type
		keys map[string]string
	}{
		{reflect.TypeFor[config.Config](), map[string]string{"$schema": "a string", "dialect": "a string", "checkers": "an array of checkers", "limits": "an object", "on_error": "a string", "mode": "a string", "hold_unchanged": "true or false", "reuse_agent_runs": "true or false", "gate_tools": "an array of strings", "completion_signal": "an array of objects", "retry_templates": "a string"}},
		{reflect.TypeFor[config.Limits](), map[string]string{"max_blocks": "a whole number", "deadline": `a duration string such as "90s"`, "budget": `a duration string such as "90s"`, "max_holds_per_prompt": "a whole number"}},
		{reflect.TypeFor[config.Checker](), map[string]string{"type": "a string", "name": "a string", "on": "an array of strings"}},
		{reflect.TypeFor[checkers.PlanOptions](), map[string]string{}},
		{reflect.TypeFor[checkers.FilesOptions](), map[string]string{"paths": "an array of strings"}},
		{reflect.TypeFor[checkers.TestOptions](), map[string]string{"command": "a string", "timeout": `a duration string such as "90s"`, "cache": "true or false", "weakening": "a string", "scope": "a string"}},
		{reflect.TypeFor[checkers.CompositeOptions](), map[string]string{"mode": "a string", "checkers": "an array of checkers", "parallel": "true or false"}},
	} {
		var fields []string
		for i := range tt.typ.NumField() {
			if name := config.JSONName(tt.typ.Field(i)); name != "" {
				fields = append(fields, name)
			}
		}
		got := config.KeysOf(tt.typ)
		assert.Equal(t, tt.keys, got, "%s", tt.typ)
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		assert.ElementsMatch(t, fields, keys, "%s: JSON fields vs accepted keys", tt.typ)
	}
	for _, ct := range checkers.Types() {
		typ, ok := config.LookupType(ct.Name)
		require.True(t, ok, ct.Name)
		keys := []string{"name", "on", "type"}
		for k := range config.KeysOf(typ.Options) {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		assert.Equal(t, keys, config.CheckerKeys(ct.Name), "a %q checker's keys", ct.Name)
	}
}

// FuzzDecodeMatchesEncodingJSON: whatever the one-pass decoder accepts,
// encoding/json decodes to the very same config (the decoder is only
// stricter: unknown keys and wrong types are problems, not ignored). A
// document with a key twice in one object must be refused: encoding/json
// would take the last value, gjson's Get the first.
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"checkers":[{"type":"plan"}]}`))
	f.Add([]byte(`{"dialect":"sdk","checkers":[{"type":"test","command":"go test ./...","timeout":"5m","cache":false},{"type":"composite","mode":"any","parallel":true,"checkers":[{"type":"files","name":"n","paths":["a","b*"]}]}],"limits":{"max_blocks":5,"deadline":"30m","budget":"540s"},"on_error":"block","gate_tools":[]}`))
	f.Add([]byte(`{"limits":{"max_blocks":9007199254740993},"dialect":"b","checkers":[]}`))
	f.Add([]byte(`{"gate_tools":["\u00e9\ud83d\ude00\n"],"checkers":[{"type":"test","command":"x","cache":false}]}`))
	f.Add([]byte(`{"limits":{"max_blocks":9007199254740993},"dialect":"a","dialect":"b"}`))
	f.Add([]byte(`{"checkers":[{"type":"test","cache":true,"command":"x","cache":false}]}`))
	f.Add([]byte(`{"checkers":[{"type":"files","typ\u0065":"test","paths":["a"]}]}`))
	f.Add([]byte(`{"completion_signal":[{"path":"status","equals":"completed"},{"path":"a","equals":null},{"path":"b","exists":false},{"path":"c","matches":"^x"}],"checkers":[{"type":"output","conditions":[{"path":"n","equals":{"b":[1, 2.0],"a":{}}}]},{"type":"claims","claims":[{"path":"v.t","checker":{"type":"test","command":"x","on":["stop"]}},{"path":"v.c","checker":{"type":"claims","claims":[{"path":"x","checker":{"type":"plan"}}]}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := config.Defaults()
		problems, _ := config.Decode(data, got)
		if duplicateKey(data) {
			if len(problems) == 0 {
				t.Fatalf("decode accepted a key given twice")
			}
			return
		}
		if len(problems) > 0 {
			return
		}
		want := config.Defaults()
		if err := json.Unmarshal(data, want); err != nil {
			t.Fatalf("decode accepted what encoding/json refuses: %v", err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("decode and encoding/json differ:\n got %+v\nwant %+v", got, want)
		}
	})
}

// duplicateKey reports whether, as encoding/json reads data, an object
// holds a key twice; false for a document it cannot read.
func duplicateKey(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	// keys holds, per open object, the keys read so far; nil for an array.
	var keys []map[string]bool
	wantKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			keys = append(keys, map[string]bool{})
			wantKey = true
			continue
		case json.Delim('['):
			keys = append(keys, nil)
			continue
		case json.Delim('}'), json.Delim(']'):
			keys = keys[:len(keys)-1]
		default:
			if k, ok := tok.(string); ok && wantKey {
				if keys[len(keys)-1][k] {
					return true
				}
				keys[len(keys)-1][k] = true
				wantKey = false
				continue
			}
		}
		// A value ended: in an object, a key comes next.
		wantKey = len(keys) > 0 && keys[len(keys)-1] != nil
	}
}

func TestParseRefusesInvalidUTF8(t *testing.T) {
	_, err := config.Parse(strings.NewReader("{\n  \"checkers\": [{\"type\": \"test\", \"command\": \"go t\x89st\"}]}"), "t.json")
	require.EqualError(t, err, "config t.json: not UTF-8 text: byte 0x89 at line 2, column 49")
}

// TestParseLocatesSyntaxErrors: both kinds of unreadable file name the line
// and column an editor shows, counting characters, not bytes.
func TestParseLocatesSyntaxErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"missing comma", "{\n  \"on_error\": \"allow\"\n  \"dialect\": \"sdk\"}",
			"config t.json: invalid JSON at line 3, column 3: invalid character '\"' after object key:value pair"},
		{"after non-ASCII text", "{\"checkers\": [{\"type\": \"test\", \"command\": \"échec\"}}",
			"config t.json: invalid JSON at line 1, column 51: invalid character '}' after array element"},
		{"invalid UTF-8 after non-ASCII text", "{\"checkers\": [{\"type\": \"test\", \"command\": \"é\x89\"}]}",
			"config t.json: not UTF-8 text: byte 0x89 at line 1, column 45"},
		{"cut short", "{\n  \"dialect\": \"sdk\"",
			"config t.json: invalid JSON at line 2, column 19: unexpected end of JSON input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse(strings.NewReader(tc.data), "t.json")
			require.EqualError(t, err, tc.want)
		})
	}
}

// TestDefaultIsTheEmbeddedFile: Default, built in code, is what parsing
// default.json gives, and each call is a config of its own.
func TestDefaultIsTheEmbeddedFile(t *testing.T) {
	parsed, err := config.Parse(bytes.NewReader(config.DefaultJSON), config.DefaultSource)
	require.NoError(t, err)
	got := config.Default()
	require.Equal(t, parsed, got)
	got.Checkers[0].Type, got.GateTools[0] = "changed", "changed"
	assert.Equal(t, parsed, config.Default())
}
