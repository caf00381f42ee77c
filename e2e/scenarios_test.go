//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

const planAdvice = "Please either complete all remaining tasks or update the plan to remove tasks that are no longer needed before producing output: "

// Environments that give the model a plan tool. The default models of
// 2.1.330 and 2.1.331 have none unless asked (CLAUDE_CODE_ENABLE_TODO_TOOLS=1);
// then the Task tools are the plan, and TodoWrite the older one.
var (
	taskTools = []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"}
	todoWrite = []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"}
)

func loadTools(names ...string) fakeapi.Turn {
	return fakeapi.Call("ToolSearch", map[string]any{"query": "select:" + strings.Join(names, ","), "max_results": 5})
}

func todo(content, status string) map[string]any {
	return map[string]any{"content": content, "status": status, "activeForm": content}
}

// mainTurn returns what the CLI told the model before main turn i.
func mainTurn(t *testing.T, api *fakeapi.Server, i int) string {
	t.Helper()
	reqs := api.Of("main")
	require.Greater(t, len(reqs), i, "main requests")
	return reqs[i].TailText()
}

// assertEnded checks the run ended normally after the whole script.
func assertEnded(t *testing.T, api *fakeapi.Server, r result, final string, mainRequests int) {
	t.Helper()
	assert.Equal(t, 0, r.ExitCode, "exit code; stderr: %s", r.Stderr)
	assert.False(t, r.IsError, "is_error; stdout: %s", r.Stdout)
	assert.Equal(t, final, r.Result)
	assert.False(t, api.Exhausted(), "the agent was kept going beyond the script")
	assert.Len(t, api.Of("main"), mainRequests)
}

// 1. Task tools: held while a task is open, told which, then let go.
func TestTaskToolsPlanHoldsTheAgent(t *testing.T) {
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
	s.Env = taskTools
	s.useDonegate()
	r := s.run("Build the feature")

	assert.Contains(t, mainTurn(t, api, 5), heldWith+"You have 1 incomplete task(s) out of 2. "+planAdvice+"Implement feature")
	assert.NotContains(t, mainTurn(t, api, 4), heldBy)
	assertEnded(t, api, r, "Now all done.", 7)
	tasks, _ := filepath.Glob(filepath.Join(s.Home, ".claude", "tasks", r.SessionID, "*.json"))
	assert.Len(t, tasks, 2, "the plan lives in the task files")
}

// 2. TodoWrite (CLAUDE_CODE_ENABLE_TASKS=0): the same, from the transcript.
func TestTodoWritePlanHoldsTheAgent(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		loadTools("TodoWrite"),
		fakeapi.Call("TodoWrite", map[string]any{"todos": []any{todo("Write tests", "completed"), todo("Implement feature", "in_progress")}}),
		fakeapi.Say("I am done."),
		fakeapi.Call("TodoWrite", map[string]any{"todos": []any{todo("Write tests", "completed"), todo("Implement feature", "completed")}}),
		fakeapi.Say("Now all done."),
	)
	s := newSession(t, api)
	s.Env = todoWrite
	s.useDonegate()
	r := s.run("Build the feature")

	assert.Contains(t, mainTurn(t, api, 3), heldWith+"You have 1 incomplete task(s) out of 2. "+planAdvice+"Implement feature")
	assertEnded(t, api, r, "Now all done.", 5)
	data, err := os.ReadFile(s.transcriptPath(r.SessionID))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"name":"TodoWrite"`, "the plan lives in the transcript")
}

// 3. A failing test command holds the agent until its fix makes it pass.
func TestTestCheckerHoldsUntilGreen(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(fakeapi.Say("Done."))
	s := newSession(t, api)
	api = fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "fixed.txt"), "content": "ok\n"}),
		fakeapi.Say("Fixed, tests pass."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.Args = []string{"--permission-mode", "acceptEdits"}
	s.config(`{"checkers":[{"type":"test","command":"echo checking; grep -q ok fixed.txt"}]}`)
	s.useDonegate()
	r := s.run("Make the tests pass")

	fb := mainTurn(t, api, 1)
	assert.Contains(t, fb, heldWith+"The test command `echo checking; grep -q ok fixed.txt` failed with exit code 2.")
	assert.Contains(t, fb, "Last 40 lines of output:\nchecking\ngrep: fixed.txt: No such file or directory")
	assertEnded(t, api, r, "Fixed, tests pass.", 3)
	assert.FileExists(t, filepath.Join(s.Project, "fixed.txt"))
}

// 4. Required files.
func TestFilesCheckerHoldsUntilWritten(t *testing.T) {
	t.Parallel()
	s := newSession(t, fakeapi.New())
	api := fakeapi.New(
		fakeapi.Say("Report done."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "dist", "report.md"), "content": "# Report\n"}),
		fakeapi.Say("Now the report is written."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.Args = []string{"--permission-mode", "acceptEdits"}
	s.config(`{"checkers":[{"type":"files","paths":["dist/*.md"]}]}`)
	s.useDonegate()
	r := s.run("Write the report")

	assert.Contains(t, mainTurn(t, api, 1), heldWith+"Missing required files: dist/*.md")
	assertEnded(t, api, r, "Now the report is written.", 3)
}

// 5. The block cap: an agent that keeps claiming "done" is let go after
// max_blocks continuations, and the person is told.
func TestBlockCapLetsTheAgentGo(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(fakeapi.Say("Done."), fakeapi.Say("Done!"), fakeapi.Say("Really done."))
	s := newSession(t, api)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	s.useDonegate()
	s.Args = []string{"--verbose", "--output-format", "stream-json"}
	r := s.run("Do it")

	assert.Contains(t, mainTurn(t, api, 1), heldWith+"Missing required files: never.txt")
	assert.Contains(t, mainTurn(t, api, 2), heldWith+"Missing required files: never.txt")
	assert.False(t, api.Exhausted())
	assert.Len(t, api.Of("main"), 3, "two continuations, then the agent stops")
	assert.Contains(t, r.Stdout, "donegate: still incomplete after 2 continuations; letting the agent stop: Missing required files: never.txt",
		"the person sees why the agent stopped")
}

// 6. StructuredOutput: an early call with open work is denied through
// PreToolUse and the model is told why; the later one is the result.
func TestStructuredOutputIsGated(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		loadTools("TaskCreate", "TaskUpdate"),
		fakeapi.Call("TaskCreate", map[string]any{"subject": "Write tests", "description": "Write the tests"}),
		fakeapi.Call("StructuredOutput", map[string]any{"name": "early"}),
		fakeapi.Call("TaskUpdate", map[string]any{"taskId": "1", "status": "completed"}),
		fakeapi.Call("StructuredOutput", map[string]any{"name": "final"}),
	)
	s := newSession(t, api)
	s.Env = taskTools
	s.Args = []string{"--json-schema", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`}
	s.useDonegate()
	r := s.run("Name it")

	assert.Contains(t, mainTurn(t, api, 3), "PreToolUse:StructuredOutput hook error: ")
	assert.Contains(t, mainTurn(t, api, 3), "You have 1 incomplete task(s) out of 1. "+planAdvice+"Write tests")
	assert.Equal(t, 1, strings.Count(mainTurn(t, api, 4), "hook error"), "the final call is not denied")
	assert.JSONEq(t, `{"name":"final"}`, string(r.StructuredOutput))
	assert.False(t, api.Exhausted())
	assert.Len(t, api.Of("main"), 5)
}

// 7. A subagent whose own TodoWrite is open is held at SubagentStop.
func TestSubagentIsHeld(t *testing.T) {
	t.Parallel()
	const marker = "SUBAGENT-TASK-7"
	api := fakeapi.New(
		fakeapi.Call("Agent", map[string]any{"description": "Do sub work", "prompt": marker + ": do the sub work", "subagent_type": "general-purpose", "run_in_background": false}),
		fakeapi.Say("Main done."),
	).WithSubagent(marker,
		loadTools("TodoWrite"),
		fakeapi.Call("TodoWrite", map[string]any{"todos": []any{todo("Sub step one", "completed"), todo("Sub step two", "pending")}}),
		fakeapi.Say("Sub done."),
		fakeapi.Call("TodoWrite", map[string]any{"todos": []any{todo("Sub step one", "completed"), todo("Sub step two", "completed")}}),
		fakeapi.Say("Sub really done."),
	)
	s := newSession(t, api)
	s.Env = todoWrite
	s.useDonegate()
	r := s.run("Delegate the work")

	sub := api.Of("subagent")
	require.Len(t, sub, 5, "the subagent got one more turn")
	assert.Contains(t, sub[3].TailText(), heldWith+"You have 1 incomplete task(s) out of 2. "+planAdvice+"Sub step two")
	assert.Contains(t, mainTurn(t, api, 1), "Sub really done.", "the main agent got the subagent's final answer")
	assertEnded(t, api, r, "Main done.", 2)
}

// 7b. Per-checker "on": at SubagentStop only the plan runs by default, so
// a failing test command does not hold the subagent (every subagent
// would run the suite); it holds the main agent at its Stop.
func TestSubagentStopRunsOnlyThePlan(t *testing.T) {
	t.Parallel()
	const marker = "SUBAGENT-TASK-7B"
	s := newSession(t, fakeapi.New())
	api := fakeapi.New(
		fakeapi.Call("Agent", map[string]any{"description": "Do sub work", "prompt": marker + ": do the sub work", "subagent_type": "general-purpose", "run_in_background": false}),
		fakeapi.Say("Main done."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "fixed.txt"), "content": "ok\n"}),
		fakeapi.Say("Fixed, tests pass."),
	).WithSubagent(marker,
		loadTools("TodoWrite"),
		fakeapi.Call("TodoWrite", map[string]any{"todos": []any{todo("Sub step one", "completed"), todo("Sub step two", "pending")}}),
		fakeapi.Say("Sub done."),
		fakeapi.Call("TodoWrite", map[string]any{"todos": []any{todo("Sub step one", "completed"), todo("Sub step two", "completed")}}),
		fakeapi.Say("Sub really done."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.Env = todoWrite
	s.Args = []string{"--permission-mode", "acceptEdits"}
	s.config(`{"checkers":[{"type":"plan"},{"type":"test","command":"echo checking; grep -q ok fixed.txt"}]}`)
	s.useDonegate()
	r := s.run("Delegate the work")

	sub := api.Of("subagent")
	require.Len(t, sub, 5, "the subagent got one more turn, for its plan only")
	assert.Contains(t, sub[3].TailText(), heldWith+"You have 1 incomplete task(s) out of 2. "+planAdvice+"Sub step two")
	assert.NotContains(t, sub[3].TailText(), "test command")
	assert.Contains(t, mainTurn(t, api, 1), "Sub really done.", "the main agent got the subagent's final answer")
	assert.Contains(t, mainTurn(t, api, 2), heldWith+"The test command `echo checking; grep -q ok fixed.txt` failed with exit code 2.")
	assertEnded(t, api, r, "Fixed, tests pass.", 4)
}

// 8. The sdk dialect is not honoured by Claude Code: the agent stops with
// work open. This documents that --dialect sdk is for SDK hosts only.
func TestSDKDialectIsIgnoredByClaudeCode(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(fakeapi.Say("Done."), fakeapi.Say("Never reached."))
	s := newSession(t, api)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}]}`)
	s.useDonegate("--dialect", "sdk")
	r := s.run("Do it")

	assertEnded(t, api, r, "Done.", 1)
	// The hook did run and did ask to continue: it counted one block.
	states, _ := filepath.Glob(filepath.Join(s.Home, "donegate-state", "*.json"))
	require.Len(t, states, 1)
	data, err := os.ReadFile(states[0])
	require.NoError(t, err)
	var st struct {
		Counters map[string]struct{ Blocks int } `json:"counters"`
	}
	require.NoError(t, json.Unmarshal(data, &st))
	assert.Equal(t, 1, st.Counters["stop"].Blocks)
}

// What the real Claude Code CLI (2.1.163 and later: the pinned one) tells
// the model when donegate holds it at a stop: donegate answers with
// additionalContext there (hookio.TakesStopContext), which the model
// reads in a system reminder as heldWith followed by the reason. heldBy
// is in any hold's reminder, of either shape.
const (
	heldWith = "Stop hook additional context: "
	heldBy   = "Stop hook "
)
