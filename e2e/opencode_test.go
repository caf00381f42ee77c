//go:build e2e && !windows

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// The real OpenCode (scripts/install-opencode, 1.18.33) and the real Kilo
// CLI (scripts/install-kilo, 7.7.7), an OpenCode fork, held by donegate's
// OpenCode plugin, offline against the Responses API stand-in: a custom
// provider in opencode.json or kilo.json (@ai-sdk/openai, baseURL on
// 127.0.0.1), models.dev and updates off, a throwaway HOME, and for
// OpenCode the plugin's dependency pre-installed where it would install
// it at each start (Kilo's install of @kilocode/plugin fails offline, and
// it goes on without).

// pluginHost is a host that loads donegate's OpenCode plugin.
type pluginHost struct {
	name           string // as hookio and closer init name it
	envVar, script string // where its pinned client is
	configFile     string // the project's config, with the offline provider
	projectDir     string // where it loads the project's plugins from
	env            []string
	runArgs        []string       // before the prompt of `<client> run`
	config         map[string]any // more of its config file
	// limit bounds a run: a Kilo run took 25 s alone here, 65 s with
	// the machine's 2 cores loaded three times over, and over 2 minutes
	// in make test beside the other clients under the race detector.
	limit time.Duration
	// pluginDeps: the client installs its plugin package into every
	// config dir at each start unless it is there.
	pluginDeps bool
}

var (
	openCodeHost = pluginHost{name: "opencode", envVar: "DONEGATE_OPENCODE", script: "install-opencode", configFile: "opencode.json", projectDir: ".opencode",
		env: []string{"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1"}, pluginDeps: true, limit: 2 * time.Minute}
	// Kilo asks the person before a shell or edit call: `kilo run`
	// refuses such calls without --auto, and `kilo serve` waits for an
	// answer, which the config gives. Its indexing took 12 s of each
	// start here; its telemetry (PostHog) is off.
	kiloHost = pluginHost{name: "kilo", envVar: "DONEGATE_KILO", script: "install-kilo", configFile: "kilo.json", projectDir: ".kilo",
		env:     []string{"KILO_DISABLE_MODELS_FETCH=1", "KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_CODEBASE_INDEXING=1", "KILO_TELEMETRY_LEVEL=off"},
		runArgs: []string{"--auto"}, config: map[string]any{"permission": map[string]any{"bash": "allow", "edit": "allow"}}, limit: 5 * time.Minute}
	pluginHosts = []pluginHost{openCodeHost, kiloHost}
)

type openCodeSession struct {
	t       *testing.T
	host    pluginHost
	API     *fakeapi.Responses
	Home    string
	Project string
	Events  string // what the plugin sent stop-hook, one file per event
	Running string // one file per stop-hook run not yet ended
	Env     []string
}

func newPluginSession(t *testing.T, h pluginHost, turns ...fakeapi.Turn) *openCodeSession {
	t.Helper()
	s := &openCodeSession{t: t, host: h, Home: t.TempDir(), Project: t.TempDir(), Events: filepath.Join(t.TempDir(), "events"), Running: t.TempDir()}
	s.useAPI(fakeapi.NewResponses(turns...))
	bin := clientPath(t, h.envVar, h.script)
	deps := filepath.Join(filepath.Dir(bin), "..", "..", "..", "plugin-deps")
	// The manifests copied, node_modules linked: a copy of its 64 MB took
	// 4.7 s of system time here, each time; OpenCode only reads it.
	for _, dir := range []string{filepath.Join(s.Home, ".config", "opencode"), filepath.Join(s.Project, ".opencode")} {
		if !h.pluginDeps {
			break
		}
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for _, name := range []string{"package.json", "package-lock.json"} {
			data, err := os.ReadFile(filepath.Join(deps, name))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
		}
		require.NoError(t, os.Symlink(filepath.Join(deps, "node_modules"), filepath.Join(dir, "node_modules")))
	}
	// The plugin as closer init writes it, running stop-hook through the
	// recorder: DONEGATE_STOP_HOOK names one executable. Each run is
	// marked in s.Running until it ends: the plugin runs the hook in its
	// own process group while the session shows idle, and a run that
	// outlives the server still writes to the state dir.
	plugin, err := os.ReadFile(filepath.Join(repoRoot(t), "plugin", "opencode", "donegate.js"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(s.Project, h.projectDir, "plugin"), 0o755))
	require.NoError(t, os.WriteFile(s.plugin(), plugin, 0o644))
	hook := filepath.Join(t.TempDir(), "stop-hook")
	script := "#!/bin/sh\nmark='" + s.Running + "'/$$\n: > \"$mark\"\n" + recorder(t, s.Events) + " " + filepath.Join(hookBinaries(t), "stop-hook") + "\nrc=$?\nrm -f \"$mark\"\nexit $rc\n"
	require.NoError(t, os.WriteFile(hook, []byte(script), 0o755))
	// Registered after the temporary dirs, so run before their removal.
	t.Cleanup(func() { s.waitHooksEnded(2 * time.Minute) })
	s.Env = []string{"DONEGATE_STOP_HOOK=" + hook}
	return s
}

// hooksRunning is how many stop-hook runs have begun and not ended.
func (s *openCodeSession) hooksRunning() int {
	entries, _ := os.ReadDir(s.Running)
	return len(entries)
}

// waitHooksEnded waits up to limit for every stop-hook run to end.
func (s *openCodeSession) waitHooksEnded(limit time.Duration) {
	deadline := time.Now().Add(limit)
	for s.hooksRunning() > 0 {
		if time.Now().After(deadline) {
			s.t.Errorf("%d stop-hook runs still running after %v", s.hooksRunning(), limit)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// plugin is where the project's copy of the plugin is.
func (s *openCodeSession) plugin() string {
	return filepath.Join(s.Project, s.host.projectDir, "plugin", "donegate.js")
}

// config writes the project's .donegate.json (what closer init --host
// opencode writes).
func (s *openCodeSession) config(cfg string) {
	require.NoError(s.t, os.WriteFile(filepath.Join(s.Project, ".donegate.json"), []byte(cfg), 0o644))
}

func (s *openCodeSession) useAPI(api *fakeapi.Responses) {
	s.t.Cleanup(api.Close)
	s.API = api
}

func (s *openCodeSession) stateDir() string { return filepath.Join(s.Home, "donegate-state") }

// configJSON is opencode.json's (kilo.json's) offline provider.
func (s *openCodeSession) configJSON() map[string]any {
	config := map[string]any{
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/openai",
			"options": map[string]any{"baseURL": s.API.URL(), "apiKey": "fake-key-for-tests"},
			"models":  map[string]any{"fake-model": map[string]any{}},
		}},
		"model":             "fake/fake-model",
		"small_model":       "fake/fake-model",
		"enabled_providers": []string{"fake"},
		"autoupdate":        false,
		"share":             "disabled",
	}
	for k, v := range s.host.config {
		config[k] = v
	}
	return config
}

func (s *openCodeSession) run(prompt string) clientRun {
	s.t.Helper()
	bin := clientPath(s.t, s.host.envVar, s.host.script)
	allowProject(s.t, s.Home, s.stateDir(), s.Project)
	writeJSON(s.t, filepath.Join(s.Project, s.host.configFile), s.configJSON())
	args := append(append([]string{"run"}, s.host.runArgs...), prompt)
	return runClient(s.t, s.host.limit, s.Project, s.env(), bin, args...)
}

// env is what OpenCode runs with: a throwaway HOME and XDG dirs, offline.
func (s *openCodeSession) env() []string {
	return append([]string{
		"HOME=" + s.Home,
		"XDG_CONFIG_HOME=" + filepath.Join(s.Home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(s.Home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(s.Home, ".cache"),
		"XDG_STATE_HOME=" + filepath.Join(s.Home, ".local", "state"),
		"DONEGATE_STATE_DIR=" + s.stateDir(),
	}, append(append([]string{}, s.host.env...), s.Env...)...)
}

// told returns what OpenCode told the model before main request i since
// the model last spoke: a hold is a user message holding the reason.
func (s *openCodeSession) told(i int) string {
	s.t.Helper()
	reqs := s.API.Of("main")
	require.Greater(s.t, len(reqs), i, "main requests")
	return fakeapi.ResponsesTail(reqs[i].Body)
}

// openCodeModes are the two ways the plugin holds the agent: `opencode
// run` (the hook runs as the last step finishes) and `opencode serve`,
// which the TUI runs too (the hook runs once the session is idle).
var openCodeModes = []string{"run", "serve"}

// eachPluginHost runs f as subtests host/mode: each host that loads the
// plugin, in each of modes.
func eachPluginHost(t *testing.T, modes []string, f func(t *testing.T, h pluginHost, mode string)) {
	for _, h := range pluginHosts {
		for _, mode := range modes {
			t.Run(h.name+"/"+mode, func(t *testing.T) { f(t, h, mode) })
		}
	}
}

// prompt sends prompt in mode and returns the agent's last message and
// what OpenCode wrote to stderr; stops is how many stops the scenario
// makes (serve waits for them).
func (s *openCodeSession) prompt(mode, prompt string, stops int) (final, stderr string) {
	s.t.Helper()
	if mode == "serve" {
		r := s.serve(prompt, stops)
		return r.Final, r.Stderr
	}
	r := s.run(prompt)
	assert.Equal(s.t, 0, r.ExitCode, "exit code; stderr: %s", r.Stderr)
	return r.Stdout, r.Stderr
}

func (s *openCodeSession) assertEnded(final, want string, mainRequests int) {
	s.t.Helper()
	assert.True(s.t, strings.HasSuffix(strings.TrimSpace(final), want), "the agent's last message is %q; it said: %s", want, final)
	assert.False(s.t, s.API.Exhausted(), "the agent was kept going beyond the script")
	assert.Len(s.t, s.API.Of("main"), mainRequests)
}

// placeholders are what -update-events puts for the run's throwaway
// paths and ids.
func (s *openCodeSession) placeholders(events []clientEvent) []string {
	p := []string{s.Home, "$HOME", s.Project, "/home/user/project"}
	if stops := ofEvent(events, "Stop"); len(stops) > 0 {
		p = append(p, stops[0].str("session_id"), "ses_5f1e2d3c4b5aFakeSessionId01", stops[0].str("prompt_id"), "msg_a0b1c2d3e001FakePromptId0001")
	}
	return p
}

func openCodeTodos(items ...string) fakeapi.Turn {
	var todos []any
	for i := 0; i < len(items); i += 2 {
		todos = append(todos, map[string]any{"content": items[i], "status": items[i+1], "priority": "high"})
	}
	return fakeapi.Call("todowrite", map[string]any{"todos": todos})
}

// (a) An open todo holds the agent; once every todo is done it is let go.
func TestOpenCodeTodosHoldTheAgent(t *testing.T) {
	t.Parallel()
	eachPluginHost(t, openCodeModes, func(t *testing.T, h pluginHost, mode string) {
		s := newPluginSession(t, h,
			openCodeTodos("Write the tests", "completed", "Implement the feature", "in_progress"),
			fakeapi.Say("I am done."),
			openCodeTodos("Write the tests", "completed", "Implement the feature", "completed"),
			fakeapi.Say("Now all done."),
		)
		s.config(`{"checkers":[{"type":"plan"}]}`)
		final, _ := s.prompt(mode, "Build the feature", 2)

		// What came after the agent's "I am done.": the hold alone.
		told := s.told(2)
		_, told, _ = strings.Cut(told, "I am done.")
		assert.Contains(t, told, "You have 1 incomplete task(s) out of 2. ")
		assert.Contains(t, told, "todowrite", "the feedback names the host's plan tool")
		assert.Contains(t, told, "Implement the feature")
		assert.NotContains(t, told, "Write the tests", "only the open todo is named")
		s.assertEnded(final, "Now all done.", 4)

		events := clientEvents(t, s.Events)
		stops := ofEvent(events, "Stop")
		require.Len(t, stops, 2)
		assert.Equal(t, stops[0].str("prompt_id"), stops[1].str("prompt_id"), "one prompt across the continuation")
		assert.Equal(t, mode, stops[0].str(h.name+"_mode"))
		checkFixtures(t, h.name, events, []fixture{
			{mode + "-stop.json", nthEvent("Stop", 0, "stop_hook_active", false)},
			{mode + "-stop-continued.json", nthEvent("Stop", 0, "stop_hook_active", true)},
		}, s.placeholders(events)...)
	})
}

// (b) A failing go test holds the agent; its fix lets it go.
func TestOpenCodeFailingTestHoldsUntilFixed(t *testing.T) {
	t.Parallel()
	eachPluginHost(t, openCodeModes, func(t *testing.T, h pluginHost, mode string) {
		s := newPluginSession(t, h)
		s.Env = append(s.Env, goProject(t, s.Project, s.Home)...)
		s.useAPI(fakeapi.NewResponses(
			fakeapi.Say("Done."),
			fakeapi.Call("bash", map[string]any{"command": "printf '%s' '" + fixedCalc + "' > calc.go", "description": "Fix Add"}),
			fakeapi.Say("Fixed: Add adds."),
		))
		s.config(`{"checkers":[{"type":"test","command":"go test ./..."}]}`)
		final, _ := s.prompt(mode, "Make Add correct", 2)

		told := s.told(1)
		assert.Contains(t, told, goTestFailure)
		assert.Contains(t, told, "Add(2, 3) = -1, want 5")
		s.assertEnded(final, "Fixed: Add adds.", 3)
		data, err := os.ReadFile(filepath.Join(s.Project, "calc.go"))
		require.NoError(t, err)
		assert.Equal(t, fixedCalc, string(data), "the agent's command fixed it")
	})
}

// (c) An agent that never finishes is let go after limits.max_blocks
// continuations: OpenCode has no cap of its own.
func TestOpenCodeNeverFinishingAgentIsLetGoAfterMaxBlocks(t *testing.T) {
	t.Parallel()
	eachPluginHost(t, openCodeModes, func(t *testing.T, h pluginHost, mode string) {
		var turns []fakeapi.Turn
		for i := 0; i < 12; i++ {
			turns = append(turns, fakeapi.Say("Done."))
		}
		s := newPluginSession(t, h, turns...)
		s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":3}}`)
		final, stderr := s.prompt(mode, "Do it", 4)

		for i := 1; i <= 3; i++ {
			assert.Contains(t, s.told(i), "Missing required files: never.txt", "continuation %d", i)
		}
		s.assertEnded(final, "Done.", 4)
		if mode == "run" {
			// opencode serve logs it, and shows it in the TUI.
			assert.Contains(t, stderr, "donegate: still incomplete after 3 continuations; letting the agent stop", "the person is told why the agent was let go")
			// opencode run prints the agent's messages only: each hold
			// is told on stderr (issue 45).
			assert.Equal(t, 3, strings.Count(stderr, "donegate: holding the agent: Missing required files: never.txt"), stderr)
		}
		stops := ofEvent(clientEvents(t, s.Events), "Stop")
		require.Len(t, stops, 4, "three holds, then the agent was let go")
		count := donegateStopCount(t, s.stateDir())
		assert.Equal(t, 3, count.Blocks, "donegate's own count")
		assert.True(t, count.Exhausted)
		assert.Equal(t, stops[0].str("prompt_id"), count.PromptID, "counted per prompt of the person")
	})
}

// (d) closer init --host opencode on a fresh Go project, then a real
// opencode run: the plugin init wrote finds stop-hook on PATH, and the
// project's failing test (the default config detects go test from
// go.mod) holds the agent until it is fixed.
func TestOpenCodeAfterCloserInitHoldsTheAgent(t *testing.T) {
	t.Parallel()
	eachPluginHost(t, []string{"run"}, testAfterCloserInitHoldsTheAgent)
}

func testAfterCloserInitHoldsTheAgent(t *testing.T, h pluginHost, _ string) {
	s := newPluginSession(t, h)
	require.NoError(t, os.Remove(s.plugin()))
	env := goProject(t, s.Project, s.Home)
	s.useAPI(fakeapi.NewResponses(
		fakeapi.Say("Done."),
		fakeapi.Call("bash", map[string]any{"command": "printf '%s' '" + fixedCalc + "' > calc.go", "description": "Fix Add"}),
		fakeapi.Say("Fixed: Add adds."),
	))
	path := closerInit(t, h.name, s.Project, s.Home)
	plugin, err := os.ReadFile(s.plugin())
	require.NoError(t, err, "init wrote the plugin")
	assert.Contains(t, string(plugin), `|| "stop-hook"`, "by name, found on PATH")
	s.Env = append(env, "PATH="+path) // no DONEGATE_STOP_HOOK: the plugin runs stop-hook from PATH
	final, _ := s.prompt("run", "Make Add correct", 2)

	told := s.told(1)
	assert.Contains(t, told, goTestFailure)
	assert.Contains(t, told, "Add(2, 3) = -1, want 5")
	s.assertEnded(final, "Fixed: Add adds.", 3)
}

// served is one prompt to `opencode serve`: the agent's last message,
// and what the server wrote to stderr (its log, the plugin's lines).
type served struct {
	Final  string
	Stderr string
}

// serve starts `opencode serve` on a free port in the project, sends
// prompt to a new session through its HTTP API (prompt_async, as the TUI
// and the SDK do), and waits until stops events reached stop-hook and the
// session stayed idle for a second after the last one: the plugin holds
// the agent by prompting it again once it is idle.
func (s *openCodeSession) serve(prompt string, stops int) served {
	s.t.Helper()
	bin := clientPath(s.t, s.host.envVar, s.host.script)
	allowProject(s.t, s.Home, s.stateDir(), s.Project)
	writeJSON(s.t, filepath.Join(s.Project, s.host.configFile), s.configJSON())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(s.t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(s.t, l.Close())

	ctx, cancel := context.WithTimeout(context.Background(), s.host.limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--hostname", "127.0.0.1", "--port", strconv.Itoa(port), "--print-logs", "--log-level", "WARN")
	cmd.Dir = s.Project
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TMPDIR=" + s.t.TempDir()}, s.env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	// A file, which the server writes and the test reads at any time.
	stderrFile, err := os.Create(filepath.Join(s.t.TempDir(), "serve.stderr"))
	require.NoError(s.t, err)
	defer stderrFile.Close()
	stderr := func() string {
		data, _ := os.ReadFile(stderrFile.Name())
		return string(data)
	}
	cmd.Stdout, cmd.Stderr = io.Discard, stderrFile
	require.NoError(s.t, cmd.Start())
	defer func() {
		// Its whole process group, stop-hook runs included: a server
		// left behind by a manual run here outlived SIGTERM.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()

	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	// A request that reaches 1.18.33 while it starts is never answered
	// (measured): each call gives up after a few seconds and is retried.
	client := &http.Client{Timeout: 5 * time.Second}
	var lastErr error
	call := func(method, path string, body any, out any) int {
		var rd io.Reader
		if body != nil {
			data, _ := json.Marshal(body)
			rd = bytes.NewReader(data)
		}
		req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
		require.NoError(s.t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			lastErr = err
			return 0
		}
		defer resp.Body.Close()
		if out != nil {
			_ = json.NewDecoder(resp.Body).Decode(out)
		}
		return resp.StatusCode
	}
	start := time.Now()
	for call("GET", "/session/status", nil, nil) != http.StatusOK {
		require.NoError(s.t, ctx.Err(), "opencode serve did not answer (%v); stderr: %s", lastErr, stderr())
		time.Sleep(100 * time.Millisecond)
	}
	var sess struct{ ID string }
	require.Equal(s.t, http.StatusOK, call("POST", "/session", map[string]any{}, &sess))
	require.NotEmpty(s.t, sess.ID)
	code := call("POST", "/session/"+sess.ID+"/prompt_async", map[string]any{"parts": []any{map[string]any{"type": "text", "text": prompt}}}, nil)
	require.Contains(s.t, []int{http.StatusOK, http.StatusNoContent}, code)

	idleSince := time.Time{}
	for {
		require.NoError(s.t, ctx.Err(), "the session did not settle; stderr: %s", stderr())
		var status map[string]struct{ Type string }
		call("GET", "/session/status", nil, &status)
		busy := status[sess.ID].Type != "" && status[sess.ID].Type != "idle"
		switch {
		case busy || len(ofEvent(clientEvents(s.t, s.Events), "Stop")) < stops || s.hooksRunning() > 0:
			idleSince = time.Time{}
		case idleSince.IsZero():
			idleSince = time.Now()
		case time.Since(idleSince) > time.Second:
			s.t.Logf("opencode serve: the prompt settled in %v", time.Since(start).Round(time.Millisecond))
			var msgs []struct {
				Info  struct{ Role string }
				Parts []struct{ Type, Text string }
			}
			call("GET", "/session/"+sess.ID+"/message", nil, &msgs)
			var final string
			for _, m := range msgs {
				if m.Info.Role != "assistant" {
					continue
				}
				for _, p := range m.Parts {
					if p.Type == "text" {
						final = p.Text
					}
				}
			}
			return served{Final: final, Stderr: stderr()}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestOpenCodeGuardRefusesTheAgentsCalls: donegate's OpenCode plugin asks
// posttooluse-hook about the agent's bash, write and edit calls before
// they run (tool.execute.before), and the real OpenCode refuses the ones
// it denies: closer release, and a write of the plugin itself. The stop
// after the tries still holds.
func TestOpenCodeGuardRefusesTheAgentsCalls(t *testing.T) {
	t.Parallel()
	eachPluginHost(t, []string{"run"}, testGuardRefusesTheAgentsCalls)
}

func testGuardRefusesTheAgentsCalls(t *testing.T, h pluginHost, _ string) {
	s := newPluginSession(t, h)
	plugin := s.plugin()
	// Another plugin, loaded before donegate's: it would choose the hook
	// (measured: with it in place, neither host held the agent).
	first := filepath.Join(filepath.Dir(plugin), "a.js")
	s.useAPI(fakeapi.NewResponses(
		fakeapi.Call("bash", map[string]any{"command": "echo draft > work.txt", "description": "draft"}),
		fakeapi.Call("bash", map[string]any{"command": closerBinary(t) + " release", "description": "release"}),
		fakeapi.Call("write", map[string]any{"filePath": plugin, "content": "export const X = async () => ({})\n"}),
		fakeapi.Call("write", map[string]any{"filePath": first, "content": "process.env.DONEGATE_STOP_HOOK = '/bin/true'\nexport const A = async () => ({})\n"}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
	))
	s.Env = append(s.Env, "DONEGATE_TOOL_HOOK="+filepath.Join(hookBinaries(t), "posttooluse-hook"))
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	r := s.run("Do it")
	t.Logf("stdout: %s\nstderr: %s", r.Stdout, r.Stderr)

	assert.Contains(t, s.told(2), "donegate refuses this call: `closer release` is the person's command, not yours")
	assert.Contains(t, s.told(3), "This call changes the project's host settings ("+plugin+")")
	assert.Contains(t, s.told(3), "this host cannot ask them here, so donegate refuses it")
	data, err := os.ReadFile(plugin)
	require.NoError(t, err)
	assert.Contains(t, string(data), "DonegatePlugin", "the write was refused")
	assert.Contains(t, s.told(4), "This call writes in a dir the host loads plugins from ("+first+")")
	assert.NoFileExists(t, first, "the write was refused")
	assert.Contains(t, s.told(5), "Missing required files: never.txt", "still held after the tries")
	assert.Contains(t, r.Stderr, "donegate: refused the agent's bash call: donegate refuses this call")
}
