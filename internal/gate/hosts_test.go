package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/gate"
)

// step is one stop of a host's session and what donegate decides on it.
type step struct {
	event  string
	kind   gate.Kind
	blocks int
}

// TestHostCounting: every host's stops are counted per session and turn,
// so that open work blocks at most limits.max_blocks times in a turn
// whatever the host's own cap, and a new turn starts a fresh count.
func TestHostCounting(t *testing.T) {
	codex := func(turn string, active bool) string {
		return `{"session_id":"s","turn_id":"` + turn + `","model":"m","hook_event_name":"Stop","cwd":"$DIR","stop_hook_active":` + map[bool]string{true: "true", false: "false"}[active] + `}`
	}
	gemini := `{"session_id":"s","hook_event_name":"AfterAgent","cwd":"$DIR","prompt":"p","prompt_response":"r","stop_hook_active":false}`
	copilot := func(active bool) string {
		return `{"sessionId":"s","cwd":"$DIR","stopReason":"end_turn","stop_hook_active":` + map[bool]string{true: "true", false: "false"}[active] + `}`
	}
	cursor := func(gen string, loop string) string {
		return `{"conversation_id":"s","generation_id":"` + gen + `","hook_event_name":"stop","workspace_roots":["$DIR"],"status":"completed","loop_count":` + loop + `}`
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"codex: turn_id is the turn", []step{
			{codex("t1", false), gate.KindBlocked, 1},
			{codex("t1", true), gate.KindBlocked, 2},
			{codex("t1", true), gate.KindLetGo, 2},
			{codex("t1", true), gate.KindLetGo, 2},
			{codex("t2", false), gate.KindBlocked, 1},
		}},
		{"gemini: stop_hook_active false throughout, no chat file", []step{
			{gemini, gate.KindBlocked, 1},
			{gemini, gate.KindBlocked, 2},
			// No turn found: the count is the session's, dropped when
			// the agent is let go, which ends the turn.
			{gemini, gate.KindLetGo, 0},
			{gemini, gate.KindBlocked, 1},
		}},
		{"copilot: stop_hook_active false starts a turn", []step{
			{copilot(false), gate.KindBlocked, 1},
			{copilot(true), gate.KindBlocked, 2},
			{copilot(true), gate.KindLetGo, 2},
			{copilot(false), gate.KindBlocked, 1},
			{copilot(false), gate.KindBlocked, 1},
		}},
		{"cursor: loop_count 0 starts a turn, a stop is taken once", []step{
			{cursor("g0", "0"), gate.KindBlocked, 1},
			{cursor("g0", "0"), gate.KindDuplicate, 0},
			{cursor("g1", "1"), gate.KindBlocked, 2},
			{cursor("g1", "1"), gate.KindDuplicate, 0},
			{cursor("g2", "2"), gate.KindLetGo, 2},
			// A turn cut short after one block, then the person's next
			// prompt: its count starts over.
			{cursor("g3", "0"), gate.KindBlocked, 1},
			{cursor("g4", "0"), gate.KindBlocked, 1},
		}},
		{"cursor: a stop the person aborted, or that failed, is let be", []step{
			{`{"conversation_id":"s","generation_id":"g0","hook_event_name":"stop","workspace_roots":["$DIR"],"status":"aborted","loop_count":0}`, gate.KindUnchecked, 0},
			{`{"conversation_id":"s","generation_id":"g1","hook_event_name":"stop","workspace_roots":["$DIR"],"status":"error","loop_count":0}`, gate.KindUnchecked, 0},
			{`{"conversation_id":"s","generation_id":"g2","hook_event_name":"stop","workspace_roots":["$DIR"],"status":"completed","loop_count":0}`, gate.KindBlocked, 1},
		}},
		{"cursor: a subagent's stop of the generation is not its main stop", []step{
			{`{"conversation_id":"s","generation_id":"g0","hook_event_name":"subagentStop","workspace_roots":["$DIR"]}`, gate.KindComplete, 0},
			{cursor("g0", "0"), gate.KindBlocked, 1},
		}},
		{"cursor without generation ids: each stop counted", []step{
			{`{"conversation_id":"s","hook_event_name":"stop","workspace_roots":["$DIR"],"loop_count":0}`, gate.KindBlocked, 1},
			{`{"conversation_id":"s","hook_event_name":"stop","workspace_roots":["$DIR"],"loop_count":1}`, gate.KindBlocked, 2},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "cfg.json")
			require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"files","paths":["a"]}],"limits":{"max_blocks":2}}`), 0o644))
			opts := gate.Options{ConfigPath: cfg, StateDir: filepath.Join(dir, "state")}
			env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
			for i, s := range tt.steps {
				var stderr bytes.Buffer
				rep, err := gate.Evaluate(context.Background(), gate.StopHookName, opts, env, []byte(strings.ReplaceAll(s.event, "$DIR", jsonText(dir))), &stderr)
				require.NoError(t, err, "step %d", i)
				assert.Equal(t, s.kind, rep.Decision.Kind, "step %d: %s", i, stderr.String())
				assert.Equal(t, s.blocks, rep.Decision.Blocks, "step %d", i)
			}
		})
	}
}

// A dry run (closer explain) of a Cursor stop takes nothing: the hook's
// own run of that stop afterwards is not a duplicate.
func TestCursorDryRunTakesNothing(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"files","paths":["a"]}]}`), 0o644))
	event := []byte(`{"conversation_id":"s","generation_id":"g","hook_event_name":"stop","workspace_roots":["` + jsonText(dir) + `"],"loop_count":0}`)
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
	stateDir := filepath.Join(dir, "state")
	for _, opts := range []gate.Options{{DryRun: true}, {DryRun: true}, {}} {
		opts.ConfigPath, opts.StateDir = cfg, stateDir
		var stderr bytes.Buffer
		rep, err := gate.Evaluate(context.Background(), gate.StopHookName, opts, env, event, &stderr)
		require.NoError(t, err)
		assert.Equal(t, gate.KindBlocked, rep.Decision.Kind, "dry run %v", opts.DryRun)
		assert.Equal(t, "{\"followup_message\":\"Missing required files: a\"}\n", string(rep.Answer))
	}
}

// The project dir: $CLAUDE_PROJECT_DIR, else $GEMINI_PROJECT_DIR, else
// the event's cwd (Cursor: its first workspace root).
func TestProjectDirPerHost(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		env   map[string]string
		event string
		want  string
	}{
		{"claude", map[string]string{"CLAUDE_PROJECT_DIR": "/c"}, `{"session_id":"s","hook_event_name":"Stop","cwd":"/w"}`, "/c"},
		{"gemini", map[string]string{"GEMINI_PROJECT_DIR": "/g"}, `{"session_id":"s","hook_event_name":"AfterAgent","cwd":"/w"}`, "/g"},
		{"gemini, both set", map[string]string{"GEMINI_PROJECT_DIR": "/g", "CLAUDE_PROJECT_DIR": "/c"}, `{"session_id":"s","hook_event_name":"AfterAgent","cwd":"/w"}`, "/c"},
		{"codex", nil, `{"session_id":"s","turn_id":"t","model":"m","hook_event_name":"Stop","cwd":"/w"}`, "/w"},
		{"cursor", nil, `{"conversation_id":"s","hook_event_name":"stop","workspace_roots":["/r1","/r2"]}`, "/r1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := gate.Env{Getenv: func(k string) string {
				if k == "HOME" {
					return dir
				}
				return tt.env[k]
			}, Now: time.Now}
			var stderr bytes.Buffer
			rep, err := gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{DryRun: true, StateDir: filepath.Join(dir, "state")}, env, []byte(tt.event), &stderr)
			require.NoError(t, err)
			assert.Equal(t, tt.want, rep.ProjectDir)
		})
	}
}

// recordedEvent reads a recorded event of testdata/events, with its
// transcript path replaced.
func recordedEvent(t *testing.T, file, transcript, cwd string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "events", file))
	require.NoError(t, err)
	var ev map[string]any
	require.NoError(t, json.Unmarshal(data, &ev))
	for _, k := range []string{"transcript_path", "transcriptPath"} {
		if _, ok := ev[k]; ok {
			ev[k] = transcript
		}
	}
	ev["cwd"] = cwd
	out, err := json.Marshal(ev)
	require.NoError(t, err)
	return out
}

// TestRecordedTurns: the stops the real Gemini CLI and Copilot CLI sent,
// counted per turn. Gemini's turn is the chat record of the person's
// prompt: its stop_hook_active is false again after a continuation that
// ran a tool, and the same prompt typed again has the same text.
// Copilot's turn starts at a stop whose stop_hook_active is false, and a
// subagent's own agentStop (whose block Copilot ignores) is not counted
// beside the subagentStop that follows it.
func TestRecordedTurns(t *testing.T) {
	chat, err := os.ReadFile("../../testdata/events/gemini/chat-write-todos.jsonl")
	require.NoError(t, err)
	again := `{"id":"second-prompt","type":"user","content":[{"text":"Write DONE.txt"}]}` + "\n"
	type st struct {
		file      string
		appendNew bool // the person typed the same prompt again first
		kind      gate.Kind
		blocks    int
	}
	tests := []struct {
		name  string
		chat  bool // the chat file is there
		steps []st
	}{
		{"gemini, the chat file read", true, []st{
			{"gemini/afteragent-first.json", false, gate.KindBlocked, 1},
			{"gemini/afteragent-after-deny.json", false, gate.KindBlocked, 2},
			{"gemini/afteragent-after-deny-and-tool.json", false, gate.KindLetGo, 2},
			{"gemini/afteragent-allowed.json", false, gate.KindLetGo, 2},
			{"gemini/afteragent-resumed-same-prompt.json", true, gate.KindBlocked, 1},
		}},
		{"gemini, no chat file: the session's count", false, []st{
			{"gemini/afteragent-first.json", false, gate.KindBlocked, 1},
			{"gemini/afteragent-after-deny.json", false, gate.KindBlocked, 2},
			{"gemini/afteragent-after-deny-and-tool.json", false, gate.KindLetGo, 0},
			{"gemini/afteragent-resumed-same-prompt.json", false, gate.KindBlocked, 1},
		}},
		{"copilot", false, []st{
			{"copilot/agentstop-first.json", false, gate.KindBlocked, 1},
			{"copilot/agentstop-after-block.json", false, gate.KindBlocked, 2},
			{"copilot/agentstop-after-block.json", false, gate.KindLetGo, 2},
			{"copilot/subagent-agentstop.json", false, gate.KindDuplicate, 0},
			{"copilot/subagentstop-first.json", false, gate.KindBlocked, 1},
			{"copilot/subagentstop-after-block.json", false, gate.KindBlocked, 2},
			{"copilot/agentstop-second-prompt.json", false, gate.KindBlocked, 1},
			// A turn cut short: the next prompt starts over.
			{"copilot/agentstop-second-prompt.json", false, gate.KindBlocked, 1},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "cfg.json")
			require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"files","paths":["a"],"on":["stop","subagent_stop"]}],"limits":{"max_blocks":2}}`), 0o644))
			transcript := filepath.Join(dir, "chat.jsonl")
			if tt.chat {
				require.NoError(t, os.WriteFile(transcript, chat, 0o644))
			}
			opts := gate.Options{ConfigPath: cfg, StateDir: filepath.Join(dir, "state")}
			env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
			for i, s := range tt.steps {
				if s.appendNew {
					f, err := os.OpenFile(transcript, os.O_APPEND|os.O_WRONLY, 0)
					require.NoError(t, err)
					_, err = f.WriteString(again)
					require.NoError(t, err)
					require.NoError(t, f.Close())
				}
				var stderr bytes.Buffer
				rep, err := gate.Evaluate(context.Background(), gate.StopHookName, opts, env, recordedEvent(t, s.file, transcript, dir), &stderr)
				require.NoError(t, err, "step %d", i)
				assert.Equal(t, s.kind, rep.Decision.Kind, "step %d (%s): %s", i, s.file, stderr.String())
				assert.Equal(t, s.blocks, rep.Decision.Blocks, "step %d (%s)", i, s.file)
				if s.kind == gate.KindDuplicate || s.kind == gate.KindUnchecked {
					assert.Equal(t, "{}\n", string(rep.Answer))
				}
			}
		})
	}
}

// closer explain --last replays the Cursor stop that was let go: it says
// so (the turn's spent count is kept under the turn), and is not taken
// for a duplicate of the hook's own run of that stop.
func TestCursorExplainLetGo(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"files","paths":["a"]}],"limits":{"max_blocks":1}}`), 0o644))
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
	stop := func(gen, loop string) []byte {
		return []byte(`{"conversation_id":"s","generation_id":"` + gen + `","hook_event_name":"stop","workspace_roots":["` + jsonText(dir) + `"],"loop_count":` + loop + `}`)
	}
	for i, s := range []struct {
		event []byte
		dry   bool
		kind  gate.Kind
	}{
		{stop("g0", "0"), false, gate.KindBlocked},
		{stop("g1", "1"), false, gate.KindLetGo},
		{stop("g1", "1"), true, gate.KindLetGo},
		{stop("g0", "0"), true, gate.KindLetGo},
	} {
		var stderr bytes.Buffer
		rep, err := gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{ConfigPath: cfg, StateDir: filepath.Join(dir, "state"), DryRun: s.dry}, env, s.event, &stderr)
		require.NoError(t, err)
		assert.Equal(t, s.kind, rep.Decision.Kind, "step %d: %s", i, stderr.String())
	}
}

// Qwen Code waits 60 s for a hook's answer whatever the entry's timeout
// (measured with 0.24.4: "Request timed out waiting for
// hook-execution-response", the CLI then exits 1): a Qwen stop gets at
// most qwenBudget of limits.budget, and the agent is told the check ran
// out of it. The budget is cut to 1 s here; the command sleeps 10 s.
func TestQwenStopAnswersWithinItsHookDeadline(t *testing.T) {
	gate.SetQwenBudget(t, time.Second)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"checkers":[{"type":"test","command":"`+sleep10+`","cache":false}]}`), 0o644))
	state := filepath.Join(dir, "state")
	_, err := gate.Allow(state, dir, config.Lookup{Flag: cfg, ProjectDir: dir}, "test", time.Now())
	require.NoError(t, err)
	opts := gate.Options{ConfigPath: cfg, StateDir: state}
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": dir}[k] }, Now: time.Now}
	event := `{"session_id":"q","transcript_path":"` + jsonText(dir) + `/.qwen/projects/p/chats/q.jsonl","cwd":"` + jsonText(dir) + `","hook_event_name":"Stop","prompt_id":"q########0","stop_hook_active":false}`
	var stderr bytes.Buffer
	start := time.Now()
	rep, err := gate.Evaluate(context.Background(), gate.StopHookName, opts, env, []byte(event), &stderr)
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 8*time.Second, "the check is cut at the budget, not run out")
	assert.Contains(t, stderr.String(), "Qwen Code waits 60 s for a hook: limits.budget 9m0s is cut to 1s")
	assert.Equal(t, gate.KindBlocked, rep.Decision.Kind)
	assert.Contains(t, rep.Verdict.Reason, "budget")
}

// sleep10 is a test command that takes 10 s, as the system's shell runs
// it (cmd.exe on Windows, which has no sleep).
var sleep10 = map[bool]string{false: "sleep 10", true: "ping -n 11 127.0.0.1"}[runtime.GOOS == "windows"]
