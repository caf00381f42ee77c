package closer

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/testsupport/linktest"
)

// initRun runs closer init in-process with HOME and PATH of the test's
// choosing, and returns its exit code and output.
func initRun(t *testing.T, home, path string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), append([]string{"init"}, args...), &out, &errOut, testEnv(map[string]string{
		"HOME": home, "PATH": path,
	}, false))
	return code, unixView(out.String(), args), unixView(errOut.String(), args)
}

// hookBins makes a directory holding executable stop-hook and
// posttooluse-hook files.
func hookBins(t *testing.T, dir string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, p := range []string{"stop-hook", "posttooluse-hook"} {
		writeExecutable(t, filepath.Join(dir, p), "")
	}
	return dir
}

// project writes files (name: content) into a new dir and returns it.
func projectWith(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// snapshot is every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		files[filepath.ToSlash(strings.TrimPrefix(p, dir))] = string(data)
		return err
	}))
	return files
}

// parseWritten loads a config init wrote with config.Parse.
func parseWritten(t *testing.T, data []byte) *config.Config {
	t.Helper()
	require.Equal(t, schemaURL, gjson.GetBytes(data, `\$schema`).Str)
	cfg, err := config.Parse(bytes.NewReader(data), "written")
	require.NoError(t, err, "%s", data)
	return cfg
}

func TestInitDetectsTheProjectKind(t *testing.T) {
	for _, tt := range []struct {
		name    string
		files   map[string]string
		test    string // "" for none
		presets []string
		note    string
	}{
		{name: "go", files: map[string]string{"go.mod": "module x\n"}, test: "go test ./...", presets: []string{"type-check", "format"}},
		{name: "npm with a test script", files: map[string]string{"package.json": `{"scripts": {"test": "jest"}}`}, test: "npm test"},
		{name: "npm with a test script and TypeScript", files: map[string]string{"package.json": `{"scripts": {"test": "vitest"}}`, "tsconfig.json": "{}", "eslint.config.js": ""}, test: "npm test", presets: []string{"type-check", "lint"}},
		{name: "npm without a test script", files: map[string]string{"package.json": `{"scripts": {"build": "tsc"}}`}, note: `package.json has no "test" script`},
		{name: "npm with npm init's placeholder", files: map[string]string{"package.json": `{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}`}, note: "npm's placeholder"},
		{name: "pyproject.toml", files: map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n"}, test: "pytest"},
		{name: "pyproject.toml with ruff and mypy", files: map[string]string{"pyproject.toml": "[tool.ruff]\nline-length = 100\n[tool.mypy]\nstrict = true\n"}, test: "pytest", presets: []string{"type-check", "lint"}},
		{name: "setup.cfg", files: map[string]string{"setup.cfg": "[metadata]\n"}, test: "pytest"},
		{name: "pytest.ini", files: map[string]string{"pytest.ini": "[pytest]\n"}, test: "pytest"},
		{name: "cargo", files: map[string]string{"Cargo.toml": "[package]\n"}, test: "cargo test", presets: []string{"type-check", "lint", "format"}},
		{name: "Makefile with a test target", files: map[string]string{"Makefile": "build:\n\tcc x.c\n\ntest: build\n\t./x --self-test\n"}, test: "make test"},
		{name: "Makefile without a test target", files: map[string]string{"Makefile": ".PHONY: test\nTEST := 1\nbuild:\n\techo test: no\n"}, note: "Makefile has no test target"},
		{name: "go.mod comes before a Makefile", files: map[string]string{"go.mod": "module x\n", "Makefile": "test:\n\tmake check\n"}, test: "go test ./...", presets: []string{"type-check", "format"}},
		{name: "npm without a test script falls through to the Makefile", files: map[string]string{"package.json": `{}`, "Makefile": "test:\n\tnode t.js\n"}, test: "make test", note: `package.json has no "test" script`},
		{name: "nothing detected", files: map[string]string{"README": "hi\n"}, note: "no test command detected"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectWith(t, tt.files)
			code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable")
			require.Equal(t, ExitComplete, code, errOut)
			data, err := os.ReadFile(filepath.Join(dir, ".claude", "donegate.json"))
			require.NoError(t, err)
			cfg := parseWritten(t, data)

			want := []string{"plan"}
			if tt.test != "" {
				want = append(want, "test")
			}
			want = append(want, tt.presets...)
			var got []string
			for _, c := range cfg.Checkers {
				got = append(got, c.Type)
			}
			assert.Equal(t, want, got)
			assert.Equal(t, tt.test, gjson.GetBytes(data, `checkers.#(type=="test").command`).Str)
			if tt.note != "" {
				assert.Contains(t, out, tt.note)
			}
		})
	}
}

func TestInitIsOurs(t *testing.T) {
	for _, tt := range []struct {
		command, program string
		want             bool
	}{
		{"stop-hook", "stop-hook", true},
		{"/home/u/go/bin/stop-hook", "stop-hook", true},
		{`"$CLAUDE_PROJECT_DIR"/bin/stop-hook`, "stop-hook", true},
		{`'/opt/my tools/stop-hook'`, "stop-hook", true}, // as init quotes a path with a space
		{`sh "${CLAUDE_PLUGIN_ROOT}/bin/donegate-hook" stop-hook`, "stop-hook", true},
		{`sh "${CLAUDE_PLUGIN_ROOT}/bin/donegate-hook" posttooluse-hook`, "stop-hook", false},
		{"posttooluse-hook", "posttooluse-hook", true},
		{"my-stop-hook", "stop-hook", false},
		{"echo done", "stop-hook", false},
	} {
		t.Run(tt.command, func(t *testing.T) {
			assert.Equal(t, tt.want, isOurs(tt.command, tt.program))
		})
	}
}

// ours is the portable registration init adds, as appended into a file
// indented with two spaces at hooks depth.
const (
	settingsOthers = `{
  "model": "opus",
  "hooks": {
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "echo stop"}]}]
  },
  "permissions": {"allow": ["Bash(ls)"]},
  "env": {"N": 1e3, "U": "\u00e9<>"}
}
`
	settingsOthersMerged = `{
  "model": "opus",
  "hooks": {
    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    "Stop": [
      {"hooks": [{"type": "command", "command": "echo stop"}]},
      {
        "hooks": [
          {
            "type": "command",
            "command": "stop-hook",
            "timeout": 600
          }
        ]
      }
    ],
    "SubagentStop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "stop-hook",
            "timeout": 600
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "StructuredOutput|Bash|Write|Edit|MultiEdit|NotebookEdit",
        "hooks": [
          {
            "type": "command",
            "command": "posttooluse-hook",
            "timeout": 600
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "StructuredOutput|Bash",
        "hooks": [
          {
            "type": "command",
            "command": "posttooluse-hook",
            "timeout": 600
          }
        ]
      },
      {
        "matcher": "Write|Edit|MultiEdit|NotebookEdit",
        "hooks": [
          {
            "type": "command",
            "command": "stop-hook --start",
            "timeout": 600,
            "async": true
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "stop-hook --criteria",
            "timeout": 600
          }
        ]
      }
    ],
    "UserPromptSubmit": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "stop-hook --criteria",
            "timeout": 600
          }
        ]
      }
    ]
  },
  "permissions": {"allow": ["Bash(ls)"]},
  "env": {"N": 1e3, "U": "\u00e9<>"}
}
`
)

func TestInitMergesTheHooks(t *testing.T) {
	example, err := os.ReadFile("../../settings.example.json")
	require.NoError(t, err)
	plugin, err := os.ReadFile("../../plugin/hooks/hooks.json")
	require.NoError(t, err)
	for _, tt := range []struct {
		name     string
		settings string // "" for no file
		want     string // the whole new file; "" for unchanged
		contains []string
	}{
		{name: "other hooks and settings keep their order and text", settings: settingsOthers, want: settingsOthersMerged},
		{name: "ours already, as in settings.example.json", settings: string(example)},
		{name: "ours already, through the plugin's wrapper", settings: string(plugin)},
		{name: "ours already, by absolute path and tab-indented", settings: "{\n\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/stop-hook\"}]}],\n\t\t\"SubagentStop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/stop-hook\"}]}],\n\t\t\"PreToolUse\": [{\"matcher\": \"StructuredOutput|Bash|Write|Edit|MultiEdit|NotebookEdit\", \"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/posttooluse-hook\"}]}],\n\t\t\"PostToolUse\": [{\"matcher\": \"StructuredOutput\", \"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/posttooluse-hook\"}]}, {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/posttooluse-hook\"}]}, {\"matcher\": \"Write|Edit\", \"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/stop-hook --start\", \"async\": true}]}],\n\t\t\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/stop-hook --criteria\"}]}],\n\t\t\"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"/usr/local/bin/stop-hook --criteria --config x.json\"}]}]\n\t}\n}\n"},
		{
			name:     "an install from before the Bash, --start and guard entries: only they are added",
			settings: "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook\", \"timeout\": 600}]}],\n    \"SubagentStop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook\", \"timeout\": 600}]}],\n    \"PreToolUse\": [{\"matcher\": \"StructuredOutput\", \"hooks\": [{\"type\": \"command\", \"command\": \"posttooluse-hook\", \"timeout\": 600}]}],\n    \"PostToolUse\": [{\"matcher\": \"StructuredOutput\", \"hooks\": [{\"type\": \"command\", \"command\": \"posttooluse-hook\", \"timeout\": 600}]}],\n    \"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook --criteria\", \"timeout\": 600}]}],\n    \"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook --criteria\", \"timeout\": 600}]}]\n  }\n}\n",
			want:     "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook\", \"timeout\": 600}]}],\n    \"SubagentStop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook\", \"timeout\": 600}]}],\n    \"PreToolUse\": [\n      {\"matcher\": \"StructuredOutput\", \"hooks\": [{\"type\": \"command\", \"command\": \"posttooluse-hook\", \"timeout\": 600}]},\n      {\n        \"matcher\": \"Bash|Write|Edit|MultiEdit|NotebookEdit\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"posttooluse-hook\",\n            \"timeout\": 600\n          }\n        ]\n      }\n    ],\n    \"PostToolUse\": [\n      {\"matcher\": \"StructuredOutput\", \"hooks\": [{\"type\": \"command\", \"command\": \"posttooluse-hook\", \"timeout\": 600}]},\n      {\n        \"matcher\": \"Bash\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"posttooluse-hook\",\n            \"timeout\": 600\n          }\n        ]\n      },\n      {\n        \"matcher\": \"Write|Edit|MultiEdit|NotebookEdit\",\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"stop-hook --start\",\n            \"timeout\": 600,\n            \"async\": true\n          }\n        ]\n      }\n    ],\n    \"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook --criteria\", \"timeout\": 600}]}],\n    \"UserPromptSubmit\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook --criteria\", \"timeout\": 600}]}]\n  }\n}\n",
		},
		{
			name:     "the four of an install from before --criteria: the criteria and the Bash entry are added",
			settings: "{\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook\", \"timeout\": 600}]}],\n    \"SubagentStop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook\", \"timeout\": 600}]}],\n    \"PreToolUse\": [{\"matcher\": \"StructuredOutput\", \"hooks\": [{\"type\": \"command\", \"command\": \"posttooluse-hook\", \"timeout\": 600}]}],\n    \"PostToolUse\": [{\"matcher\": \"StructuredOutput\", \"hooks\": [{\"type\": \"command\", \"command\": \"posttooluse-hook\", \"timeout\": 600}]}]\n  }\n}\n",
			contains: []string{"\"PostToolUse\": [\n      {\"matcher\": \"StructuredOutput\", \"hooks\": [{\"type\": \"command\", \"command\": \"posttooluse-hook\", \"timeout\": 600}]},\n      {\n        \"matcher\": \"Bash\",", "\"SessionStart\": [\n      {\n        \"hooks\": [\n          {\n            \"type\": \"command\",\n            \"command\": \"stop-hook --criteria\","},
		},
		{
			name:     "stop-hook without --criteria at SessionStart is not the criteria, nor --criteria at Stop the gate",
			settings: `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "stop-hook"}]}], "Stop": [{"hooks": [{"type": "command", "command": "stop-hook --criteria"}]}]}}`,
			contains: []string{`"command": "stop-hook"}]},`, `"command": "stop-hook --criteria"}]},`},
		},
		{
			name:     "Stop only: the other three are added, Stop is not doubled, tabs kept",
			settings: "{\n\t\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook\", \"timeout\": 600}]}]}\n}\n",
			contains: []string{"\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"stop-hook\", \"timeout\": 600}]}],\n\t\t\"SubagentStop\": [\n\t\t\t{\n"},
		},
		{
			name:     "a hooks key holding other events only",
			settings: `{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "date"}]}]}}`,
			contains: []string{"\"Notification\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"date\"}]}],\n    \"Stop\": [\n"},
		},
		{
			name:     "entries of odd shapes are skipped, not refused",
			settings: `{"hooks": {"Stop": [1, {"hooks": "x"}, {"hooks": [null, {"command": 3}]}]}}`,
			contains: []string{`"Stop": [`, `1,`, `{"hooks": "x"}`, `"command": "stop-hook"`},
		},
		{
			name:     "an empty event list and another PreToolUse matcher",
			settings: `{"hooks": {"Stop": [], "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]}}`,
			contains: []string{"\"Stop\": [\n      {\n", "\"PreToolUse\": [\n      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard.sh\"}]},\n      {\n        \"matcher\": \"StructuredOutput|Bash|Write|Edit|MultiEdit|NotebookEdit\","},
		},
		// One group runs posttooluse-hook after StructuredOutput and Bash:
		// VS Code, which ignores matchers, runs each group.
		{name: "no settings file", contains: []string{"{\n  \"hooks\": {\n    \"Stop\": [\n", "\"PostToolUse\": [\n      {\n        \"matcher\": \"StructuredOutput|Bash\",\n"}},
		{name: "an empty settings file", settings: "\n", contains: []string{"{\n  \"hooks\": {\n    \"Stop\": [\n"}},
		{name: "an empty object", settings: "{}", contains: []string{"{\n  \"hooks\": {\n    \"Stop\": [\n"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{}
			if tt.settings != "" {
				files[".claude/settings.json"] = tt.settings
			}
			dir := projectWith(t, files)
			code, _, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable")
			require.Equal(t, ExitComplete, code, errOut)
			path := filepath.Join(dir, ".claude", "settings.json")
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			require.True(t, json.Valid(got), "%s", got)

			if tt.want == "" && tt.contains == nil {
				assert.Equal(t, tt.settings, string(got), "unchanged")
				assert.NoFileExists(t, backupPath(path), "nothing changed, nothing backed up")
				return
			}
			if tt.want != "" {
				assert.Equal(t, tt.want, string(got))
			}
			for _, s := range tt.contains {
				assert.Contains(t, string(got), s)
			}
			for _, reg := range registrations {
				n := 0
				for _, g := range gjson.GetBytes(got, "hooks."+reg.event).Array() {
					for _, h := range g.Get("hooks").Array() {
						if h.Get("command").Str == regCommand(reg.program, reg.flags) && selects(g.Get("matcher").Str, reg.matcher) {
							n++
							assert.Equal(t, int64(hookTimeout), h.Get("timeout").Int())
						}
					}
				}
				assert.Equal(t, 1, n, "%s registered once", reg.event)
			}
			if tt.settings != "" {
				bak, err := os.ReadFile(backupPath(path))
				require.NoError(t, err)
				assert.Equal(t, tt.settings, string(bak), "the backup is the old file")
			} else {
				assert.NoFileExists(t, backupPath(path))
			}

			// A second init changes nothing.
			before := snapshot(t, dir)
			code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable")
			require.Equal(t, ExitComplete, code, errOut)
			assert.Equal(t, before, snapshot(t, dir))
			assert.Contains(t, out, "registered already")
		})
	}
}

func TestInitRefusesSettingsItCannotEdit(t *testing.T) {
	for _, tt := range []struct {
		name, settings, want string
	}{
		{"a comment", "{\n  // mine\n  \"model\": \"opus\"\n}\n", "not valid JSON: line 2, column 3"},
		{"a trailing comma", "{\"model\": \"opus\",}", "not valid JSON: line 1, column 18"},
		{"two documents", "{} {}", "not valid JSON"},
		{"an array", "[]", "the top level is an array, not an object"},
		{"hooks a string", `{"hooks": "stop-hook"}`, `"hooks" is a string, not an object`},
		{"an event an object", `{"hooks": {"PreToolUse": {"matcher": "x"}}}`, `"hooks.PreToolUse" is an object, not an array`},
		{"too deep", strings.Repeat("[", 600) + strings.Repeat("]", 600), "nested deeper than 512 levels"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectWith(t, map[string]string{"go.mod": "module x\n", ".claude/settings.json": tt.settings})
			before := snapshot(t, dir)
			code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable")
			assert.Equal(t, ExitUsage, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, "closer init: .claude/settings.json: "+tt.want)
			assert.Contains(t, errOut, "left as it is")
			assert.Equal(t, before, snapshot(t, dir), "nothing written, not even the config")
		})
	}
}

func TestInitHookCommands(t *testing.T) {
	tmp := t.TempDir()
	onPath := hookBins(t, filepath.Join(tmp, "on path"))
	beside := hookBins(t, filepath.Join(tmp, "beside"))
	empty := filepath.Join(tmp, "empty")
	require.NoError(t, os.MkdirAll(empty, 0o755))
	list := string(os.PathListSeparator)
	for _, tt := range []struct {
		name      string
		closerDir string
		path      string
		absolute  bool
		want      string // stop-hook's command
		wantNote  string
		wantErr   string
	}{
		{name: "--absolute: beside closer first", closerDir: beside, path: onPath, absolute: true,
			want: bySystem(filepath.Join(beside, "stop-hook"), filepath.ToSlash(fakeExe(filepath.Join(beside, "stop-hook"))))},
		// On Windows with / for \: Git Bash reads \ as an escape.
		{name: "--absolute: else on PATH, quoted for sh", closerDir: empty, path: "relative/dir" + list + onPath, absolute: true,
			want:     "'" + bySystem(filepath.Join(onPath, "stop-hook"), filepath.ToSlash(fakeExe(filepath.Join(onPath, "stop-hook")))) + "'",
			wantNote: bySystem("", "quoted as Git Bash (Claude Code's hook shell on Windows) reads it; cmd.exe and PowerShell read a quoted path their own ways")},
		// The default suits a committed file: bare names (issue 20).
		{name: "bare names by default", closerDir: beside, path: onPath, want: "stop-hook"},
		{name: "bare names need no binaries, but say so", closerDir: empty, path: "", want: "stop-hook",
			wantNote: "Note: stop-hook is not on PATH: Claude Code runs the hooks by name, so install the binaries (or run init --absolute"},
		{name: "bare names, binaries beside closer only", closerDir: beside, path: "", want: "stop-hook",
			wantNote: "Note: stop-hook is not on PATH: Claude Code runs the hooks by name, so put " + filepath.ToSlash(beside) + " on PATH"},
		{name: "--absolute, nowhere: refused", closerDir: empty, path: empty + list + "bin", absolute: true, wantErr: "stop-hook not found (looked beside closer in " + filepath.ToSlash(empty) + " and on PATH); install the binaries"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			exe := executable
			t.Cleanup(func() { executable = exe })
			executable = func() (string, error) { return filepath.Join(tt.closerDir, "closer"), nil }

			dir := t.TempDir()
			args := []string{"--dir", dir}
			if tt.absolute {
				args = append(args, "--absolute")
			}
			code, out, errOut := initRun(t, t.TempDir(), tt.path, args...)
			if tt.wantNote != "" {
				assert.Contains(t, out, tt.wantNote)
			} else {
				assert.NotContains(t, out, "Note: stop-hook")
			}
			if tt.wantErr != "" {
				assert.Equal(t, ExitUsage, code)
				assert.Contains(t, errOut, tt.wantErr)
				assert.Empty(t, snapshot(t, dir), "nothing written")
				return
			}
			require.Equal(t, ExitComplete, code, errOut)
			got, err := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, gjson.GetBytes(got, "hooks.Stop.0.hooks.0.command").Str)
			assert.Equal(t, strings.Replace(tt.want, "stop-hook", "posttooluse-hook", 1), gjson.GetBytes(got, "hooks.PreToolUse.0.hooks.0.command").Str)
		})
	}
}

func TestInitShellQuote(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/usr/local/bin/stop-hook", "/usr/local/bin/stop-hook"},
		{"/home/a b/stop-hook", "'/home/a b/stop-hook'"},
		{"/home/it's/stop-hook", `'/home/it'\''s/stop-hook'`},
		{"/x/$HOME/stop-hook", "'/x/$HOME/stop-hook'"},
	} {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, cli.ShellQuote(tt.in))
		})
	}
}

func TestInitUserWritesTheUsersSettings(t *testing.T) {
	home := t.TempDir()
	dir := projectWith(t, map[string]string{"Cargo.toml": "[package]\n"})
	code, _, errOut := initRun(t, home, "", "--dir", dir, "--portable", "--user")
	require.Equal(t, ExitComplete, code, errOut)
	got, err := os.ReadFile(filepath.Join(home, ".claude", "settings.json"))
	require.NoError(t, err)
	assert.Equal(t, "stop-hook", gjson.GetBytes(got, "hooks.Stop.0.hooks.0.command").Str)
	assert.NoFileExists(t, filepath.Join(dir, ".claude", "settings.json"))
	assert.FileExists(t, filepath.Join(dir, ".claude", "donegate.json"), "the config is the project's")
}

func TestInitDryRunWritesNothing(t *testing.T) {
	dir := projectWith(t, map[string]string{"go.mod": "module x\n", ".claude/settings.json": settingsOthers})
	before := snapshot(t, dir)
	code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable", "--dry-run")
	require.Equal(t, ExitComplete, code, errOut)
	assert.Equal(t, before, snapshot(t, dir))
	for _, s := range []string{
		"--- /dev/null\n+++ b/.claude/donegate.json\n@@ -0,0 +1,9 @@\n+{\n",
		"+    {\"type\": \"test\", \"command\": \"go test ./...\"},\n",
		"--- a/.claude/settings.json\n+++ b/.claude/settings.json\n",
		"-    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo stop\"}]}]\n+    \"Stop\": [\n",
		"Dry run: nothing written.\n",
	} {
		assert.Contains(t, out, s)
	}
	assert.NotContains(t, out, "-  \"model\"", "unchanged lines are context")
}

// A file outside DIR (the user's settings) is named by its absolute path
// in the diff's headers, without the a/ and b/ of a project's relative
// ones: not "b//home/...".
func TestInitDryRunNamesAFileOutsideTheProjectByItsPath(t *testing.T) {
	home := t.TempDir()
	dir := projectWith(t, map[string]string{"go.mod": "module x\n"})
	code, out, errOut := initRun(t, home, "", "--dir", dir, "--portable", "--user", "--dry-run")
	require.Equal(t, ExitComplete, code, errOut)
	settings := filepath.Join(home, ".claude", "settings.json")
	assert.Contains(t, out, "--- /dev/null\n+++ "+filepath.ToSlash(settings)+"\n")
	assert.Contains(t, out, "+++ b/.claude/donegate.json\n", "a file in the project keeps b/")
	assert.NoFileExists(t, settings)
}

func TestInitKeepsAnExistingConfigUnlessForced(t *testing.T) {
	const mine = `{"checkers": [{"type": "files", "paths": ["x"]}]}`
	for _, tt := range []struct {
		name  string
		force bool
	}{
		{"kept", false},
		{"replaced with --force", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectWith(t, map[string]string{"go.mod": "module x\n", ".claude/donegate.json": mine})
			args := []string{"--dir", dir, "--portable"}
			if tt.force {
				args = append(args, "--force")
			}
			code, out, errOut := initRun(t, t.TempDir(), "", args...)
			require.Equal(t, ExitComplete, code, errOut)
			path := filepath.Join(dir, ".claude", "donegate.json")
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			if !tt.force {
				assert.Equal(t, mine, string(got))
				assert.Contains(t, out, ".claude/donegate.json exists: left as it is")
				assert.NoFileExists(t, backupPath(path))
				return
			}
			assert.Equal(t, "go test ./...", gjson.GetBytes(got, `checkers.#(type=="test").command`).Str)
			bak, err := os.ReadFile(backupPath(path))
			require.NoError(t, err)
			assert.Equal(t, mine, string(bak))
		})
	}
}

func TestInitJSON(t *testing.T) {
	dir := projectWith(t, map[string]string{"go.mod": "module x\n", ".claude/settings.json": "{}\n"})
	code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable", "--json")
	require.Equal(t, ExitComplete, code, errOut)
	var rep InitReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, "go test ./...", rep.Test)
	assert.Equal(t, "go.mod", rep.TestFrom)
	assert.Equal(t, []string{"type-check", "format"}, rep.Presets)
	sort.Slice(rep.Files, func(i, j int) bool { return rep.Files[i].Path < rep.Files[j].Path })
	assert.Equal(t, []InitFile{
		{Path: filepath.FromSlash(".claude/donegate.json"), Action: "created"},
		{Path: filepath.FromSlash(".claude/settings.json"), Action: "updated", Backup: filepath.FromSlash(".claude/donegate.bak/settings.json")},
	}, rep.Files)
}

func TestInitRefusesConfigFlag(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--config", "x.json")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "closer init: --config: init writes DIR/.claude/donegate.json")
	assert.Empty(t, snapshot(t, dir))
}

func TestInitWritesThroughASymlinkAndKeepsTheMode(t *testing.T) {
	home := t.TempDir()
	dotfiles := filepath.Join(t.TempDir(), "settings.json")
	require.NoError(t, os.WriteFile(dotfiles, []byte("{}\n"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".claude"), 0o755))
	link := filepath.Join(home, ".claude", "settings.json")
	linktest.Symlink(t, dotfiles, link)

	code, _, errOut := initRun(t, home, "", "--dir", t.TempDir(), "--portable", "--user")
	require.Equal(t, ExitComplete, code, errOut)
	target, err := os.Readlink(link)
	require.NoError(t, err, "still a link")
	assert.Equal(t, dotfiles, target)
	st, err := os.Stat(dotfiles)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	data, err := os.ReadFile(dotfiles)
	require.NoError(t, err)
	assert.True(t, gjson.GetBytes(data, "hooks.Stop").Exists())
}

// TestInitNoHooks: with the plugin, which registers the hooks itself,
// --no-hooks writes the config and leaves every settings file alone, and
// needs no hook binaries (the plugin brings its own).
func TestInitNoHooks(t *testing.T) {
	home := t.TempDir()
	dir := projectWith(t, map[string]string{"go.mod": "module x\n", ".claude/settings.json": settingsOthers})
	code, out, errOut := initRun(t, home, "", "--dir", dir, "--no-hooks")
	require.Equal(t, ExitComplete, code, errOut)
	got, err := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
	require.NoError(t, err)
	assert.Equal(t, settingsOthers, string(got), "the settings are left as they are")
	assert.NoFileExists(t, backupPath(filepath.Join(dir, ".claude", "settings.json")))
	assert.NoDirExists(t, filepath.Join(home, ".claude"))
	parseWritten(t, mustRead(t, filepath.Join(dir, ".claude", "donegate.json")))
	assert.Contains(t, out, "no hooks registered")
	assert.NotContains(t, out, "Hooks:")

	for _, extra := range []string{"--user", "--portable"} {
		code, _, errOut = initRun(t, home, "", "--dir", dir, "--no-hooks", extra)
		assert.Equal(t, ExitUsage, code, extra)
		assert.Contains(t, errOut, "--no-hooks registers no hooks", extra)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// The README's `closer init` example is what closer init prints in a
// fresh Go project, Claude Code installed and the hooks on PATH (issue
// 29: the example had lost its first line once).
func TestReadmeInitExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(readme), "   $ closer init\n")
	require.True(t, ok, "the README shows closer init")
	block, _, ok = strings.Cut(block, "   ```")
	require.True(t, ok)
	var want []string
	for _, line := range strings.Split(strings.TrimRight(block, "\n"), "\n") {
		want = append(want, strings.TrimPrefix(line, "   "))
	}

	bin := hookBins(t, filepath.Join(t.TempDir(), "bin"))
	writeExecutable(t, filepath.Join(bin, "claude"), "")
	dir := projectWith(t, map[string]string{"go.mod": "module x\n\ngo 1.22\n"})
	home := t.TempDir()
	code, out, errOut := initRun(t, home, bin, "--dir", dir)
	require.Equal(t, ExitComplete, code, errOut)
	for _, h := range []string{home + string(filepath.Separator), filepath.ToSlash(home) + "/"} {
		out = strings.ReplaceAll(out, h, "~/")
	}
	assert.Equal(t, strings.Join(want, "\n"), strings.TrimRight(out, "\n"))
}

// selects reports whether a group's matcher, a list of tool names joined
// by "|", names every tool of want's ("" only by "").
func selects(matcher, want string) bool {
	if want == "" {
		return matcher == ""
	}
	for _, tool := range strings.Split(want, "|") {
		if !slices.Contains(strings.Split(matcher, "|"), tool) {
			return false
		}
	}
	return true
}

// TestInitNoTestNoteOnlyForItsOwnConfig: "the config has the plan checker
// only" speaks of the config init writes: not said when init keeps the
// project's own (issue 45: it was said, then "exists: left as it is").
func TestInitNoTestNoteOnlyForItsOwnConfig(t *testing.T) {
	const noTest = "the config has the plan checker only"
	dir := projectWith(t, map[string]string{".claude/donegate.json": `{"checkers": [{"type": "test", "command": "sh check.sh"}]}`})
	code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir)
	require.Equal(t, ExitComplete, code, errOut)
	assert.NotContains(t, out, noTest)
	assert.Contains(t, out, "exists: left as it is")

	dir = projectWith(t, map[string]string{})
	code, out, errOut = initRun(t, t.TempDir(), "", "--dir", dir)
	require.Equal(t, ExitComplete, code, errOut)
	assert.Contains(t, out, noTest)
}
