//go:build e2e && !windows

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// The plugin: plugin/ in the repository, built into a directory by
// scripts/build-plugin (what make plugin and the release archives do).

const pluginVersion = "0.0.0-e2e"

var (
	pluginOnce sync.Once
	pluginDirs map[bool]string // with binaries or not -> dir
	pluginErr  error
)

// builtPlugin builds the plugin with its binaries, as make plugin and the
// release archives hold it, or, withBinaries false, lays out a copy of
// plugin/ as a marketplace install reads it (no binaries), once per test
// run each, under a path with spaces: the hook commands must quote
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
		cmd := exec.Command(filepath.Join(repoRoot(t), "scripts", "build-plugin"), pluginDirs[true], pluginVersion)
		if out, err := cmd.CombinedOutput(); err != nil {
			pluginErr = &buildError{err: err, out: string(out)}
			return
		}
		if pluginErr = os.MkdirAll(filepath.Dir(pluginDirs[false]), 0o755); pluginErr != nil {
			return
		}
		cmd = exec.Command("cp", "-R", filepath.Join(repoRoot(t), "plugin"), pluginDirs[false])
		if out, err := cmd.CombinedOutput(); err != nil {
			pluginErr = &buildError{err: fmt.Errorf("cp -R plugin: %w", err), out: string(out)}
		}
	})
	require.NoError(t, pluginErr)
	return pluginDirs[withBinaries]
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

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
	t.Parallel()
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

	assert.Contains(t, mainTurn(t, api, 5), heldWith+"You have 1 incomplete task(s) out of 2. "+planAdvice+"Implement feature")
	assert.NotContains(t, mainTurn(t, api, 4), heldBy)
	assertEnded(t, api, r, "Now all done.", 7)
}

// The plugin's PreToolUse registration gates StructuredOutput: the early
// call is denied with what is left, the later one is the result.
func TestPluginGatesStructuredOutput(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// A plugin with its binaries (a release archive's) whose bin/stop-hook is
// not a binary: a saved HTML error page, or an empty file. Claude Code
// spawns it with no shell (exec form), the spawn fails, and the hook is a
// non-blocking error: the agent stops, nothing reaches the model. Through
// the shell wrapper the page was run by sh, whose syntax error exited 2,
// and Claude Code kept the agent going with the shell's error as the
// reason.
func TestPluginBrokenBinaryLetsTheAgentStop(t *testing.T) {
	t.Parallel()
	for name, content := range map[string]string{
		"HTML page": "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body><h1>Not Found</h1></body></html>\n",
		"empty":     "",
	} {
		t.Run(name, func(t *testing.T) {
			api := fakeapi.New(
				loadTools("TaskCreate"),
				fakeapi.Call("TaskCreate", map[string]any{"subject": "Write tests", "description": "Write the tests"}),
				fakeapi.Say("I am done."),
				fakeapi.Say("Never reached."),
			)
			dir := filepath.Join(t.TempDir(), "a broken plugin")
			out, err := exec.Command("cp", "-R", builtPlugin(t, true), dir).CombinedOutput()
			require.NoError(t, err, string(out))
			stopHook := filepath.Join(dir, "bin", "stop-hook")
			require.NoError(t, os.Remove(stopHook))
			require.NoError(t, os.WriteFile(stopHook, []byte(content), 0o755))

			s := newSession(t, api)
			s.Env = append(s.Env, taskTools...)
			s.usePlugin(dir)
			s.Args = append(s.Args, "--debug")
			r := s.run("Build the feature")

			assertEnded(t, api, r, "I am done.", 3)
			for _, req := range api.Of("main") {
				assert.NotContains(t, req.LastUserText(), "hook feedback", "nothing of the failed hook reaches the model")
				assert.NotContains(t, req.LastUserText(), "Syntax error")
			}
			debug, err := os.ReadFile(filepath.Join(s.Home, ".claude", "debug", r.SessionID+".txt"))
			require.NoError(t, err)
			assert.Contains(t, string(debug), "Hook Stop (Stop) error: status code 1")
			assert.Contains(t, string(debug), "ENOEXEC")
		})
	}
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
			Event   string   `json:"event"`
			Matcher string   `json:"matcher"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
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

// hookFile is a plugin's hooks/hooks.json.
type hookFile struct {
	Hooks map[string][]struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Args    []string `json:"args"`
			Timeout int      `json:"timeout"`
			Async   bool     `json:"async"`
		} `json:"hooks"`
	} `json:"hooks"`
}

// registrations reads dir's hooks.json as "EVENT MATCHER BINARY FLAGS
// TIMEOUT [async]" lines, sorted, from either form: the source's shell commands,
// which end in the wrapper with the binary's name and flags, or the built
// plugin's exec form, the binary in "command" and its flags in "args".
func registrations(t *testing.T, dir string) []string {
	t.Helper()
	var hooks hookFile
	readJSON(t, filepath.Join(dir, "hooks", "hooks.json"), &hooks)
	const wrapper = `; exec sh "${CLAUDE_PLUGIN_ROOT}/bin/donegate-hook" `
	var regs []string
	for event, entries := range hooks.Hooks {
		for _, e := range entries {
			for _, h := range e.Hooks {
				assert.Equal(t, "command", h.Type)
				var binaryAndFlags string
				if h.Args != nil {
					binary, ok := strings.CutPrefix(h.Command, "${CLAUDE_PLUGIN_ROOT}/bin/")
					assert.True(t, ok, "exec form names a binary in the plugin: %s", h.Command)
					binaryAndFlags = strings.Join(append([]string{binary}, h.Args...), " ")
				} else {
					i := strings.LastIndex(h.Command, wrapper)
					require.GreaterOrEqual(t, i, 0, "a shell command ends in the wrapper: %s", h.Command)
					binaryAndFlags = h.Command[i+len(wrapper):]
				}
				reg := fmt.Sprintf("%s %q %s %d", event, e.Matcher, binaryAndFlags, h.Timeout)
				if h.Async {
					reg += " async"
				}
				regs = append(regs, reg)
			}
		}
	}
	sort.Strings(regs)
	return regs
}

// The built plugin (what make plugin and the release archives hold, its
// hooks in exec form) and the plugin/ source a marketplace install reads
// (shell commands) both pass the real CLI's strict validation with no
// warning, register exactly what their hooks.json holds, and register the
// same hooks. The one plugin-directory finding left, a missing icon, is
// about a catalog listing, not the plugin (see the README's plugin section).
func TestPluginValidates(t *testing.T) {
	t.Parallel()
	built, source := builtPlugin(t, true), filepath.Join(repoRoot(t), "plugin")
	assert.Equal(t, []string{
		`PostToolUse "StructuredOutput|Bash" posttooluse-hook 600`,
		`PostToolUse "Write|Edit|MultiEdit|NotebookEdit" stop-hook --start 600 async`,
		`PreToolUse "StructuredOutput|Bash|Write|Edit|MultiEdit|NotebookEdit" posttooluse-hook 600`,
		`SessionStart "" stop-hook --criteria 600`,
		`Stop "" stop-hook 600`,
		`SubagentStop "" stop-hook 600`,
		`UserPromptSubmit "" stop-hook --criteria 600`,
	}, registrations(t, source))
	assert.Equal(t, registrations(t, source), registrations(t, built))
	for name, dir := range map[string]string{"built": built, "source": source} {
		t.Run(name, func(t *testing.T) {
			var want []string
			var hooks hookFile
			readJSON(t, filepath.Join(dir, "hooks", "hooks.json"), &hooks)
			for event, entries := range hooks.Hooks {
				for _, e := range entries {
					for _, h := range e.Hooks {
						want = append(want, fmt.Sprintf("%s %s %s %q", event, e.Matcher, h.Command, h.Args))
					}
				}
			}
			sort.Strings(want)
			v := validate(t, dir)
			assert.True(t, v.Success)
			assert.Equal(t, "plugin", v.Manifest.Type)
			assert.Empty(t, v.Manifest.Errors)
			assert.Empty(t, v.Manifest.Warnings)
			var got []string
			for _, h := range v.Provides.Hooks {
				got = append(got, fmt.Sprintf("%s %s %s %q", h.Event, h.Matcher, h.Command, h.Args))
			}
			sort.Strings(got)
			assert.Equal(t, want, got)
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
	t.Parallel()
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

var (
	standInOnce sync.Once
	standInPath string
	standInErr  error
)

// standIn builds testdata/standin once per test run: an ELF that stands
// in for a hook binary in a plugin's bin/.
func standIn(t *testing.T) string {
	t.Helper()
	standInOnce.Do(func() {
		var dir string
		dir, standInErr = os.MkdirTemp("", "donegate-e2e-standin-")
		if standInErr != nil {
			return
		}
		standInPath = filepath.Join(dir, "standin")
		cmd := exec.Command("go", "build", "-o", standInPath, "./e2e/testdata/standin")
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			standInErr = &buildError{err: fmt.Errorf("go build ./e2e/testdata/standin: %w", err), out: string(out)}
		}
	})
	require.NoError(t, standInErr)
	return standInPath
}

// A file in a plugin's bin/ under a hook's name, as a test lays it out.
type pluginFile string

const (
	absent    pluginFile = ""
	elf       pluginFile = "the stand-in ELF, 0755"
	elfNoExec pluginFile = "the stand-in ELF, 0644"
	html      pluginFile = "a saved HTML error page, 0755"
	empty     pluginFile = "an empty file, 0755"
	script    pluginFile = "a shell script, 0755"
	machO     pluginFile = "a Mach-O header, 0755"
	windowsPE pluginFile = "a Windows binary's header, as NAME.exe, 0755"
	directory pluginFile = "a directory"
	fifo      pluginFile = "a FIFO"
	devNull   pluginFile = "a link to /dev/null"
)

// writePluginFile puts kind at path.
func writePluginFile(t *testing.T, path string, kind pluginFile) {
	t.Helper()
	write := func(data []byte, mode os.FileMode) {
		require.NoError(t, os.WriteFile(path, data, mode))
		require.NoError(t, os.Chmod(path, mode))
	}
	switch kind {
	case absent:
	case elf, elfNoExec:
		data, err := os.ReadFile(standIn(t))
		require.NoError(t, err)
		write(data, map[pluginFile]os.FileMode{elf: 0o755, elfNoExec: 0o644}[kind])
	case html:
		// What a download of a release URL that failed saves: it has no
		// #! line, so the shell that exec fails on runs it as a script,
		// and the first `<` is a syntax error: exit 2.
		write([]byte("<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head>\n<body><h1>Not Found</h1></body></html>\n"), 0o755)
	case empty:
		write(nil, 0o755)
	case script:
		write([]byte("#!/bin/sh\necho script ran\nexit 2\n"), 0o755)
	case machO:
		// A 64-bit Mach-O's magic number, as GOOS=darwin builds begin.
		write([]byte("\xcf\xfa\xed\xfe\x0c\x00\x00\x01\x00\x00\x00\x00\x02\x00\x00\x00\n"), 0o755)
	case windowsPE:
		// A PE file's "MZ" header, under the name Windows gives it:
		// Claude Code runs the plugin's hooks through Git Bash there.
		require.NoError(t, os.WriteFile(path+".exe", []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00\n"), 0o755))
	case directory:
		require.NoError(t, os.Mkdir(path, 0o755))
	case fifo:
		require.NoError(t, syscall.Mkfifo(path, 0o755))
	case devNull:
		require.NoError(t, os.Symlink("/dev/null", path))
	default:
		t.Fatalf("unknown plugin file %q", kind)
	}
}

// The commands hooks.json holds, run exactly as Claude Code runs them
// (through sh -c, with ${CLAUDE_PLUGIN_ROOT} a path with spaces) against
// every kind of file in the plugin's bin/: the plugin's own binary first,
// else PATH, else one stderr line and exit 1 — never 2, which would make
// Claude Code keep the agent going with that line as the reason. A file
// that is not a binary is never run: the shell would run it as a script.
func TestPluginWrapperFallbacks(t *testing.T) {
	t.Parallel()
	var hooks struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
				Async   bool   `json:"async"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	readJSON(t, filepath.Join(repoRoot(t), "plugin", "hooks", "hooks.json"), &hooks)
	binaryFor := map[string]string{"Stop": "stop-hook", "SubagentStop": "stop-hook", "PreToolUse": "posttooluse-hook", "PostToolUse": "posttooluse-hook",
		"SessionStart": "stop-hook", "UserPromptSubmit": "stop-hook"}
	flagsFor := map[string]string{"SessionStart": " [--criteria]", "UserPromptSubmit": " [--criteria]"}
	require.Len(t, hooks.Hooks, len(binaryFor))

	// onPath writes a stand-in on PATH: a script, for the binary on PATH
	// is the user's own, run as a settings.json hook would run it.
	onPath := func(t *testing.T, path string) {
		script := "#!/bin/sh\nprintf 'path %s' \"$(basename \"$0\")\"\nfor a; do printf ' [%s]' \"$a\"; done\necho\ncat\n"
		require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	}
	const notBinary = " is not an executable ELF, Mach-O or Windows binary, not on PATH)"
	tests := []struct {
		name     string
		inPlugin pluginFile
		wrapper  os.FileMode // 0: 0755
		onPath   bool
		wantWho  string // "plugin" or "path": who answered, exit 0
		wantCode int
		wantLine string // in the one stderr line
	}{
		{name: "plugin bin first", inPlugin: elf, onPath: true, wantWho: "plugin"},
		{name: "PATH when the plugin has none", onPath: true, wantWho: "path"},
		{name: "PATH when the plugin's is not executable", inPlugin: elfNoExec, onPath: true, wantWho: "path"},
		{name: "plugin bin alone", inPlugin: elf, wantWho: "plugin"},
		{name: "wrapper that lost its executable bit", inPlugin: elfNoExec, wrapper: 0o644, onPath: true, wantWho: "path"},
		{name: "PATH when the plugin's is an HTML page", inPlugin: html, onPath: true, wantWho: "path"},
		{name: "PATH when the plugin's is a script", inPlugin: script, onPath: true, wantWho: "path"},
		{name: "neither", wantCode: 1, wantLine: "(not in "},
		{name: "an HTML page, nothing on PATH", inPlugin: html, wantCode: 1, wantLine: notBinary},
		{name: "an empty file, nothing on PATH", inPlugin: empty, wantCode: 1, wantLine: notBinary},
		{name: "a script, nothing on PATH", inPlugin: script, wantCode: 1, wantLine: notBinary},
		{name: "a directory, nothing on PATH", inPlugin: directory, wantCode: 1, wantLine: notBinary},
		{name: "a FIFO, nothing on PATH", inPlugin: fifo, wantCode: 1, wantLine: notBinary},
		{name: "a link to /dev/null, nothing on PATH", inPlugin: devNull, wantCode: 1, wantLine: notBinary},
		{name: "a non-executable binary, nothing on PATH", inPlugin: elfNoExec, wantCode: 1, wantLine: notBinary},
		// A Mach-O is run (on macOS); here the kernel refuses it, and the
		// shell says so with 126, a non-blocking error. It is not read as
		// a script: that would be a syntax error, exit 2.
		{name: "a Mach-O on Linux", inPlugin: machO, onPath: true, wantCode: 126, wantLine: "Exec format error"},
		// So is a Windows NAME.exe, through the wrapper (on Windows Git
		// Bash's test -f finds NAME for NAME.exe, and the wrapper runs it).
		{name: "a Windows binary on Linux", inPlugin: windowsPE, wantCode: 126, wantLine: "Exec format error"},
	}
	for event, entries := range hooks.Hooks {
		name := binaryFor[event]
		require.NotEmpty(t, name, "unexpected event %s", event)
		if event == "PostToolUse" {
			// The gate's entry, which is the one of the agent's own runs
			// too; the early start of the stop's checks, after the edits,
			// in the background: stop-hook's (see below).
			require.Len(t, entries, 2, event)
			assert.Equal(t, "StructuredOutput|Bash", entries[0].Matcher, event)
			assert.Equal(t, "Write|Edit|MultiEdit|NotebookEdit", entries[1].Matcher, event)
			require.Len(t, entries[1].Hooks, 1, event)
			assert.True(t, entries[1].Hooks[0].Async, event)
			assert.Equal(t, hooks.Hooks["SessionStart"][0].Hooks[0].Command, strings.ReplaceAll(entries[1].Hooks[0].Command, "--start", "--criteria"), "the same command as the criteria's, with --start")
		} else {
			require.Len(t, entries, 1, event)
		}
		require.Len(t, entries[0].Hooks, 1, event)
		h := entries[0].Hooks[0]
		assert.Equal(t, "command", h.Type)
		assert.Equal(t, 600, h.Timeout, "as settings.example.json")
		if name == "posttooluse-hook" {
			assert.Contains(t, strings.Split(entries[0].Matcher, "|"), "StructuredOutput", event)
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
				require.NoError(t, os.Chmod(filepath.Join(root, "bin", "donegate-hook"), mode))
				writePluginFile(t, filepath.Join(root, "bin", name), tt.inPlugin)
				pathDir := filepath.Join(t.TempDir(), "on path")
				require.NoError(t, os.MkdirAll(pathDir, 0o755))
				if tt.onPath {
					onPath(t, filepath.Join(pathDir, name))
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
					// The stand-in echoes who it is, its name and arguments.
					assert.Equal(t, tt.wantWho+" "+name+flagsFor[event]+"\n{\"event\":1}", stdout.String())
					assert.Empty(t, stderr.String())
					return
				}
				assert.Empty(t, stdout.String(), "no answer: Claude Code lets the agent stop")
				line := stderr.String()
				assert.Equal(t, 1, strings.Count(line, "\n"), "one stderr line: %q", line)
				assert.True(t, strings.HasSuffix(line, "\n"))
				assert.Contains(t, line, tt.wantLine)
				if tt.wantCode == 1 {
					assert.Contains(t, line, "donegate: "+name+" is not installed")
					assert.Contains(t, line, "go install github.com/donegate/donegate/cmd/...@latest")
				}
			})
		}
	}
}

// The wrapper passes flags through and refuses a hook name it does not
// know with one stderr line and exit 1.
func TestPluginWrapperArguments(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	wrapper := filepath.Join(repoRoot(t), "plugin", "bin", "donegate-hook")
	writePluginFile(t, filepath.Join(root, "stop-hook"), elf)
	// A copy beside the stand-in, as the plugin's bin/ holds them.
	data, err := os.ReadFile(wrapper)
	require.NoError(t, err)
	local := filepath.Join(root, "donegate-hook")
	require.NoError(t, os.WriteFile(local, data, 0o755))

	out, err := exec.Command(local, "stop-hook", "--config", "a b.json", "--dialect", "sdk").Output()
	require.NoError(t, err)
	assert.Equal(t, "plugin stop-hook [--config] [a b.json] [--dialect] [sdk]\n", string(out))

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
