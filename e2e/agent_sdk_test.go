//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// The real Claude Agent SDK for TypeScript (scripts/install-agent-sdk,
// 0.3.331, which runs Claude Code 2.1.331) held by donegate's unchanged
// stop-hook, offline against the Messages stand-in, both ways an SDK
// program can register it: the project's .claude/settings.json
// (settingSources: ['project']) and an in-process Stop callback that runs
// stop-hook with the input on stdin and returns its answer
// (e2e/testdata/agent-sdk/run.mjs).

var sdkRoutes = []string{"settings", "callback"}

// sdkResult is the SDK's result message and the run around it.
type sdkResult struct {
	clientRun
	Result    string `json:"result"`
	IsError   bool   `json:"is_error"`
	NumTurns  int    `json:"num_turns"`
	SessionID string `json:"session_id"`
}

// runSDK runs one query through route in the session's project, with
// the session's environment. Every Stop event goes through the recorder
// to stop-hook; the session's config is .claude/donegate.json, as for
// Claude Code.
func (s *session) runSDK(route, events, prompt string) sdkResult {
	s.consent()
	s.t.Helper()
	module := clientPath(s.t, "DONEGATE_AGENT_SDK", "install-agent-sdk")
	stop := recorder(s.t, events) + " " + filepath.Join(hookBinaries(s.t), "stop-hook")
	if route == "settings" {
		writeJSON(s.t, filepath.Join(s.Project, ".claude", "settings.json"), map[string]any{
			"hooks": claudeShapedHooks(map[string]string{"Stop": stop}),
		})
	}
	env := append(s.baseEnv()[1:], // runClient sets PATH
		"SDK_MODULE="+module,
		"SDK_ROUTE="+route,
		"SDK_STOP_HOOK="+stop,
		"SDK_PROMPT="+prompt,
	)
	script := filepath.Join(repoRoot(s.t), "e2e", "testdata", "agent-sdk", "run.mjs")
	r := sdkResult{clientRun: runClient(s.t, 2*time.Minute, s.Project, env, "node", script)}
	for _, line := range strings.Split(r.Stdout, "\n") {
		var msg struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.Type == "result" {
			require.NoError(s.t, json.Unmarshal([]byte(line), &r))
		}
	}
	return r
}

func (s *session) assertSDKEnded(api *fakeapi.Server, r sdkResult, final string, mainRequests int) {
	s.t.Helper()
	assert.Equal(s.t, 0, r.ExitCode, "exit code; stderr: %s", r.Stderr)
	assert.False(s.t, r.IsError, "is_error; stdout: %s", r.Stdout)
	assert.Equal(s.t, final, r.Result)
	assert.False(s.t, api.Exhausted(), "the agent was kept going beyond the script")
	assert.Len(s.t, api.Of("main"), mainRequests)
}

// (a) An open TodoWrite item holds the agent; once done it is let go.
func TestAgentSDKPlanHoldsTheAgent(t *testing.T) {
	t.Parallel()
	for _, route := range sdkRoutes {
		t.Run(route, func(t *testing.T) {
			api := fakeapi.New(
				loadTools("TodoWrite"),
				fakeapi.Call("TodoWrite", map[string]any{"todos": []any{todo("Write tests", "completed"), todo("Implement feature", "in_progress")}}),
				fakeapi.Say("I am done."),
				fakeapi.Call("TodoWrite", map[string]any{"todos": []any{todo("Write tests", "completed"), todo("Implement feature", "completed")}}),
				fakeapi.Say("Now all done."),
			)
			s := newSession(t, api)
			s.Env = todoWrite
			s.config(`{"checkers":[{"type":"plan"}]}`)
			dir := filepath.Join(t.TempDir(), "events")
			r := s.runSDK(route, dir, "Build the feature")

			assert.Contains(t, mainTurn(t, api, 3), heldWith+"You have 1 incomplete task(s) out of 2. "+planAdvice+"Implement feature")
			s.assertSDKEnded(api, r, "Now all done.", 5)

			// The callback's input is the command hook's stdin, Claude
			// Code's Stop (2.1.331 adds "effort" to the recorded one).
			events := clientEvents(t, dir)
			stops := ofEvent(events, "Stop")
			require.Len(t, stops, 2)
			checkFixtures(t, "agent-sdk", events, []fixture{
				{"stop.json", nthEvent("Stop", 0, "stop_hook_active", false)},
				{"stop-continued.json", nthEvent("Stop", 0, "stop_hook_active", true)},
			}, s.Home, "$HOME", s.Project, "/home/user/project", strings.ReplaceAll(s.Project, "/", "-"), "-home-user-project",
				stops[0].str("session_id"), "11111111-1111-4111-8111-111111111111", stops[0].str("prompt_id"), "p-11111111")
			assert.Equal(t, true, stops[1].Fields["stop_hook_active"])
		})
	}
}

// (b) A failing go test holds the agent; its fix lets it go.
func TestAgentSDKFailingTestHoldsUntilFixed(t *testing.T) {
	t.Parallel()
	for _, route := range sdkRoutes {
		t.Run(route, func(t *testing.T) {
			s := newSession(t, fakeapi.New())
			api := fakeapi.New(
				fakeapi.Say("Done."),
				fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "calc.go"), "content": fixedCalc}),
				fakeapi.Say("Fixed: Add adds."),
			)
			s.API = api
			t.Cleanup(api.Close)
			s.Env = goProject(t, s.Project, s.Home)
			s.config(`{"checkers":[{"type":"test","command":"go test ./..."}]}`)
			r := s.runSDK(route, filepath.Join(t.TempDir(), "events"), "Make Add correct")

			fb := mainTurn(t, api, 1)
			assert.Contains(t, fb, heldWith+goTestFailure)
			assert.Contains(t, fb, "Add(2, 3) = -1, want 5")
			s.assertSDKEnded(api, r, "Fixed: Add adds.", 3)
		})
	}
}

// (c) An agent that never finishes is let go after limits.max_blocks
// continuations, by donegate's count (3), below Claude Code's cap (8).
func TestAgentSDKNeverFinishingAgentIsLetGoAfterMaxBlocks(t *testing.T) {
	t.Parallel()
	for _, route := range sdkRoutes {
		t.Run(route, func(t *testing.T) {
			var turns []fakeapi.Turn
			for i := 0; i < 12; i++ {
				turns = append(turns, fakeapi.Say("Done."))
			}
			api := fakeapi.New(turns...)
			s := newSession(t, api)
			s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":3}}`)
			events := filepath.Join(t.TempDir(), "events")
			r := s.runSDK(route, events, "Do it")

			for i := 1; i <= 3; i++ {
				assert.Contains(t, mainTurn(t, api, i), heldWith+"Missing required files: never.txt", "continuation %d", i)
			}
			s.assertSDKEnded(api, r, "Done.", 4)
			stops := ofEvent(clientEvents(t, events), "Stop")
			require.Len(t, stops, 4, "three blocks, then the agent was let go")
			count := donegateStopCount(t, filepath.Join(s.Home, "donegate-state"))
			assert.Equal(t, 3, count.Blocks, "donegate's own count")
			assert.True(t, count.Exhausted)
			assert.Equal(t, stops[0].str("prompt_id"), count.PromptID, "counted per prompt")
		})
	}
}
