//go:build e2e && !windows

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// The real Qwen Code (scripts/install-qwen, 0.24.4) held by donegate,
// offline against the Chat Completions stand-in: `qwen --auth-type openai
// --yolo -p PROMPT` (--yolo: project hooks run without asking, as tools
// do) with OPENAI_BASE_URL, a throwaway HOME, and the project's
// .qwen/settings.json holding the hooks (Claude's shape) and turning the
// todo_write tool on (off by default).

type qwenSession struct {
	t       *testing.T
	API     *fakeapi.Chat
	Home    string
	Project string
	Events  string
	Env     []string
}

func newQwenSession(t *testing.T, turns ...fakeapi.Turn) *qwenSession {
	t.Helper()
	s := &qwenSession{t: t, Home: t.TempDir(), Project: t.TempDir(), Events: filepath.Join(t.TempDir(), "events")}
	s.useAPI(fakeapi.NewChat(turns...))
	// No background memory agent: its requests carry tools too, and it
	// starts after a few turns (measured: in the fourth request of a run).
	writeJSON(t, filepath.Join(s.Home, ".qwen", "settings.json"), map[string]any{
		"memory": map[string]any{"enableManagedAutoMemory": false, "enableManagedAutoDream": false},
	})
	rec := recorder(t, s.Events)
	writeJSON(t, filepath.Join(s.Project, ".qwen", "settings.json"), map[string]any{
		"tools": map[string]any{"todoWrite": map[string]any{"enabled": true}},
		"hooks": claudeShapedHooks(map[string]string{
			"SessionStart":     rec,
			"UserPromptSubmit": rec,
			"Stop":             rec + " " + filepath.Join(hookBinaries(t), "stop-hook"),
		}),
	})
	return s
}

// useAPI points the session at a stand-in (a script that needs the
// project's path is known only once the session exists).
func (s *qwenSession) useAPI(api *fakeapi.Chat) {
	s.t.Cleanup(api.Close)
	s.API = api
}

// config writes the project's host-neutral .donegate.json (what closer
// init --host qwen writes).
func (s *qwenSession) config(cfg string) {
	require.NoError(s.t, os.WriteFile(filepath.Join(s.Project, ".donegate.json"), []byte(cfg), 0o644))
}

func (s *qwenSession) stateDir() string { return filepath.Join(s.Home, "donegate-state") }

// run runs qwen -p: what it printed is the agent's text, every message of
// the run one after the other.
func (s *qwenSession) run(prompt string) clientRun {
	s.t.Helper()
	qwen := clientPath(s.t, "DONEGATE_QWEN", "install-qwen")
	allowProject(s.t, s.Home, s.stateDir(), s.Project)
	env := append([]string{
		"HOME=" + s.Home,
		"OPENAI_BASE_URL=" + s.API.URL(),
		"OPENAI_API_KEY=fake-key-for-tests",
		"OPENAI_MODEL=fake-model",
		// The notice that --yolo runs without a sandbox, on every run.
		"QWEN_CODE_SUPPRESS_YOLO_WARNING=1",
		"DONEGATE_STATE_DIR=" + s.stateDir(),
	}, s.Env...)
	return runClient(s.t, 2*time.Minute, s.Project, env, qwen, "--auth-type", "openai", "--yolo", "-p", prompt)
}

// told returns what Qwen told the model before main request i: the tool
// results and user messages since the model last spoke (a Stop block is a
// user message holding the reason alone).
func (s *qwenSession) told(i int) string {
	s.t.Helper()
	reqs := s.API.Of("main")
	require.Greater(s.t, len(reqs), i, "main requests")
	return fakeapi.ChatTail(reqs[i].Body)
}

func (s *qwenSession) assertEnded(r clientRun, final string, mainRequests int) {
	s.t.Helper()
	assert.Equal(s.t, 0, r.ExitCode, "exit code; stderr: %s", r.Stderr)
	assert.True(s.t, strings.HasSuffix(strings.TrimSpace(r.Stdout), final), "the agent's last message is %q; stdout: %s", final, r.Stdout)
	assert.False(s.t, s.API.Exhausted(), "the agent was kept going beyond the script")
	assert.Len(s.t, s.API.Of("main"), mainRequests)
}

// (d) closer init --host qwen on a fresh project, then a real qwen -p:
// held by the Go project's failing test (the default config detects go
// test from go.mod), let go once it is fixed.
func TestQwenAfterCloserInitHoldsTheAgent(t *testing.T) {
	t.Parallel()
	s := newQwenSession(t)
	require.NoError(t, os.RemoveAll(filepath.Join(s.Project, ".qwen")))
	env := goProject(t, s.Project, s.Home)
	s.useAPI(fakeapi.NewChat(
		fakeapi.Say("Done."),
		fakeapi.Call("run_shell_command", map[string]any{"command": "printf '%s' '" + fixedCalc + "' > calc.go", "is_background": false}),
		fakeapi.Say("Fixed: Add adds."),
	))
	path := closerInit(t, "qwen", s.Project, s.Home)
	s.Env = append(env, "PATH="+path)
	r := s.run("Make Add correct")

	told := s.told(1)
	assert.Contains(t, told, goTestFailure)
	assert.Contains(t, told, "Add(2, 3) = -1, want 5")
	s.assertEnded(r, "Fixed: Add adds.", 3)
}

// stop-hook --criteria at SessionStart and UserPromptSubmit tells the
// agent the criteria once per prompt, though Qwen sends UserPromptSubmit
// again before every request of the turn (after each tool result, after a
// block): each request carries as many copies as the first.
func TestQwenCriteriaAreToldOncePerPrompt(t *testing.T) {
	t.Parallel()
	s := newQwenSession(t,
		fakeapi.Call("run_shell_command", map[string]any{"command": "echo one", "is_background": false}),
		fakeapi.Call("run_shell_command", map[string]any{"command": "echo two", "is_background": false}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done again."),
	)
	bin := filepath.Join(hookBinaries(t), "stop-hook")
	rec := recorder(t, s.Events)
	writeJSON(t, filepath.Join(s.Project, ".qwen", "settings.json"), map[string]any{
		"memory": map[string]any{"enableManagedAutoMemory": false},
		"hooks": claudeShapedHooks(map[string]string{
			"SessionStart":     rec + " " + bin + " --criteria",
			"UserPromptSubmit": rec + " " + bin + " --criteria",
			"Stop":             rec + " " + bin,
		}),
	})
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":1}}`)
	r := s.run("Do it")

	const told = "This session ends when: required files exist: never.txt."
	main := s.API.Of("main")
	require.Len(t, main, 4, "two tool calls, a stop, one continuation")
	first := strings.Count(string(main[0].Body), told)
	assert.Equal(t, 2, first, "told at session start and with the prompt")
	for i, req := range main[1:] {
		assert.Equal(t, first, strings.Count(string(req.Body), told), "request %d", i+1)
	}
	assert.Contains(t, s.told(3), "Missing required files: never.txt")
	s.assertEnded(r, "Done again.", 4)
	assert.Len(t, ofEvent(clientEvents(t, s.Events), "UserPromptSubmit"), 4, "Qwen asked at each request")
}

// placeholders are what -update-events puts for the run's throwaway
// paths and ids: those of hookio's unit tests.
func (s *qwenSession) placeholders(events []clientEvent) []string {
	p := []string{s.Home, "$HOME", s.Project, "/home/user/project",
		strings.ReplaceAll(s.Project, "/", "-"), "-home-user-project"}
	if stops := ofEvent(events, "Stop"); len(stops) > 0 {
		p = append(p, stops[0].str("session_id"), "7c1d0e2a-3b4c-4d5e-8f60-718293a4b5c6")
	}
	return p
}

func qwenTodos(items ...string) fakeapi.Turn {
	var todos []any
	for i := 0; i < len(items); i += 2 {
		todos = append(todos, map[string]any{"id": string(rune('1' + i/2)), "content": items[i], "status": items[i+1]})
	}
	return fakeapi.Call("todo_write", map[string]any{"todos": todos})
}

// (a) An open todo holds the agent; once every todo is done it is let go.
func TestQwenTodosHoldTheAgent(t *testing.T) {
	t.Parallel()
	s := newQwenSession(t,
		qwenTodos("Write the tests", "completed", "Implement the feature", "in_progress"),
		fakeapi.Say("I am done."),
		qwenTodos("Write the tests", "completed", "Implement the feature", "completed"),
		fakeapi.Say("Now all done."),
	)
	s.config(`{"checkers":[{"type":"plan"}]}`)
	r := s.run("Build the feature")

	// The todos are where the fixture says, as the fixture says: checked
	// first, as it does not depend on donegate.
	events := clientEvents(t, s.Events)
	stops := ofEvent(events, "Stop")
	require.NotEmpty(t, stops, "recorded: %s", eventNames(events))
	todos, err := os.ReadFile(filepath.Join(s.Home, ".qwen", "todos", stops[0].str("session_id")+".json"))
	require.NoError(t, err, "the plan lives in the todos file")
	checkJSONFixture(t, filepath.Join("qwen", "todos.json"), todos, s.placeholders(events)...)

	assert.Contains(t, fakeapi.ToolNames(s.API.Of("main")[0].Body), "todo_write", "settings.json turned the todo tool on")
	told := s.told(2)
	assert.Contains(t, told, "You have 1 incomplete task(s) out of 2. ")
	assert.Contains(t, told, "update the plan with todo_write to remove tasks", "the feedback names the host's plan tool")
	assert.True(t, strings.HasSuffix(strings.TrimSuffix(told, "</hook_prompt>"), ": Implement the feature"), told)
	assert.NotContains(t, told, "Write the tests", "only the open todo is named")
	s.assertEnded(r, "Now all done.", 4)

	require.Len(t, stops, 2)
	assert.Equal(t, stops[0].str("prompt_id"), stops[1].str("prompt_id"), "one prompt across the continuation")

}

// (b) A failing go test holds the agent; its fix lets it go.
func TestQwenFailingTestHoldsUntilFixed(t *testing.T) {
	t.Parallel()
	s := newQwenSession(t)
	s.Env = goProject(t, s.Project, s.Home)
	s.useAPI(fakeapi.NewChat(
		fakeapi.Say("Done."),
		// Qwen's write_file refuses to overwrite a file not read first.
		fakeapi.Call("run_shell_command", map[string]any{"command": "printf '%s' '" + fixedCalc + "' > calc.go", "is_background": false}),
		fakeapi.Say("Fixed: Add adds."),
	))
	s.config(`{"checkers":[{"type":"test","command":"go test ./..."}]}`)
	r := s.run("Make Add correct")

	told := s.told(1)
	assert.Contains(t, told, goTestFailure)
	assert.Contains(t, told, "Add(2, 3) = -1, want 5")
	s.assertEnded(r, "Fixed: Add adds.", 3)
	data, err := os.ReadFile(filepath.Join(s.Project, "calc.go"))
	require.NoError(t, err)
	assert.Equal(t, fixedCalc, string(data), "the agent's command fixed it")

	// What Qwen sent is what the fixtures hold.
	events := clientEvents(t, s.Events)
	checkFixtures(t, "qwen", events, []fixture{
		{"sessionstart.json", nthEvent("SessionStart", 0, "", nil)},
		{"userpromptsubmit.json", nthEvent("UserPromptSubmit", 0, "", nil)},
		// Qwen sends UserPromptSubmit again for each request of the turn:
		// with "" after a tool's result, with the reason after a block.
		{"userpromptsubmit-after-tool.json", nthEvent("UserPromptSubmit", 0, "prompt", "")},
		{"userpromptsubmit-after-block.json", afterStop("UserPromptSubmit")},
		{"stop.json", nthEvent("Stop", 0, "stop_hook_active", false)},
		{"stop-continued.json", nthEvent("Stop", 0, "stop_hook_active", true)},
	}, s.placeholders(events)...)
}

// (c) An agent that never finishes is let go after limits.max_blocks
// continuations, by donegate's count (3), below Qwen's own cap (8).
func TestQwenNeverFinishingAgentIsLetGoAfterMaxBlocks(t *testing.T) {
	t.Parallel()
	var turns []fakeapi.Turn
	for i := 0; i < 12; i++ {
		turns = append(turns, fakeapi.Say("Done."))
	}
	s := newQwenSession(t, turns...)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":3}}`)
	r := s.run("Do it")

	for i := 1; i <= 3; i++ {
		assert.Contains(t, s.told(i), "Missing required files: never.txt", "continuation %d", i)
	}
	s.assertEnded(r, "Done.", 4)
	stops := ofEvent(clientEvents(t, s.Events), "Stop")
	require.Len(t, stops, 4, "three blocks, then the agent was let go")
	count := donegateStopCount(t, s.stateDir())
	assert.Equal(t, 3, count.Blocks, "donegate's own count")
	assert.True(t, count.Exhausted)
	assert.Equal(t, stops[0].str("prompt_id"), count.PromptID, "counted per Qwen prompt")
}

// TestQwenGuardRefusesTheAgentsCalls: with the hooks closer init --host
// qwen registers, the real Qwen Code's agent tries to loosen its gate
// through its tools: closer release through run_shell_command (denied by
// the guard before it runs: closer never starts), and a write_file of the
// project's .qwen/settings.json, where donegate's hooks are (asked of the
// person: a denial in qwen -p). Both are refused, the reasons reach the
// model, and the stop after the tries still holds.
func TestQwenGuardRefusesTheAgentsCalls(t *testing.T) {
	t.Parallel()
	s := newQwenSession(t)
	require.NoError(t, os.RemoveAll(filepath.Join(s.Project, ".qwen")))
	settings := filepath.Join(s.Project, ".qwen", "settings.json")
	s.useAPI(fakeapi.NewChat(
		fakeapi.Say("Done."),
		fakeapi.Call("run_shell_command", map[string]any{"command": closerBinary(t) + " release", "is_background": false}),
		fakeapi.Call("write_file", map[string]any{"file_path": settings, "content": "{}"}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
	))
	path := closerInit(t, "qwen", s.Project, s.Home)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	s.Env = append(s.Env, "PATH="+path)
	r := s.run("Do it")
	require.Equal(t, 0, r.ExitCode, r.Stderr)

	assert.Contains(t, s.told(1), "Missing required files: never.txt")
	assert.Contains(t, s.told(2), "donegate refuses this call: `closer release` is the person's command, not yours")
	assert.Contains(t, s.told(3), "This call changes the project's host settings ("+settings+")")
	// Qwen adds its own "$version" to the file: donegate's hooks stay.
	after, err := os.ReadFile(settings)
	require.NoError(t, err)
	assert.Equal(t, "stop-hook", gjson.GetBytes(after, "hooks.Stop.0.hooks.0.command").Str, "the write was refused: %s", after)
	assert.Contains(t, s.told(4), "Missing required files: never.txt", "still held after the tries")
	log := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, "DONEGATE_STATE_DIR=" + s.stateDir()}, closerBinary(t), "log", "--json")
	assert.Contains(t, log.Stdout, `"tool":"run_shell_command","decision":"refused"`)
	assert.NotContains(t, log.Stdout, `"hook":"closer release"`, "closer never ran")
}
