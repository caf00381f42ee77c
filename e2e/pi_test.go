//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// The real pi (scripts/install-pi: @earendil-works/pi-coding-agent 1.6.0
// on Node 22 from the npm registry) held by donegate's extension for pi,
// offline against the chat completions stand-in: a custom provider in
// the throwaway HOME's ~/.pi/agent/models.json, PI_OFFLINE=1, and
// project trust granted the way a person grants it for good
// (defaultProjectTrust in the agent dir's settings): pi loads a project's
// extensions only once the project is trusted.

type piSession struct {
	t       *testing.T
	API     *fakeapi.Chat
	Home    string
	Project string
	Events  string // what the extension sent stop-hook, one file per event
	Env     []string
}

func newPiSession(t *testing.T, turns ...fakeapi.Turn) *piSession {
	t.Helper()
	s := &piSession{t: t, Home: t.TempDir(), Project: t.TempDir(), Events: filepath.Join(t.TempDir(), "events")}
	s.useAPI(fakeapi.NewChat(turns...))
	ext, err := os.ReadFile(filepath.Join(repoRoot(t), "plugin", "pi", "donegate.js"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(s.extension()), 0o755))
	require.NoError(t, os.WriteFile(s.extension(), ext, 0o644))
	hook := filepath.Join(t.TempDir(), "stop-hook")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\nexec "+recorder(t, s.Events)+" "+filepath.Join(hookBinaries(t), "stop-hook")+" \"$@\"\n"), 0o755))
	s.Env = []string{"DONEGATE_STOP_HOOK=" + hook}
	return s
}

func (s *piSession) extension() string {
	return filepath.Join(s.Project, ".pi", "extensions", "donegate.js")
}

func (s *piSession) useAPI(api *fakeapi.Chat) {
	s.t.Cleanup(api.Close)
	s.API = api
}

func (s *piSession) config(cfg string) {
	require.NoError(s.t, os.WriteFile(filepath.Join(s.Project, ".donegate.json"), []byte(cfg), 0o644))
}

func (s *piSession) stateDir() string { return filepath.Join(s.Home, "donegate-state") }

// run runs `pi -p prompt` in the project.
func (s *piSession) run(prompt string) clientRun {
	s.t.Helper()
	bin, env := s.setUp()
	return runClient(s.t, 2*time.Minute, s.Project, env, bin, "-p", "--model", "fake/fake-model", prompt)
}

// setUp writes pi's model and trust settings and the person's consent, as
// a run needs them, and returns pi and its environment.
func (s *piSession) setUp() (bin string, env []string) {
	s.t.Helper()
	bin = clientPath(s.t, "DONEGATE_PI", "install-pi")
	agent := filepath.Join(s.Home, ".pi", "agent")
	writeJSON(s.t, filepath.Join(agent, "models.json"), map[string]any{"providers": map[string]any{"fake": map[string]any{
		"baseUrl": s.API.URL(), "api": "openai-completions", "apiKey": "fake-key-for-tests",
		"models": []any{map[string]any{"id": "fake-model"}},
	}}})
	writeJSON(s.t, filepath.Join(agent, "settings.json"), map[string]any{"defaultProjectTrust": "always"})
	allowProject(s.t, s.Home, s.stateDir(), s.Project)
	return bin, append([]string{"HOME=" + s.Home, "PI_OFFLINE=1", "DONEGATE_STATE_DIR=" + s.stateDir()}, s.Env...)
}

// told returns what pi told the model in main request i since the model
// last spoke: a hold is a user message holding the reason.
func (s *piSession) told(i int) string {
	s.t.Helper()
	reqs := s.API.Of("main")
	require.Greater(s.t, len(reqs), i, "main requests")
	return fakeapi.ChatTail(reqs[i].Body)
}

func (s *piSession) assertEnded(r clientRun, want string, mainRequests int) {
	s.t.Helper()
	assert.Equal(s.t, 0, r.ExitCode, "exit code; stderr: %s", r.Stderr)
	assert.True(s.t, strings.HasSuffix(strings.TrimSpace(r.Stdout), want), "the agent's last message is %q; it said: %s", want, r.Stdout)
	assert.False(s.t, s.API.Exhausted(), "the agent was kept going beyond the script")
	assert.Len(s.t, s.API.Of("main"), mainRequests)
}

// placeholders are what -update-events puts for the run's throwaway
// paths and ids.
func (s *piSession) placeholders(events []clientEvent) []string {
	// pi names a session's dir by its cwd, the slashes dashes.
	encoded := "--" + strings.ReplaceAll(strings.TrimPrefix(s.Project, "/"), "/", "-") + "--"
	p := []string{encoded, "--home-user-project--", s.Home, "$HOME", s.Project, "/home/user/project"}
	if stops := ofEvent(events, "Stop"); len(stops) > 0 {
		p = append(p, stops[0].str("session_id"), "01a22788-cffc-712e-90e2-41bc1d49f0c8", stops[0].str("prompt_id"), "prompt-fake-1")
		if name := filepath.Base(stops[0].str("transcript_path")); name != "." {
			p = append(p, name, "2026-11-29T12-00-00-000Z_01a22788-cffc-712e-90e2-41bc1d49f0c8.jsonl")
		}
	}
	return p
}

// (a) A failing go test holds the agent; its fix lets it go.
func TestPiFailingTestHoldsUntilFixed(t *testing.T) {
	t.Parallel()
	s := newPiSession(t)
	s.Env = append(s.Env, goProject(t, s.Project, s.Home)...)
	s.useAPI(fakeapi.NewChat(
		fakeapi.Say("Done."),
		fakeapi.Call("bash", map[string]any{"command": "printf '%s' '" + fixedCalc + "' > calc.go"}),
		fakeapi.Say("Fixed: Add adds."),
	))
	s.config(`{"checkers":[{"type":"test","command":"go test ./..."}]}`)
	r := s.run("Make Add correct")
	t.Logf("stderr: %s", r.Stderr)

	told := s.told(1)
	assert.Contains(t, told, goTestFailure)
	assert.Contains(t, told, "Add(2, 3) = -1, want 5")
	s.assertEnded(r, "Fixed: Add adds.", 3)
	assert.Contains(t, r.Stderr, "donegate: holding the agent: "+goTestFailure, "pi -p prints the agent's messages only: the hold is told on stderr")
	data, err := os.ReadFile(filepath.Join(s.Project, "calc.go"))
	require.NoError(t, err)
	assert.Equal(t, fixedCalc, string(data), "the agent's command fixed it")

	events := clientEvents(t, s.Events)
	stops := ofEvent(events, "Stop")
	require.Len(t, stops, 2)
	assert.Equal(t, stops[0].str("prompt_id"), stops[1].str("prompt_id"), "one prompt across the continuation")
	assert.Equal(t, "print", stops[0].str("pi_mode"))
	checkFixtures(t, "pi", events, []fixture{
		{"print-stop.json", nthEvent("Stop", 0, "stop_hook_active", false)},
		{"print-stop-continued.json", nthEvent("Stop", 0, "stop_hook_active", true)},
	}, s.placeholders(events)...)
}

// (b) An agent that never finishes is let go after limits.max_blocks
// continuations: pi has no cap of its own, and the extension asks for one
// more request only while stop-hook holds.
func TestPiNeverFinishingAgentIsLetGoAfterMaxBlocks(t *testing.T) {
	t.Parallel()
	var turns []fakeapi.Turn
	for i := 0; i < 12; i++ {
		turns = append(turns, fakeapi.Say("Done."))
	}
	s := newPiSession(t, turns...)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":3}}`)
	r := s.run("Do it")

	for i := 1; i <= 3; i++ {
		assert.Contains(t, s.told(i), "Missing required files: never.txt", "continuation %d", i)
	}
	s.assertEnded(r, "Done.", 4)
	assert.Contains(t, r.Stderr, "donegate: still incomplete after 3 continuations; letting the agent stop", "the person is told why the agent was let go")
	stops := ofEvent(clientEvents(t, s.Events), "Stop")
	require.Len(t, stops, 4, "three holds, then the agent was let go")
	count := donegateStopCount(t, s.stateDir())
	assert.Equal(t, 3, count.Blocks, "donegate's own count")
	assert.True(t, count.Exhausted)
	assert.Equal(t, stops[0].str("prompt_id"), count.PromptID, "counted per prompt of the person")
}

// (c) closer init --host pi on a fresh Go project, then a real pi -p: the
// extension init wrote finds stop-hook on PATH, and the project's failing
// test (the default config detects go test from go.mod) holds the agent
// until it is fixed.
func TestPiAfterCloserInitHoldsTheAgent(t *testing.T) {
	t.Parallel()
	s := newPiSession(t)
	require.NoError(t, os.Remove(s.extension()))
	env := goProject(t, s.Project, s.Home)
	s.useAPI(fakeapi.NewChat(
		fakeapi.Say("Done."),
		fakeapi.Call("bash", map[string]any{"command": "printf '%s' '" + fixedCalc + "' > calc.go"}),
		fakeapi.Say("Fixed: Add adds."),
	))
	path := closerInit(t, "pi", s.Project, s.Home)
	ext, err := os.ReadFile(s.extension())
	require.NoError(t, err, "init wrote the extension")
	assert.Contains(t, string(ext), `|| "stop-hook"`, "by name, found on PATH")
	s.Env = append(env, "PATH="+path)
	r := s.run("Make Add correct")

	assert.Contains(t, s.told(1), goTestFailure)
	s.assertEnded(r, "Fixed: Add adds.", 3)
}

// (d) The extension asks posttooluse-hook about the agent's bash, write
// and edit calls before they run (tool_call), and the real pi blocks the
// ones it denies: closer release, a write of the extension itself and of
// another extension beside it. The stop after the tries still holds.
func TestPiGuardRefusesTheAgentsCalls(t *testing.T) {
	t.Parallel()
	s := newPiSession(t)
	other := filepath.Join(filepath.Dir(s.extension()), "a.js")
	s.useAPI(fakeapi.NewChat(
		fakeapi.Call("bash", map[string]any{"command": "echo draft > work.txt"}),
		fakeapi.Call("bash", map[string]any{"command": closerBinary(t) + " release"}),
		fakeapi.Call("write", map[string]any{"path": s.extension(), "content": "export default function () {}\n"}),
		fakeapi.Call("write", map[string]any{"path": other, "content": "process.env.DONEGATE_STOP_HOOK = '/bin/true'\nexport default function () {}\n"}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
	))
	s.Env = append(s.Env, "DONEGATE_TOOL_HOOK="+filepath.Join(hookBinaries(t), "posttooluse-hook"))
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	r := s.run("Do it")
	t.Logf("stdout: %s\nstderr: %s", r.Stdout, r.Stderr)

	assert.FileExists(t, filepath.Join(s.Project, "work.txt"), "an ordinary call goes on")
	assert.Contains(t, s.told(2), "donegate refuses this call: `closer release` is the person's command, not yours")
	assert.Contains(t, s.told(3), "This call changes the project's host settings ("+s.extension()+")")
	assert.Contains(t, s.told(3), "this host cannot ask them here, so donegate refuses it")
	data, err := os.ReadFile(s.extension())
	require.NoError(t, err)
	assert.Contains(t, string(data), "donegate for pi", "the write was refused")
	assert.Contains(t, s.told(4), "This call writes in a dir the host loads plugins from ("+other+")")
	assert.NoFileExists(t, other, "the write was refused")
	assert.Contains(t, s.told(5), "Missing required files: never.txt", "still held after the tries")
}

// In pi's TUI (tmux) the extension holds the same way: the hold is a
// [donegate] message in the conversation, and the let-go past
// limits.max_blocks a warning on the screen.
func TestPiTUIHoldsTheAgent(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "tmux")
	s := newPiSession(t, fakeapi.Say("Done."), fakeapi.Say("Done again."), fakeapi.Say("Done thrice."))
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	bin, env := s.setUp()
	env = append(env, "PATH="+os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8")
	term := newTerminal(t, "donegate-pi-"+filepath.Base(s.Home), s.Project, env, bin, "--model", "fake/fake-model")
	term.waitFor("the extension loaded", func() bool { return strings.Contains(term.screen(), "donegate.js") })
	term.typeLine("Write never.txt")
	term.waitFor("the let-go", func() bool { return strings.Contains(term.screen(), "letting the agent stop") })

	screen := term.screen()
	assert.Equal(t, 2, strings.Count(screen, "[donegate]"), "two holds shown in the conversation:\n%s", screen)
	assert.Contains(t, screen, "donegate: still incomplete after 2 continuations; letting the agent stop: Missing required files: never.txt")
	stops := ofEvent(clientEvents(t, s.Events), "Stop")
	require.Len(t, stops, 3)
	for i, st := range stops {
		assert.Equal(t, "tui", st.Fields["pi_mode"], "stop %d", i)
	}
	for i := 1; i <= 2; i++ {
		assert.Contains(t, s.told(i), "Missing required files: never.txt", "continuation %d", i)
	}
	assert.Len(t, s.API.Of("main"), 3)
}

// (d) The person's route while the agent works, in pi's TUI (tmux): the
// message "donegate release" typed during a slow command reaches the
// extension at once (pi's input event, a steer from the keyboard), which
// hands it to stop-hook --criteria with the running turn's prompt_id and
// keeps it from the model; the stop that follows is let go unchecked,
// and the log says the person released it.
func TestPiPersonReleasesMidTurnInTheTerminal(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "tmux")
	s := newPiSession(t,
		fakeapi.Call("bash", map[string]any{"command": "sleep 8; echo slow job done > job.txt"}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done again."),
	)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}]}`)
	bin, env := s.setUp()
	env = append(env, "PATH="+os.Getenv("PATH"), "TERM=xterm-256color", "LANG=C.UTF-8")
	term := newTerminal(t, "donegate-pi-release-"+filepath.Base(s.Home), s.Project, env, bin, "--model", "fake/fake-model")
	term.waitFor("the extension loaded", func() bool { return strings.Contains(term.screen(), "donegate.js") })
	term.typeLine("Run the slow job")
	term.waitFor("the slow command", func() bool { return len(s.API.Of("main")) >= 1 && strings.Contains(term.screen(), "sleep 8") })
	time.Sleep(time.Second)
	term.typeLine("donegate release")
	term.waitFor("the run's end", func() bool {
		return len(ofEvent(clientEvents(t, s.Events), "Stop")) >= 1 && strings.Contains(term.screen(), "you released this turn")
	})

	events := clientEvents(t, s.Events)
	prompts := ofEvent(events, "UserPromptSubmit")
	require.Len(t, prompts, 1, "the screen:\n%s", term.screen())
	assert.Equal(t, "donegate release", prompts[0].Fields["prompt"])
	stops := ofEvent(events, "Stop")
	require.Len(t, stops, 1, "let go at its first stop")
	assert.Equal(t, prompts[0].Fields["prompt_id"], stops[0].Fields["prompt_id"], "the running turn's")
	c := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, "DONEGATE_STATE_DIR=" + s.stateDir()}, closerBinary(t), "explain", "--last", "--json")
	var rep struct{ Why string }
	require.NoError(t, json.Unmarshal([]byte(c.Stdout), &rep), c.Stdout+c.Stderr)
	assert.Equal(t, "released by the person (the person's message): not checked", rep.Why, "the screen:\n%s", term.screen())
	assert.Len(t, s.API.Of("main"), 2, "never held, and the phrase never reached the model: the tool call's result, then Done.")
	for _, r := range s.API.Of("main") {
		assert.NotContains(t, fakeapi.ChatTail(r.Body), "donegate release", "the phrase is no message to the model")
	}
}
