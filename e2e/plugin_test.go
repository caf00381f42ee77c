//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/fakeapi"
)

// The plugin: plugin/ in the repository, built into a directory by
// scripts/build-plugin (what make plugin and the release archives do).

const pluginVersion = "0.0.0-e2e"

var (
	pluginOnce sync.Once
	pluginDirs map[bool]string // with binaries or not -> dir
	pluginErr  error
)

// builtPlugin builds the plugin twice per test run, with and without its
// binaries, under a path with spaces: the hook commands must quote
// ${CLAUDE_PLUGIN_ROOT}.
func builtPlugin(t *testing.T, withBinaries bool) string {
	t.Helper()
	pluginOnce.Do(func() {
		var root string
		root, pluginErr = os.MkdirTemp("", "donegate-e2e-plugin-")
		if pluginErr != nil {
			return
		}
		pluginDirs = map[bool]string{
			true:  filepath.Join(root, "my plugins", "donegate"),
			false: filepath.Join(root, "from the marketplace", "donegate"),
		}
		for with, dir := range pluginDirs {
			args := []string{dir, pluginVersion}
			if !with {
				args = append([]string{"--no-binaries"}, args...)
			}
			cmd := exec.Command(filepath.Join(repoRoot(t), "scripts", "build-plugin"), args...)
			if out, err := cmd.CombinedOutput(); err != nil {
				pluginErr = &buildError{err: err, out: string(out)}
				return
			}
		}
	})
	require.NoError(t, pluginErr)
	return pluginDirs[withBinaries]
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "scripts/build-plugin: " + e.err.Error() + "\n" + e.out }

// systemPath is the test's PATH less every directory that holds a
// donegate binary, so that a plugin's hooks can only run the binaries it
// carries.
func systemPath(t *testing.T) string {
	t.Helper()
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" || hasDonegate(dir) {
			continue
		}
		keep = append(keep, dir)
	}
	require.NotEmpty(t, keep, "PATH has no directory without donegate's binaries")
	return strings.Join(keep, string(filepath.ListSeparator))
}

func hasDonegate(dir string) bool {
	for _, name := range []string{"stop-hook", "posttooluse-hook"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// usePlugin loads the plugin with --plugin-dir and nothing else: no
// settings file, no donegate binary on PATH.
func (s *session) usePlugin(dir string) {
	s.Args = append(s.Args, "--plugin-dir", dir)
	s.Env = append(s.Env, "PATH="+systemPath(s.t))
}

// The plugin, loaded by the real CLI with no other setup, holds the agent
// at Stop until its plan is done.
func TestPluginHoldsTheAgent(t *testing.T) {
	api := fakeapi.New(
		loadTools("TaskCreate", "TaskUpdate"),
		fakeapi.Call("TaskCreate", map[string]any{"subject": "Write tests", "description": "Write the tests"}),
		fakeapi.Call("TaskCreate", map[string]any{"subject": "Implement feature", "description": "Implement it"}),
		fakeapi.Call("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}),
		fakeapi.Say("I am done."),
		fakeapi.Call("TaskUpdate", map[string]any{"taskId": "2", "status": "completed"}),
		fakeapi.Say("Now all done."),
	)
	s := newSession(t, api)
	s.Env = append(s.Env, taskTools...)
	s.usePlugin(builtPlugin(t, true))
	r := s.run("Build the feature")

	assert.Contains(t, mainTurn(t, api, 5), "Stop hook feedback:\nYou have 1 incomplete task(s) out of 2. "+planAdvice+"Implement feature")
	assert.NotContains(t, mainTurn(t, api, 4), "Stop hook feedback")
	assertEnded(t, api, r, "Now all done.", 7)
}

// The plugin's PreToolUse registration gates StructuredOutput: the early
// call is denied with what is left, the later one is the result.
func TestPluginGatesStructuredOutput(t *testing.T) {
	api := fakeapi.New(
		loadTools("TaskCreate", "TaskUpdate"),
		fakeapi.Call("TaskCreate", map[string]any{"subject": "Write tests", "description": "Write the tests"}),
		fakeapi.Call("StructuredOutput", map[string]any{"name": "early"}),
		fakeapi.Call("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}),
		fakeapi.Call("StructuredOutput", map[string]any{"name": "final"}),
	)
	s := newSession(t, api)
	s.Env = append(s.Env, taskTools...)
	s.Args = []string{"--json-schema", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`}
	s.usePlugin(builtPlugin(t, true))
	r := s.run("Name it")

	assert.Contains(t, mainTurn(t, api, 3), "PreToolUse:StructuredOutput hook error: ")
	assert.Contains(t, mainTurn(t, api, 3), "You have 1 incomplete task(s) out of 1. "+planAdvice+"Write tests")
	assert.Equal(t, 1, strings.Count(mainTurn(t, api, 4), "hook error"), "the final call is not denied")
	assert.JSONEq(t, `{"name":"final"}`, string(r.StructuredOutput))
	assert.False(t, api.Exhausted())
}

// A plugin installed from the marketplace carries no binaries. With none
// on PATH either its hook fails without blocking: the agent stops with its
// plan open, exactly as if donegate were not there, and the CLI ends
// normally.
func TestPluginWithoutBinariesLetsTheAgentStop(t *testing.T) {
	api := fakeapi.New(
		loadTools("TaskCreate"),
		fakeapi.Call("TaskCreate", map[string]any{"subject": "Write tests", "description": "Write the tests"}),
		fakeapi.Say("I am done."),
		fakeapi.Say("Never reached."),
	)
	s := newSession(t, api)
	s.Env = append(s.Env, taskTools...)
	s.usePlugin(builtPlugin(t, false))
	s.Args = append(s.Args, "--debug")
	r := s.run("Build the feature")

	assertEnded(t, api, r, "I am done.", 3)
	for _, req := range api.Of("main") {
		assert.NotContains(t, req.LastUserText(), "donegate", "nothing of the failed hook reaches the model")
	}
	// The hook did run, and its one line is in the debug log.
	debug, err := os.ReadFile(filepath.Join(s.Home, ".claude", "debug", r.SessionID+".txt"))
	require.NoError(t, err)
	assert.Contains(t, string(debug), "/bin/donegate-hook\" stop-hook] (plugin donegate@inline) finished with status 1")
	assert.Contains(t, string(debug), "donegate: stop-hook is not installed (not in ")
	assert.Contains(t, string(debug), "install the binaries with: CGO_ENABLED=0 go install github.com/donegate/donegate/cmd/...@latest")
}

// pluginValidation is the part of `claude plugin validate --json` that
// the tests read.
type pluginValidation struct {
	Success  bool `json:"success"`
	Manifest struct {
		Type     string            `json:"type"`
		Errors   []json.RawMessage `json:"errors"`
		Warnings []json.RawMessage `json:"warnings"`
	} `json:"manifest"`
	Provides struct {
		Hooks []struct {
			Event   string `json:"event"`
			Matcher string `json:"matcher"`
			Command string `json:"command"`
		} `json:"hooks"`
	} `json:"provides"`
	Directory struct {
		Findings []struct {
			Code     string `json:"code"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
		} `json:"findings"`
	} `json:"directory"`
}

// validate runs `claude plugin validate --strict --json PATH`.
func validate(t *testing.T, path string) pluginValidation {
	t.Helper()
	cmd := exec.Command(claudeBinary(t), "plugin", "validate", "--strict", "--json", path)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, err, "claude plugin validate --strict %s\nstdout: %s\nstderr: %s", path, stdout.String(), stderr.String())
	var v pluginValidation
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &v), stdout.String())
	return v
}

// The built plugin (what make plugin and the release archives hold) and
// the plugin/ source a marketplace install reads both pass the real CLI's
// strict validation with no warning, and register the hooks through the
// wrapper. The one plugin-directory finding left, a missing icon, is
// about a catalog listing, not the plugin (see the README's plugin section).
func TestPluginValidates(t *testing.T) {
	wrapper := `sh "${CLAUDE_PLUGIN_ROOT}/bin/donegate-hook" `
	want := []string{
		"PostToolUse StructuredOutput " + wrapper + "posttooluse-hook",
		"PreToolUse StructuredOutput " + wrapper + "posttooluse-hook",
		"SessionStart  " + wrapper + "stop-hook --criteria",
		"Stop  " + wrapper + "stop-hook",
		"SubagentStop  " + wrapper + "stop-hook",
		"UserPromptSubmit  " + wrapper + "stop-hook --criteria",
	}
	for name, dir := range map[string]string{
		"built":  builtPlugin(t, true),
		"source": filepath.Join(repoRoot(t), "plugin"),
	} {
		t.Run(name, func(t *testing.T) {
			v := validate(t, dir)
			assert.True(t, v.Success)
			assert.Equal(t, "plugin", v.Manifest.Type)
			assert.Empty(t, v.Manifest.Errors)
			assert.Empty(t, v.Manifest.Warnings)
			var hooks []string
			for _, h := range v.Provides.Hooks {
				hooks = append(hooks, h.Event+" "+h.Matcher+" "+h.Command)
			}
			sort.Strings(hooks)
			assert.Equal(t, want, hooks)
			for _, f := range v.Directory.Findings {
				assert.Equal(t, "ICON_MISSING", f.Code, "an unexplained plugin directory finding: %s", f.Message)
			}
		})
	}
	t.Run("marketplace", func(t *testing.T) {
		v := validate(t, repoRoot(t))
		assert.True(t, v.Success)
		assert.Equal(t, "marketplace", v.Manifest.Type)
		assert.Empty(t, v.Manifest.Errors)
		assert.Empty(t, v.Manifest.Warnings)
	})
}

// The marketplace entry names the plugin in plugin/ and agrees with its
// manifest; the built manifest differs from the source only by the
// stamped version, which the binaries print too.
func TestPluginManifestsAgree(t *testing.T) {
	root := repoRoot(t)
	var market struct {
		Name    string `json:"name"`
		Plugins []struct {
			Name    string `json:"name"`
			Source  string `json:"source"`
			Version string `json:"version"`
			License string `json:"license"`
		} `json:"plugins"`
	}
	readJSON(t, filepath.Join(root, ".claude-plugin", "marketplace.json"), &market)
	var source, built map[string]any
	readJSON(t, filepath.Join(root, "plugin", ".claude-plugin", "plugin.json"), &source)
	dir := builtPlugin(t, true)
	readJSON(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), &built)

	require.Len(t, market.Plugins, 1)
	p := market.Plugins[0]
	assert.Equal(t, "donegate", p.Name)
	assert.Equal(t, source["name"], p.Name)
	assert.Equal(t, source["version"], p.Version, "bump both versions together")
	assert.Equal(t, source["license"], p.License)
	assert.Equal(t, "./plugin", p.Source)
	assert.FileExists(t, filepath.Join(root, "plugin", ".claude-plugin", "plugin.json"))

	assert.Equal(t, pluginVersion, built["version"])
	source["version"] = pluginVersion
	assert.Equal(t, source, built)
	for _, name := range []string{"stop-hook", "posttooluse-hook"} {
		out, err := exec.Command(filepath.Join(dir, "bin", name), "--version").Output()
		require.NoError(t, err, name)
		assert.Equal(t, name+" "+pluginVersion+"\n", string(out))
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, v), path)
}

// The wrapper behind every hook command, run exactly as hooks.json says
// (through sh -c, with ${CLAUDE_PLUGIN_ROOT} a path with spaces) against
// stand-in binaries: the plugin's own bin/ first, else PATH, else one
// stderr line and exit 1 — never 2, which would make Claude Code keep the
// agent going with that line as the reason.
func TestPluginWrapperFallbacks(t *testing.T) {
	var hooks struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	readJSON(t, filepath.Join(repoRoot(t), "plugin", "hooks", "hooks.json"), &hooks)
	binaryFor := map[string]string{"Stop": "stop-hook", "SubagentStop": "stop-hook", "PreToolUse": "posttooluse-hook", "PostToolUse": "posttooluse-hook",
		"SessionStart": "stop-hook", "UserPromptSubmit": "stop-hook"}
	flagsFor := map[string]string{"SessionStart": "--criteria", "UserPromptSubmit": "--criteria"}
	require.Len(t, hooks.Hooks, len(binaryFor))

	// fake writes a stand-in for a hook binary that names itself, its
	// arguments and its stdin.
	fake := func(t *testing.T, path, who string, mode os.FileMode) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		script := "#!/bin/sh\necho \"" + who + " $(basename \"$0\") $*\"\ncat\n"
		require.NoError(t, os.WriteFile(path, []byte(script), mode))
	}
	tests := []struct {
		name       string
		inPlugin   os.FileMode // 0: absent
		wrapper    os.FileMode // 0: 0755
		onPath     bool
		wantStdout string // with %s for the binary's name
		wantCode   int
	}{
		{name: "plugin bin first", inPlugin: 0o755, onPath: true, wantStdout: "plugin %s \n{\"event\":1}"},
		{name: "PATH when the plugin has none", onPath: true, wantStdout: "path %s \n{\"event\":1}"},
		{name: "PATH when the plugin's is not executable", inPlugin: 0o644, onPath: true, wantStdout: "path %s \n{\"event\":1}"},
		{name: "plugin bin alone", inPlugin: 0o755, wantStdout: "plugin %s \n{\"event\":1}"},
		{name: "wrapper that lost its executable bit", inPlugin: 0o755, wrapper: 0o644, wantStdout: "plugin %s \n{\"event\":1}"},
		{name: "neither", wantCode: 1},
	}
	for event, entries := range hooks.Hooks {
		require.Len(t, entries, 1, event)
		require.Len(t, entries[0].Hooks, 1, event)
		h := entries[0].Hooks[0]
		name := binaryFor[event]
		require.NotEmpty(t, name, "unexpected event %s", event)
		assert.Equal(t, "command", h.Type)
		assert.Equal(t, 600, h.Timeout, "as settings.example.json")
		if name == "posttooluse-hook" {
			assert.Equal(t, "StructuredOutput", entries[0].Matcher, event)
		}
		for _, tt := range tests {
			t.Run(event+"/"+tt.name, func(t *testing.T) {
				root := filepath.Join(t.TempDir(), "a plugin's root")
				require.NoError(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
				wrapper, err := os.ReadFile(filepath.Join(repoRoot(t), "plugin", "bin", "donegate-hook"))
				require.NoError(t, err)
				mode := tt.wrapper
				if mode == 0 {
					mode = 0o755
				}
				require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "donegate-hook"), wrapper, mode))
				if tt.inPlugin != 0 {
					fake(t, filepath.Join(root, "bin", name), "plugin", tt.inPlugin)
				}
				pathDir := filepath.Join(t.TempDir(), "on path")
				require.NoError(t, os.MkdirAll(pathDir, 0o755))
				if tt.onPath {
					fake(t, filepath.Join(pathDir, name), "path", 0o755)
				}
				cmd := exec.Command("/bin/sh", "-c", h.Command)
				cmd.Env = []string{"CLAUDE_PLUGIN_ROOT=" + root, "PATH=" + pathDir + ":" + systemPath(t)}
				cmd.Stdin = strings.NewReader(`{"event":1}`)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err = cmd.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else {
					require.NoError(t, err)
				}
				assert.Equal(t, tt.wantCode, code, "stderr: %s", stderr.String())
				if tt.wantCode == 0 {
					// The stand-in echoes its name and arguments.
					assert.Equal(t, strings.Replace(tt.wantStdout, "%s ", name+" "+flagsFor[event], 1), stdout.String())
					assert.Empty(t, stderr.String())
					return
				}
				assert.Empty(t, stdout.String(), "no answer: Claude Code lets the agent stop")
				line := stderr.String()
				assert.Equal(t, 1, strings.Count(line, "\n"), "one stderr line: %q", line)
				assert.True(t, strings.HasSuffix(line, "\n"))
				assert.Contains(t, line, "donegate: "+name+" is not installed")
				assert.Contains(t, line, "go install github.com/donegate/donegate/cmd/...@latest")
			})
		}
	}
}

// The wrapper passes flags through and refuses a hook name it does not
// know with one stderr line and exit 1.
func TestPluginWrapperArguments(t *testing.T) {
	root := t.TempDir()
	wrapper := filepath.Join(repoRoot(t), "plugin", "bin", "donegate-hook")
	fakeBin := filepath.Join(root, "stop-hook")
	require.NoError(t, os.WriteFile(fakeBin, []byte("#!/bin/sh\nprintf '[%s]' \"$@\"\n"), 0o755))
	// A copy beside the stand-in, as the plugin's bin/ holds them.
	data, err := os.ReadFile(wrapper)
	require.NoError(t, err)
	local := filepath.Join(root, "donegate-hook")
	require.NoError(t, os.WriteFile(local, data, 0o755))

	out, err := exec.Command(local, "stop-hook", "--config", "a b.json", "--dialect", "sdk").Output()
	require.NoError(t, err)
	assert.Equal(t, "[--config][a b.json][--dialect][sdk]", string(out))

	for _, args := range [][]string{{}, {"bogus"}, {"closer"}} {
		cmd := exec.Command(local, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "%v", args)
		assert.Equal(t, 1, ee.ExitCode(), "%v", args)
		assert.Empty(t, stdout.String())
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "%q", stderr.String())
		assert.Contains(t, stderr.String(), "use stop-hook or posttooluse-hook")
	}
}
