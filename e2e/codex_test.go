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

// The real Codex CLI (scripts/install-codex, 0.169.0) held by donegate,
// offline against the Responses stand-in: `codex exec --json --trust
// --dangerously-bypass-hook-trust` in a git repository whose
// .codex/hooks.json registers stop-hook (Claude's shape), CODEX_HOME and
// HOME a throwaway dir whose config.toml names the stand-in as the model
// provider and turns the update_plan tool on (off by default since 0.152).

type codexSession struct {
	t       *testing.T
	API     *fakeapi.Responses
	Home    string // HOME; CODEX_HOME is Home/.codex, as by default
	Project string
	Events  string // the recorder's dir
	Env     []string
	// AppServerLines, when set, sees each line the app-server writes
	// (see appServerTurns).
	AppServerLines func(line string)
}

func newCodexSession(t *testing.T, turns ...fakeapi.Turn) *codexSession {
	t.Helper()
	api := fakeapi.NewResponses(turns...)
	t.Cleanup(api.Close)
	s := &codexSession{t: t, API: api, Home: t.TempDir(), Project: t.TempDir(), Events: filepath.Join(t.TempDir(), "events")}
	gitInit(t, s.Project)
	config := `model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "Fake"
base_url = "` + api.URL() + `"
env_key = "FAKE_API_KEY"
wire_api = "responses"

[features]
hooks = true

[tools.update_plan]
enabled = true
`
	require.NoError(t, os.MkdirAll(s.codexHome(), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(s.codexHome(), "config.toml"), []byte(config), 0o644))
	// Every event Codex sends is recorded; Stop then goes to donegate.
	rec := recorder(t, s.Events)
	writeJSON(t, filepath.Join(s.Project, ".codex", "hooks.json"), map[string]any{"hooks": claudeShapedHooks(map[string]string{
		"SessionStart":     rec,
		"UserPromptSubmit": rec,
		"Stop":             rec + " " + filepath.Join(hookBinaries(t), "stop-hook"),
	})})
	return s
}

// config writes the project's host-neutral .donegate.json (what closer
// init --host codex writes).
func (s *codexSession) config(cfg string) {
	require.NoError(s.t, os.WriteFile(filepath.Join(s.Project, ".donegate.json"), []byte(cfg), 0o644))
}

func (s *codexSession) codexHome() string { return filepath.Join(s.Home, ".codex") }

func (s *codexSession) stateDir() string { return filepath.Join(s.Home, "donegate-state") }

// codexResult is a finished `codex exec --json` run.
type codexResult struct {
	clientRun
	Messages []string // the agent's messages, in order (agent_message items)
}

// run runs codex exec on prompt, with flags (e.g. --output-schema FILE)
// after the harness's own.
func (s *codexSession) run(prompt string, flags ...string) codexResult {
	s.t.Helper()
	codex := clientPath(s.t, "DONEGATE_CODEX", "install-codex")
	allowProject(s.t, s.Home, s.stateDir(), s.Project)
	env := append([]string{
		"HOME=" + s.Home,
		"CODEX_HOME=" + s.codexHome(),
		"FAKE_API_KEY=fake-key-for-tests",
		"DONEGATE_STATE_DIR=" + s.stateDir(),
	}, s.Env...)
	args := append([]string{"exec", "--json", "--trust", "--dangerously-bypass-hook-trust"}, flags...)
	r := codexResult{clientRun: runClient(s.t, 2*time.Minute, s.Project, env, codex, append(args, prompt)...)}
	for _, line := range strings.Split(r.Stdout, "\n") {
		var ev struct {
			Type string `json:"type"`
			Item struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "item.completed" && ev.Item.Type == "agent_message" {
			r.Messages = append(r.Messages, ev.Item.Text)
		}
	}
	return r
}

// told returns what Codex told the model before main request i: the tool
// outputs and user messages since the model last spoke (a Stop block is a
// <hook_prompt> user message).
func (s *codexSession) told(i int) string {
	s.t.Helper()
	reqs := s.API.Of("main")
	require.Greater(s.t, len(reqs), i, "main requests")
	return fakeapi.ResponsesTail(reqs[i].Body)
}

// assertEnded checks that the run ended normally after the whole script,
// with final as the agent's last message.
func (s *codexSession) assertEnded(r codexResult, final string, mainRequests int) {
	s.t.Helper()
	assert.Equal(s.t, 0, r.ExitCode, "exit code; stderr: %s", r.Stderr)
	require.NotEmpty(s.t, r.Messages, "stdout: %s", r.Stdout)
	assert.Equal(s.t, final, r.Messages[len(r.Messages)-1])
	assert.False(s.t, s.API.Exhausted(), "the agent was kept going beyond the script")
	assert.Len(s.t, s.API.Of("main"), mainRequests)
}

func codexPlan(steps ...string) fakeapi.Turn {
	var plan []any
	for i := 0; i < len(steps); i += 2 {
		plan = append(plan, map[string]any{"step": steps[i], "status": steps[i+1]})
	}
	return fakeapi.Call("update_plan", map[string]any{"explanation": "the steps", "plan": plan})
}

// (a) An open update_plan step holds the agent; once the plan is done it
// is let go.
func TestCodexPlanHoldsTheAgent(t *testing.T) {
	t.Parallel()
	s := newCodexSession(t,
		codexPlan("Write the tests", "completed", "Implement the feature", "in_progress"),
		fakeapi.Say("I am done."),
		codexPlan("Write the tests", "completed", "Implement the feature", "completed"),
		fakeapi.Say("Now all done."),
	)
	s.config(`{"checkers":[{"type":"plan"}]}`)
	r := s.run("Build the feature")

	// The plan is where the fixture says, as the fixture says: checked
	// first, as it does not depend on donegate.
	events := clientEvents(t, s.Events)
	stops := ofEvent(events, "Stop")
	require.NotEmpty(t, stops, "recorded: %s", eventNames(events))
	rollout, err := os.ReadFile(stops[0].str("transcript_path"))
	require.NoError(t, err)
	checkLineFixture(t, filepath.Join("codex", "rollout-update-plan.jsonl"), rollout, `"name":"update_plan"`, s.placeholders(events)...)

	assert.Contains(t, fakeapi.ToolNames(s.API.Of("main")[0].Body), "update_plan", "config.toml turned the plan tool on")
	told := s.told(2)
	assert.Contains(t, told, `<hook_prompt hook_run_id="stop:`)
	assert.Contains(t, told, "You have 1 incomplete task(s) out of 2. ")
	assert.Contains(t, told, "update the plan with update_plan to remove tasks", "the feedback names the host's plan tool")
	assert.True(t, strings.HasSuffix(strings.TrimSuffix(told, "</hook_prompt>"), ": Implement the feature"), told)
	assert.NotContains(t, told, "Write the tests", "only the open step is named")
	s.assertEnded(r, "Now all done.", 4)

	require.Len(t, stops, 2)
	assert.Equal(t, stops[0].str("turn_id"), stops[1].str("turn_id"), "one turn across the continuation")
	assert.Equal(t, true, stops[1].Fields["stop_hook_active"])
}

// (b) A failing go test holds the agent; its fix lets it go.
func TestCodexFailingTestHoldsUntilFixed(t *testing.T) {
	t.Parallel()
	s := newCodexSession(t)
	s.Env = goProject(t, s.Project, s.Home)
	api := fakeapi.NewResponses(
		fakeapi.Say("Done."),
		fakeapi.Call("exec_command", map[string]any{"cmd": "printf '%s' '" + fixedCalc + "' > calc.go"}),
		fakeapi.Say("Fixed: Add adds."),
	)
	t.Cleanup(api.Close)
	s.useAPI(api)
	s.config(`{"checkers":[{"type":"test","command":"go test ./..."}]}`)
	r := s.run("Make Add correct")

	told := s.told(1)
	assert.Contains(t, told, goTestFailure)
	assert.Contains(t, told, "Add(2, 3) = -1, want 5")
	s.assertEnded(r, "Fixed: Add adds.", 3)
	data, err := os.ReadFile(filepath.Join(s.Project, "calc.go"))
	require.NoError(t, err)
	assert.Equal(t, fixedCalc, string(data), "the agent's command fixed it")

	// What Codex sent is what the fixtures hold.
	events := clientEvents(t, s.Events)
	checkFixtures(t, "codex", events, []fixture{
		{"sessionstart.json", nthEvent("SessionStart", 0, "", nil)},
		{"userpromptsubmit.json", nthEvent("UserPromptSubmit", 0, "", nil)},
		{"stop.json", nthEvent("Stop", 0, "stop_hook_active", false)},
		{"stop-continued.json", nthEvent("Stop", 0, "stop_hook_active", true)},
	}, s.placeholders(events)...)
}

// (c) An agent that never finishes is let go after limits.max_blocks
// continuations: Codex has no cap of its own, donegate's count decides.
func TestCodexNeverFinishingAgentIsLetGoAfterMaxBlocks(t *testing.T) {
	t.Parallel()
	var turns []fakeapi.Turn
	for i := 0; i < 10; i++ {
		turns = append(turns, fakeapi.Say("Done."))
	}
	s := newCodexSession(t, turns...)
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
	assert.Equal(t, stops[0].str("turn_id"), count.PromptID, "counted per Codex turn")

	// codex exec shows a systemMessage nowhere: the person learns why the agent
	// was let go from closer explain --last.
	explain := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, "DONEGATE_STATE_DIR=" + s.stateDir()},
		closerBinary(t), "explain", "--last", "--json")
	require.Equal(t, 0, explain.ExitCode, "the hook let the agent stop; stderr: %s", explain.Stderr)
	var rep struct{ Session, Event, Why string }
	require.NoError(t, json.Unmarshal([]byte(explain.Stdout), &rep), explain.Stdout)
	assert.Equal(t, stops[0].str("session_id"), rep.Session)
	assert.Equal(t, "Stop", rep.Event)
	assert.Equal(t, "let through: max_blocks (3) spent (still incomplete after 3 continuations)", rep.Why)
}

// (d) closer init --host codex on a fresh repository, then a real codex
// exec: the agent, which changed the code but not rightly, is held by the
// Go project's failing test (the default config detects go test from
// go.mod) and let go once it is fixed. (init registers stop-hook
// --criteria, so the session's start is seen: an agent that changed
// nothing would not be held by the tests, see unchanged.txtar.) Init
// never writes Codex's trust for the hooks (it would forge the user's
// consent): the run passes --dangerously-bypass-hook-trust, as a person
// reviews them in /hooks.
func TestCodexAfterCloserInitHoldsTheAgent(t *testing.T) {
	t.Parallel()
	s := newCodexSession(t)
	require.NoError(t, os.RemoveAll(filepath.Join(s.Project, ".codex")))
	env := goProject(t, s.Project, s.Home)
	api := fakeapi.NewResponses(
		fakeapi.Call("exec_command", map[string]any{"cmd": "printf '// Add is wrong.\\n' >> calc.go"}),
		fakeapi.Say("Done."),
		fakeapi.Call("exec_command", map[string]any{"cmd": "printf '%s' '" + fixedCalc + "' > calc.go"}),
		fakeapi.Say("Fixed: Add adds."),
	)
	t.Cleanup(api.Close)
	s.useAPI(api)
	path := closerInit(t, "codex", s.Project, s.Home)
	s.Env = append(env, "PATH="+path)
	r := s.run("Make Add correct")

	told := s.told(2)
	assert.Contains(t, told, goTestFailure)
	assert.Contains(t, told, "Add(2, 3) = -1, want 5")
	s.assertEnded(r, "Fixed: Add adds.", 4)
}

// stop-hook --criteria at Codex's SessionStart and UserPromptSubmit: the
// criteria reach the model with the prompt, once each, and a block's
// continuation adds no copy (Codex sends UserPromptSubmit once per prompt).
func TestCodexCriteriaReachTheModel(t *testing.T) {
	t.Parallel()
	s := newCodexSession(t, fakeapi.Say("Done."), fakeapi.Say("Done again."))
	bin := filepath.Join(hookBinaries(t), "stop-hook")
	rec := recorder(t, s.Events)
	writeJSON(t, filepath.Join(s.Project, ".codex", "hooks.json"), map[string]any{"hooks": claudeShapedHooks(map[string]string{
		"SessionStart":     rec + " " + bin + " --criteria",
		"UserPromptSubmit": rec + " " + bin + " --criteria",
		"Stop":             rec + " " + bin,
	})})
	// hold_unchanged: the agent changes nothing, and the project's files
	// are to hold it all the same (criteria mark the session's start).
	s.config(`{"hold_unchanged":true,"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":1}}`)
	r := s.run("Do it")

	const told = "This session ends when: required files exist: never.txt."
	main := s.API.Of("main")
	require.Len(t, main, 2, "a stop, one continuation")
	assert.Equal(t, 2, strings.Count(string(main[0].Body), told), "told at session start and with the prompt")
	assert.Equal(t, 2, strings.Count(string(main[1].Body), told), "no copy more with the continuation")
	assert.Contains(t, s.told(1), "Missing required files: never.txt")
	s.assertEnded(r, "Done again.", 2)
}

// codexFinalSchema is an --output-schema for a final answer that says
// whether the work is done and makes a claim donegate can check (OpenAI's
// strict form: every property required, no others).
const codexFinalSchema = `{
  "type": "object",
  "properties": {
    "status": {"type": "string", "enum": ["completed", "blocked"]},
    "summary": {"type": "string"},
    "validation": {
      "type": "object",
      "properties": {"tests_passed": {"type": "boolean"}},
      "required": ["tests_passed"],
      "additionalProperties": false
    }
  },
  "required": ["status", "summary", "validation"],
  "additionalProperties": false
}`

// codexFinalConfig gates the final JSON: "completed" declares the work
// done; then the summary must say something and the claim that the tests
// pass is checked by running them.
const codexFinalConfig = `{
  "completion_signal": [{"path": "status", "equals": "completed"}],
  "checkers": [
    {"type": "output", "conditions": [{"path": "summary", "matches": "\\S"}]},
    {"type": "claims", "claims": [
      {"path": "validation.tests_passed", "checker": {"type": "test", "command": "go test ./..."}}
    ]}
  ]
}`

// runWithSchema runs codex exec --output-schema with codexFinalSchema.
func (s *codexSession) runWithSchema(prompt string) codexResult {
	s.t.Helper()
	schema := filepath.Join(s.t.TempDir(), "schema.json")
	require.NoError(s.t, os.WriteFile(schema, []byte(codexFinalSchema), 0o644))
	return s.run(prompt, "--output-schema", schema)
}

// assertSchemaSent checks that Codex handed the schema to the model, as
// the Responses API's text.format (the stand-in does not enforce it).
func (s *codexSession) assertSchemaSent() {
	s.t.Helper()
	for i, req := range s.API.Of("main") {
		var body struct {
			Text struct {
				Format struct {
					Type   string         `json:"type"`
					Schema map[string]any `json:"schema"`
				} `json:"format"`
			} `json:"text"`
		}
		require.NoError(s.t, json.Unmarshal(req.Body, &body), "main request %d", i)
		assert.Equal(s.t, "json_schema", body.Text.Format.Type, "main request %d: %s", i, req.Body)
		assert.Contains(s.t, body.Text.Format.Schema, "properties", "main request %d", i)
	}
}

// (e) codex exec --output-schema: the agent's final JSON is checked at
// Stop as Claude Code's StructuredOutput call is. A claim that the tests
// pass while they fail holds the agent, which is told so; the same answer
// after its fix is let go and is what codex exec prints last.
func TestCodexOutputSchemaClaimsAreVerified(t *testing.T) {
	t.Parallel()
	const final = `{"status":"completed","summary":"Fixed Add.","validation":{"tests_passed":true}}`
	s := newCodexSession(t,
		fakeapi.Say(final),
		fakeapi.Call("exec_command", map[string]any{"cmd": "printf '%s' '" + fixedCalc + "' > calc.go"}),
		fakeapi.Say(final),
	)
	s.Env = goProject(t, s.Project, s.Home)
	s.config(codexFinalConfig)
	r := s.runWithSchema("Make Add correct")

	s.assertSchemaSent()
	told := s.told(1)
	assert.Contains(t, told, "Your final JSON message claims what is not so. ")
	assert.Contains(t, told, "validation.tests_passed is true, but the check that `go test ./...` passes fails")
	assert.Contains(t, told, "Add(2, 3) = -1, want 5")
	s.assertEnded(r, final, 3)
	data, err := os.ReadFile(filepath.Join(s.Project, "calc.go"))
	require.NoError(t, err)
	assert.Equal(t, fixedCalc, string(data), "the agent's command fixed it")

	stops := ofEvent(clientEvents(t, s.Events), "Stop")
	require.Len(t, stops, 2, "one block, then let go")
	assert.Equal(t, final, stops[1].str("last_assistant_message"), "the final JSON reaches the hook as the last message")
}

// (f) A final JSON that does not declare the work done ("blocked") is an
// honest answer: let through unchecked, though its claim is false and the
// tests fail. closer explain --last tells the person why (the stop was
// not kept before: it replayed an older event, or none).
func TestCodexOutputSchemaBlockedIsLetThrough(t *testing.T) {
	t.Parallel()
	const final = `{"status":"blocked","summary":"Cannot reach the network.","validation":{"tests_passed":true}}`
	s := newCodexSession(t, fakeapi.Say(final))
	s.Env = goProject(t, s.Project, s.Home)
	s.config(codexFinalConfig)
	r := s.runWithSchema("Make Add correct")

	s.assertSchemaSent()
	s.assertEnded(r, final, 1)
	stops := ofEvent(clientEvents(t, s.Events), "Stop")
	require.Len(t, stops, 1)
	assert.Equal(t, final, stops[0].str("last_assistant_message"))

	explain := runClient(t, time.Minute, s.Project, append([]string{"HOME=" + s.Home, "DONEGATE_STATE_DIR=" + s.stateDir()}, s.Env...),
		closerBinary(t), "explain", "--last", "--json")
	require.Equal(t, 0, explain.ExitCode, "the hook let the agent stop; stderr: %s", explain.Stderr)
	var rep struct{ Event, Why string }
	require.NoError(t, json.Unmarshal([]byte(explain.Stdout), &rep), explain.Stdout)
	assert.Equal(t, "Stop", rep.Event)
	assert.Equal(t, "not checked: the agent's final JSON message declares no completion (completion_signal: `status` equals \"completed\")", rep.Why)
}

// placeholders are what -update-events puts for the run's throwaway
// paths and ids: those of hookio's unit tests.
func (s *codexSession) placeholders(events []clientEvent) []string {
	p := []string{s.Home, "$HOME", s.Project, "/home/user/project"}
	if stops := ofEvent(events, "Stop"); len(stops) > 0 {
		p = append(p, stops[0].str("session_id"), "01a2b3c4-0000-7000-8000-000000000001",
			stops[0].str("turn_id"), "01a2b3c4-0000-7000-8000-0000000000aa")
	}
	return p
}

// useAPI points the session at another stand-in (for a script that needs
// the project's path, known only once the session exists).
func (s *codexSession) useAPI(api *fakeapi.Responses) {
	s.API = api
	path := filepath.Join(s.codexHome(), "config.toml")
	data, err := os.ReadFile(path)
	require.NoError(s.t, err)
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "base_url = ") {
			l = `base_url = "` + api.URL() + `"`
		}
		lines = append(lines, l)
	}
	require.NoError(s.t, os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644))
}

// (g) Without --output-schema, a final message that is a JSON object is a
// message like any other: the stop is checked as a stop (here the file
// the config requires is missing) rather than taken for a structured
// answer that declares nothing and let through unchecked. Codex says
// nowhere a hook can read whether it was given a schema; the hook's
// parent, the codex binary, has it in its arguments.
func TestCodexJSONMessageWithoutSchemaIsAStop(t *testing.T) {
	t.Parallel()
	const msg = `{"status":"blocked","summary":"waiting"}`
	s := newCodexSession(t, fakeapi.Say(msg), fakeapi.Say("Wrote it."))
	s.config(`{"completion_signal": [{"path": "status", "equals": "completed"}], "checkers": [{"type": "files", "paths": ["REPORT.md"]}], "limits": {"max_blocks": 1}}`)
	r := s.run("Write REPORT.md")

	assert.Contains(t, s.told(1), "Missing required files: REPORT.md")
	s.assertEnded(r, "Wrote it.", 2)
}

// Where Codex shows a Stop hook's systemMessage (what donegate says when
// it lets an agent go), measured with the real client: its app-server
// sends it as a warning entry of hook/completed, which its TUI and the
// IDEs that drive it show (Codex issue #29906); codex exec --json writes
// nothing of it.
func TestCodexShowsAStopSystemMessageAsAWarning(t *testing.T) {
	t.Parallel()
	hook := filepath.Join(t.TempDir(), "stop.sh")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ncat >/dev/null\necho '{\"systemMessage\":\"donegate: letting the agent stop\"}'\n"), 0o755))
	register := func(s *codexSession) {
		writeJSON(t, filepath.Join(s.Project, ".codex", "hooks.json"), map[string]any{"hooks": claudeShapedHooks(map[string]string{"Stop": hook})})
	}
	codex := clientPath(t, "DONEGATE_CODEX", "install-codex")

	s := newCodexSession(t, fakeapi.Say("Done."))
	register(s)
	r := s.run("Do it")
	assert.NotContains(t, r.Stdout+r.Stderr, "letting the agent stop", "codex exec shows it nowhere")

	s = newCodexSession(t, fakeapi.Say("Done."))
	register(s)
	s.trustProjectHooks(codex)
	var warnings []string
	s.AppServerLines = func(line string) {
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Run struct {
					EventName string `json:"eventName"`
					Entries   []struct{ Kind, Text string }
				} `json:"run"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Method == "hook/completed" && msg.Params.Run.EventName == "stop" {
			for _, e := range msg.Params.Run.Entries {
				warnings = append(warnings, e.Kind+": "+e.Text)
			}
		}
	}
	s.appServerTurns(codex, "Do it", 1)
	assert.Contains(t, warnings, "warning: donegate: letting the agent stop")
}

// TestCodexSandboxKeepsTheAgentOut: with Codex's workspace-write sandbox
// (sandbox_mode = "workspace-write"), the agent's shell cannot write
// donegate's state dir (a forged consent record, a release) or the
// project's .codex/ (donegate's hooks), while the hooks, which run
// outside the sandbox, go on holding it: a failing test holds until the
// agent fixes it. The test's HOME is under /tmp, which the sandbox lets
// the agent write by default; the config excludes it, as a HOME outside
// /tmp is.
func TestCodexSandboxKeepsTheAgentOut(t *testing.T) {
	t.Parallel()
	s := newCodexSession(t)
	s.Env = goProject(t, s.Project, s.Home)
	state := s.stateDir()
	api := fakeapi.NewResponses(
		fakeapi.Call("exec_command", map[string]any{"cmd": "mkdir -p '" + state + "/consent' && echo forged > '" + state + "/consent/forged'; echo state=$?; echo '{}' > .codex/hooks.json; echo hooks=$?"}),
		fakeapi.Say("Done."),
		fakeapi.Call("exec_command", map[string]any{"cmd": "printf '%s' '" + fixedCalc + "' > calc.go"}),
		fakeapi.Say("Fixed: Add adds."),
	)
	t.Cleanup(api.Close)
	s.useAPI(api)
	cfg := filepath.Join(s.codexHome(), "config.toml")
	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	sandboxed := strings.Replace(string(data), `sandbox_mode = "danger-full-access"`,
		"sandbox_mode = \"workspace-write\"\n\n[sandbox_workspace_write]\nexclude_slash_tmp = true\nexclude_tmpdir_env_var = true\n", 1)
	require.NotEqual(t, string(data), sandboxed)
	require.NoError(t, os.WriteFile(cfg, []byte(sandboxed), 0o644))
	hooks, err := os.ReadFile(filepath.Join(s.Project, ".codex", "hooks.json"))
	require.NoError(t, err)
	r := s.run("Make Add correct")

	tried := s.told(1)
	assert.Contains(t, tried, "Read-only file system")
	assert.Contains(t, tried, "state=1")
	assert.Contains(t, tried, "hooks=1")
	assert.NoFileExists(t, filepath.Join(state, "consent", "forged"))
	after, err := os.ReadFile(filepath.Join(s.Project, ".codex", "hooks.json"))
	require.NoError(t, err)
	assert.Equal(t, string(hooks), string(after), "donegate's hooks as they were")
	assert.Contains(t, s.told(2), goTestFailure, "held: the hooks run outside the sandbox")
	s.assertEnded(r, "Fixed: Add adds.", 4)
}
