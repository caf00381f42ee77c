package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		{"test without command", `{"checkers":[{"type":"test"}]}`, []string{"checkers[0].command: required"}},
		{"files without paths", `{"checkers":[{"type":"files","paths":[]}]}`, []string{"checkers[0].paths: must not be empty"}},
		{"empty path", `{"checkers":[{"type":"files","paths":["a",""]}]}`, []string{"checkers[0].paths[1]: required"}},
		{"composite without members", `{"checkers":[{"type":"composite","mode":"all"}]}`, []string{"checkers[0].checkers: must not be empty"}},
		{"composite mode", `{"checkers":[{"type":"composite","mode":"some","checkers":[{"type":"plan"}]}]}`, []string{`checkers[0].mode: must be one of all, any, got "some"`}},
		{"nested", `{"checkers":[{"type":"composite","checkers":[{"type":"plan"},{"type":"test","timeout":"-5s","command":"x"}]}]}`, []string{`checkers[0].checkers[1].timeout: duration "-5s" is negative`}},
		{"empty gate tool", `{"gate_tools":[""]}`, []string{"gate_tools[0]: required"}},
		{"several at once", `{"dialect":"x","limits":{"max_blocks":0},"checkers":[{"type":"test"}]}`, []string{
			`dialect: must be one of claude-code, sdk, got "x"`,
			"checkers[0].command: required",
			"limits.max_blocks: must be at least 1",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.json), "t.json")
			var cerr *Error
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

func TestParseDefaultsAndValues(t *testing.T) {
	c, err := Parse(strings.NewReader(`{"limits":{"deadline":"30m"},"checkers":[{"type":"test","name":"unit","command":"go test ./...","timeout":"90s","cache":false}]}`), "t.json")
	require.NoError(t, err)
	assert.Equal(t, "claude-code", c.Dialect)
	assert.Equal(t, "allow", c.OnError)
	assert.Equal(t, DefaultGateTools, c.GateTools)
	assert.Equal(t, 5, c.Limits.MaxBlocks)
	assert.Equal(t, 30*time.Minute, c.Limits.Deadline.D())
	assert.Equal(t, 540*time.Second, c.Limits.Budget.D())
	require.Len(t, c.Checkers, 1)
	assert.Equal(t, 90*time.Second, c.Checkers[0].Timeout.D())
	assert.False(t, c.Checkers[0].CacheEnabled())
	assert.Equal(t, "unit", c.Checkers[0].Label())
	assert.Equal(t, "t.json", c.Source)

	// No checkers at all means the plan checker, like the embedded default.
	c, err = Parse(strings.NewReader(`{}`), "empty.json")
	require.NoError(t, err)
	assert.Equal(t, []Checker{{Type: TypePlan}}, c.Checkers)
	assert.Equal(t, Default().Checkers, c.Checkers)
}

func TestParseRefusesOversizedAndNonJSON(t *testing.T) {
	_, err := Parse(strings.NewReader(`{"checkers":[`+strings.Repeat(" ", 1<<20)+`]}`), "big.json")
	require.ErrorContains(t, err, "larger than 1 MiB")
	_, err = Parse(strings.NewReader(`dialect = "sdk"`), "toml.json")
	var cerr *Error
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
	proj := write(filepath.Join(dir, "proj", ".claude", FileName))
	cwd := write(filepath.Join(dir, "cwd", ".claude", FileName))
	// A directory where the project file would be is not a config.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "dirproj", ".claude", FileName), 0o755))
	// A FIFO is returned, for Load to report, and never opened here.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "fifoproj", ".claude"), 0o755))
	fifo := filepath.Join(dir, "fifoproj", ".claude", FileName)
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))

	tests := []struct {
		name   string
		lookup Lookup
		want   string
		err    error
	}{
		{"flag first", Lookup{Flag: flag, Env: env, ProjectDir: filepath.Join(dir, "proj"), Cwd: filepath.Join(dir, "cwd")}, flag, nil},
		{"then env", Lookup{Env: env, ProjectDir: filepath.Join(dir, "proj")}, env, nil},
		{"then project dir", Lookup{ProjectDir: filepath.Join(dir, "proj"), Cwd: filepath.Join(dir, "cwd")}, proj, nil},
		{"then cwd", Lookup{ProjectDir: filepath.Join(dir, "none"), Cwd: filepath.Join(dir, "cwd")}, cwd, nil},
		{"a directory is skipped", Lookup{ProjectDir: filepath.Join(dir, "dirproj"), Cwd: filepath.Join(dir, "cwd")}, cwd, nil},
		{"a FIFO is returned for Load to report", Lookup{ProjectDir: filepath.Join(dir, "fifoproj"), Cwd: filepath.Join(dir, "cwd")}, fifo, nil},
		{"a FIFO as --config is returned", Lookup{Flag: fifo}, fifo, nil},
		{"nothing: embedded default", Lookup{Cwd: filepath.Join(dir, "none")}, "", nil},
		{"missing --config is an error", Lookup{Flag: filepath.Join(dir, "nope.json"), Env: env}, "", ErrNotFound},
		{"missing DONEGATE_CONFIG is an error", Lookup{Env: filepath.Join(dir, "nope.json"), Cwd: filepath.Join(dir, "cwd")}, "", ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				got string
				err error
			)
			returnsWithin(t, 5*time.Second, func() { got, err = Find(tt.lookup) })
			if tt.err != nil {
				require.True(t, errors.Is(err, tt.err), "err = %v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestOnErrorOfReadsBrokenConfigsLeniently(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ json, want string }{
		{`{"on_error":"block","checkers":[{"type":"nope"}]}`, "block"},
		{`{"on_error":"block","checkers":[`, "allow"}, // not JSON: cannot know
		{`{"on_error":"bogus"}`, "allow"},
		{`{"checkers":[{"type":"nope"}]}`, "allow"},
	}
	for i, tt := range tests {
		p := filepath.Join(dir, strings.Repeat("x", i+1)+".json")
		require.NoError(t, os.WriteFile(p, []byte(tt.json), 0o644))
		assert.Equal(t, tt.want, OnErrorOf(Lookup{Flag: p}), tt.json)
	}
	assert.Equal(t, "allow", OnErrorOf(Lookup{Flag: filepath.Join(dir, "missing.json")}))
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
// by Load and Resolve, and OnErrorOf falls back to "allow" just as fast.
func TestConfigNotRegular(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		kind string
	}{
		{"FIFO", func(t *testing.T, p string) { require.NoError(t, syscall.Mkfifo(p, 0o644)) }, "a FIFO"},
		{"directory", func(t *testing.T, p string) { require.NoError(t, os.Mkdir(p, 0o755)) }, "a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), FileName)
			tt.make(t, p)
			for _, load := range []struct {
				name string
				fn   func() (*Config, error)
			}{
				{"Load", func() (*Config, error) { return Load(p) }},
				{"Resolve --config", func() (*Config, error) { return Resolve(Lookup{Flag: p}) }},
			} {
				var err error
				returnsWithin(t, 5*time.Second, func() { _, err = load.fn() })
				var cerr *Error
				require.ErrorAs(t, err, &cerr, load.name)
				assert.Equal(t, "config "+p+": not a regular file ("+tt.kind+"); a config is a JSON file", err.Error(), load.name)
			}
			var got string
			returnsWithin(t, 5*time.Second, func() { got = OnErrorOf(Lookup{Flag: p}) })
			assert.Equal(t, "allow", got)
		})
	}
	t.Run("character device", func(t *testing.T) {
		_, err := Load(os.DevNull)
		require.EqualError(t, err, "config /dev/null: not a regular file (a character device); a config is a JSON file")
	})
}

// TestOnErrorOfBounds: OnErrorOf reads no more than Parse would, and
// never hands gjson's recursive validator a deeply nested file.
func TestOnErrorOfBounds(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"within bounds", `{"on_error":"block","x":` + strings.Repeat("[", 511) + strings.Repeat("]", 511) + `}`, "block"},
		{"too deep", `{"on_error":"block","x":` + strings.Repeat("[", 512) + strings.Repeat("]", 512) + `}`, "allow"},
		{"half a million deep", `{"on_error":"block","x":` + strings.Repeat("[", 500_000) + strings.Repeat("]", 500_000) + `}`, "allow"},
		{"over 1 MiB", `{"on_error":"block","x":"` + strings.Repeat("x", 1<<20) + `"}`, "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), FileName)
			require.NoError(t, os.WriteFile(p, []byte(tt.json), 0o644))
			assert.Equal(t, tt.want, OnErrorOf(Lookup{Flag: p}))
		})
	}
}

// TestKeyTablesMatchTypes: every key the decoder accepts has a field with
// that JSON name, and every field with a JSON name is accepted somewhere,
// so no setting can be silently unreadable.
func TestKeyTablesMatchTypes(t *testing.T) {
	checkerTable := map[string]kind{}
	for k, v := range commonCheckerKeys {
		checkerTable[k] = v
	}
	for _, own := range checkerKeys {
		for k, v := range own {
			checkerTable[k] = v
		}
	}
	for _, tt := range []struct {
		typ  reflect.Type
		keys map[string]kind
	}{
		{reflect.TypeFor[Config](), topKeys},
		{reflect.TypeFor[Limits](), limitKeys},
		{reflect.TypeFor[Checker](), checkerTable},
	} {
		var fields []string
		for i := range tt.typ.NumField() {
			if name := jsonName(tt.typ.Field(i)); name != "" {
				fields = append(fields, name)
			}
		}
		var keys []string
		for k := range tt.keys {
			keys = append(keys, k)
			assert.NotPanics(t, func() { fieldByJSONName(reflect.New(tt.typ).Elem(), k) }, "%s.%s", tt.typ, k)
		}
		assert.ElementsMatch(t, fields, keys, "%s: JSON fields vs accepted keys", tt.typ)
	}
}

// FuzzDecodeMatchesEncodingJSON: whatever the one-pass decoder accepts,
// encoding/json decodes to the very same config (the decoder is only
// stricter: unknown keys and wrong types are problems, not ignored).
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"checkers":[{"type":"plan"}]}`))
	f.Add([]byte(`{"dialect":"sdk","checkers":[{"type":"test","command":"go test ./...","timeout":"5m","cache":false},{"type":"composite","mode":"any","parallel":true,"checkers":[{"type":"files","name":"n","paths":["a","b*"]}]}],"limits":{"max_blocks":5,"deadline":"30m","budget":"540s"},"on_error":"block","gate_tools":[]}`))
	f.Add([]byte(`{"limits":{"max_blocks":9007199254740993},"dialect":"a","dialect":"b","checkers":[]}`))
	f.Add([]byte(`{"gate_tools":["\u00e9\ud83d\ude00\n"],"checkers":[{"type":"test","cache":true,"command":"x","cache":false}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got := defaults()
		if problems := decode(data, got); len(problems) > 0 {
			return
		}
		want := defaults()
		if err := json.Unmarshal(data, want); err != nil {
			t.Fatalf("decode accepted what encoding/json refuses: %v", err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("decode and encoding/json differ:\n got %+v\nwant %+v", got, want)
		}
	})
}

func TestParseRefusesInvalidUTF8(t *testing.T) {
	_, err := Parse(strings.NewReader("{\n  \"checkers\": [{\"type\": \"test\", \"command\": \"go t\x89st\"}]}"), "t.json")
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
			_, err := Parse(strings.NewReader(tc.data), "t.json")
			require.EqualError(t, err, tc.want)
		})
	}
}
