package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
)

// hostFixture is a plan fixture of package transcript's testdata.
func hostFixture(name string) string { return filepath.Join("..", "transcript", "testdata", name) }

// TestPlanOnEachHost: the plan checker reads each host's plan where the
// host keeps it, names the host's tool in its feedback, and finds no plan
// a normal state on every host, never a Claude reader on a foreign file.
func TestPlanOnEachHost(t *testing.T) {
	// A Qwen dir as Qwen Code lays it out: the transcript under
	// projects/, the todos beside it.
	qwen := filepath.Join(t.TempDir(), ".qwen")
	qwenTranscript := filepath.Join(qwen, "projects", "-home-user-proj", "chats", "s1.jsonl")
	require.NoError(t, os.MkdirAll(filepath.Join(qwen, "todos"), 0o755))
	for name, sess := range map[string]string{"open": "s1", "done": "s2"} {
		data, err := os.ReadFile(hostFixture("qwen/todos/" + name + ".json"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(qwen, "todos", sess+".json"), data, 0o644))
	}
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".qwen", "todos"), 0o755))
	data, err := os.ReadFile(hostFixture("qwen/todos/open.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(home, ".qwen", "todos", "s3.json"), data, 0o644))

	const prefix = "Please either complete all remaining tasks or update the plan "
	const rest = "to remove tasks that are no longer needed before producing output: "
	tests := []struct {
		name     string
		ev       hookio.Event
		home     string
		reason   checkers.StopReason
		complete bool
		feedback string
		wantErr  string
	}{
		{
			name:     "codex: an open update_plan holds the agent",
			ev:       hookio.Event{Host: hookio.HostCodex, HookEventName: "Stop", SessionID: "c1", TranscriptPath: hostFixture("codex/open.jsonl")},
			feedback: "You have 2 incomplete task(s) out of 2. " + prefix + "with update_plan " + rest + "Write DONE.txt, Report back",
		},
		{
			name:     "codex: a completed plan",
			ev:       hookio.Event{Host: hookio.HostCodex, HookEventName: "Stop", SessionID: "c1", TranscriptPath: hostFixture("codex/done.jsonl")},
			complete: true,
			feedback: "All 2 task(s) in the plan (update_plan) are completed.",
		},
		{
			name:     "codex: an open goal holds the agent though the plan is done",
			ev:       hookio.Event{Host: hookio.HostCodex, HookEventName: "Stop", SessionID: "c1", TranscriptPath: hostFixture("codex/goal-open.jsonl")},
			feedback: "You have 1 incomplete task(s) out of 3. " + prefix + "with update_plan " + rest + "goal: Make every test in ./... pass",
		},
		{
			name:     "codex: no plan tool is a normal state",
			ev:       hookio.Event{Host: hookio.HostCodex, HookEventName: "Stop", SessionID: "c1", TranscriptPath: hostFixture("codex/no-plan.jsonl")},
			complete: true,
			feedback: "No plan to check (the agent made no update_plan call).",
		},
		{
			name:    "codex: a compressed rollout says what is not read",
			ev:      hookio.Event{Host: hookio.HostCodex, HookEventName: "Stop", SessionID: "c1", TranscriptPath: tempFile(t, "rollout.jsonl.zst", "\x28\xb5\x2f\xfd")},
			wantErr: "zstd-compressed; donegate reads plain JSONL rollouts only: the plan (update_plan) and goal in it are not read",
		},
		{
			name:     "a Codex rollout is not read as a Claude transcript",
			ev:       hookio.Event{Host: hookio.HostClaude, HookEventName: "Stop", SessionID: "c1", TranscriptPath: hostFixture("codex/open.jsonl")},
			complete: true,
			feedback: "No plan to check.",
		},
		{
			name:     "gemini: open todos",
			ev:       hookio.Event{Host: hookio.HostGemini, HookEventName: "Stop", SessionID: "g1", TranscriptPath: hostFixture("gemini/open.jsonl")},
			feedback: "You have 2 incomplete task(s) out of 2. " + prefix + "with write_todos " + rest + "Write DONE.txt, Report back",
		},
		{
			name:     "gemini: blocked is open, cancelled closed",
			ev:       hookio.Event{Host: hookio.HostGemini, HookEventName: "Stop", SessionID: "g1", TranscriptPath: hostFixture("gemini/blocked.jsonl")},
			feedback: "You have 1 incomplete task(s) out of 3. " + prefix + "with write_todos " + rest + "Report back",
		},
		{
			name:     "gemini: done",
			ev:       hookio.Event{Host: hookio.HostGemini, HookEventName: "Stop", SessionID: "g1", TranscriptPath: hostFixture("gemini/done.jsonl")},
			complete: true,
			feedback: "All 2 task(s) in the todo list (write_todos) are completed.",
		},
		{
			name:     "gemini: no plan tool",
			ev:       hookio.Event{Host: hookio.HostGemini, HookEventName: "Stop", SessionID: "g1", TranscriptPath: hostFixture("gemini/no-plan.jsonl")},
			complete: true,
			feedback: "No plan to check (the agent made no write_todos call).",
		},
		{
			name:     "qwen: the todo file beside the transcript's projects/",
			ev:       hookio.Event{Host: hookio.HostQwen, HookEventName: "Stop", SessionID: "s1", TranscriptPath: qwenTranscript},
			feedback: "You have 2 incomplete task(s) out of 2. " + prefix + "with todo_write " + rest + "Write DONE.txt, Report back",
		},
		{
			name:     "qwen: done",
			ev:       hookio.Event{Host: hookio.HostQwen, HookEventName: "Stop", SessionID: "s2", TranscriptPath: qwenTranscript},
			complete: true,
			feedback: "All 2 task(s) in the todo list (todo_write) are completed.",
		},
		{
			name:     "qwen: a subagent is not held on the main agent's todos",
			ev:       hookio.Event{Host: hookio.HostQwen, HookEventName: "SubagentStop", SessionID: "s1", TranscriptPath: qwenTranscript},
			reason:   checkers.ReasonSubagentStop,
			complete: true,
			feedback: "No plan to check (the agent made no todo_write call).",
		},
		{
			name:     "codex: a subagent with no rollout of its own has no plan",
			ev:       hookio.Event{Host: hookio.HostCodex, HookEventName: "SubagentStop", SessionID: "c1", TranscriptPath: hostFixture("codex/open.jsonl")},
			reason:   checkers.ReasonSubagentStop,
			complete: true,
			feedback: "No plan to check (the agent made no update_plan call).",
		},
		{
			name:     "qwen: no todo file",
			ev:       hookio.Event{Host: hookio.HostQwen, HookEventName: "Stop", SessionID: "s9", TranscriptPath: qwenTranscript},
			complete: true,
			feedback: "No plan to check (the agent made no todo_write call).",
		},
		{
			name:     "qwen: no projects/ in the transcript path: the home's .qwen",
			ev:       hookio.Event{Host: hookio.HostQwen, HookEventName: "Stop", SessionID: "s3", TranscriptPath: "/tmp/elsewhere/s3.jsonl"},
			home:     home,
			feedback: "You have 2 incomplete task(s) out of 2. " + prefix + "with todo_write " + rest + "Write DONE.txt, Report back",
		},
		{
			name:     "qwen: an unsafe session id never reaches the file system",
			ev:       hookio.Event{Host: hookio.HostQwen, HookEventName: "Stop", SessionID: "../todos/s1", TranscriptPath: qwenTranscript},
			complete: true,
			feedback: "No plan to check (the agent made no todo_write call).",
		},
		{
			name:     "copilot: open todos in session.db beside the transcript",
			ev:       hookio.Event{Host: hookio.HostCopilot, HookEventName: "Stop", SessionID: "p1", TranscriptPath: copilotSession(t, "session-open.db")},
			feedback: "You have 2 incomplete task(s) out of 2. " + prefix + "with sql " + rest + "Writing DONE.txt, Reporting back",
		},
		{
			name:     "copilot: done",
			ev:       hookio.Event{Host: hookio.HostCopilot, HookEventName: "Stop", SessionID: "p1", TranscriptPath: copilotSession(t, "session-done.db")},
			complete: true,
			feedback: "All 2 task(s) in the todos table (session.db) are completed.",
		},
		{
			name:     "copilot: no session.db",
			ev:       hookio.Event{Host: hookio.HostCopilot, HookEventName: "Stop", SessionID: "p1", TranscriptPath: copilotSession(t, "")},
			complete: true,
			feedback: "No plan to check (no todo in the session's session.db).",
		},
		{
			name:     "copilot: a subagent is not held by the main agent's todos",
			ev:       hookio.Event{Host: hookio.HostCopilot, HookEventName: "SubagentStop", AgentID: "general-purpose", SessionID: "p1", TranscriptPath: copilotSession(t, "session-open.db")},
			reason:   checkers.ReasonSubagentStop,
			complete: true,
			feedback: "No plan to check (no todo in the session's session.db).",
		},
		{
			name:    "copilot: a FIFO for session.db is refused without blocking",
			ev:      hookio.Event{Host: hookio.HostCopilot, HookEventName: "Stop", SessionID: "p1", TranscriptPath: copilotFIFO(t)},
			wantErr: "session.db: not a regular file (a FIFO)",
		},
		{
			name: "opencode: an open todo holds the agent",
			ev: hookio.Event{Host: hookio.HostOpenCode, HookEventName: "Stop", Todos: []hookio.Todo{
				{Content: "Write the tests", Status: "completed"}, {Content: "Implement it", Status: "in_progress"}, {Content: "Ship", Status: "pending"}}},
			feedback: "You have 2 incomplete task(s) out of 3. " + prefix + "with todowrite " + rest + "Implement it, Ship",
		},
		{
			name: "opencode: a cancelled todo counts as done",
			ev: hookio.Event{Host: hookio.HostOpenCode, HookEventName: "Stop", Todos: []hookio.Todo{
				{Content: "Write the tests", Status: "completed"}, {Content: "Try another way", Status: "cancelled"}}},
			complete: true,
			feedback: "All 2 task(s) in the todo list (todowrite) are completed.",
		},
		{
			name:     "opencode: an empty todo list is no plan",
			ev:       hookio.Event{Host: hookio.HostOpenCode, HookEventName: "Stop", Todos: []hookio.Todo{}},
			complete: true,
			feedback: "No plan to check (the agent made no todowrite call).",
		},
		{
			name:     "opencode: no todo list sent",
			ev:       hookio.Event{Host: hookio.HostOpenCode, HookEventName: "Stop"},
			complete: true,
			feedback: "No plan to check (the agent made no todowrite call).",
		},
		{
			name:     "cursor: no plan tool",
			ev:       hookio.Event{Host: hookio.HostCursor, HookEventName: "Stop", SessionID: "x", TranscriptPath: hostFixture("codex/open.jsonl")},
			complete: true,
			feedback: "No plan to check.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := tt.ev
			reason := tt.reason
			if reason == "" {
				reason = checkers.ReasonStop
			}
			c := &checkers.Context{Event: &ev, Getenv: claudeEnv(t.TempDir(), ""), Home: tt.home, Reason: reason}
			r, err := checkers.Plan{}.Check(context.Background(), c)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.complete, r.Complete)
			assert.Equal(t, tt.feedback, r.Feedback)
		})
	}
}

// copilotSession lays out a Copilot session dir with the recorded
// session.db fixture db ("" for none) and returns its transcript path.
func copilotSession(t *testing.T, db string) string {
	t.Helper()
	dir := t.TempDir()
	if db != "" {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "events", "copilot", db))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "session.db"), data, 0o600))
	}
	return filepath.Join(dir, "events.jsonl")
}

// copilotFIFO is a Copilot session dir whose session.db is a FIFO.
func copilotFIFO(t *testing.T) string {
	t.Helper()
	path := copilotSession(t, "")
	fifotest.Make(t, filepath.Join(filepath.Dir(path), "session.db"))
	return path
}

// tempFile writes text to a file called name in a new temporary dir.
func tempFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

// TestCodexPlanKeepsWhereItRead: a Codex session's goal calls are read
// once: the plan checker keeps how far it read them in the session's
// record, reads only what was appended at the next stop, and writes no
// record when read-only (closer explain).
func TestCodexPlanKeepsWhereItRead(t *testing.T) {
	data, err := os.ReadFile(hostFixture("codex/done.jsonl"))
	require.NoError(t, err)
	rollout := tempFile(t, "rollout.jsonl", string(data))
	ev := hookio.Event{Host: hookio.HostCodex, HookEventName: "Stop", SessionID: "c1", TranscriptPath: rollout}
	stateDir := t.TempDir()
	check := func(readOnly bool) checkers.Result {
		r, err := checkers.Plan{}.Check(context.Background(), &checkers.Context{Event: &ev, Reason: checkers.ReasonStop, StateDir: stateDir, ReadOnly: readOnly})
		require.NoError(t, err)
		return r
	}
	record := func() map[string]any {
		sess, err := state.Store{Dir: stateDir}.Peek("c1")
		require.NoError(t, err)
		var rec map[string]any
		sess.Get("plan", &rec)
		return rec
	}

	assert.True(t, check(true).Complete)
	assert.Nil(t, record(), "read-only: nothing recorded")
	assert.True(t, check(false).Complete)
	rec := record()
	require.NotNil(t, rec)
	assert.Equal(t, rollout, rec["transcript"])
	assert.EqualValues(t, len(data), rec["offset"])

	f, err := os.OpenFile(rollout, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"timestamp":"2026-11-24T16:50:00.000Z","type":"response_item","payload":{"type":"function_call","name":"create_goal","arguments":"{\"objective\": \"Ship it\"}","call_id":"call_g"}}` + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	r := check(false)
	assert.False(t, r.Complete)
	assert.Contains(t, r.Feedback, "goal: Ship it")
	assert.Equal(t, "active", record()["state"])
}

// TestPlanGeminiTaskTracker: where Gemini's task tracker holds tasks for
// the session (beside its chat file), they are the plan, named with the
// tracker's tool; a closed task is done; without any, the write_todos
// calls of the chat file are; a session id that could lead outside the
// tracker dir reads no tracker; a task file that cannot be read is open.
func TestPlanGeminiTaskTracker(t *testing.T) {
	const prefix = "Please either complete all remaining tasks or update the plan "
	const rest = "to remove tasks that are no longer needed before producing output: "
	layout := func(t *testing.T, sessionID string, tasks map[string]string) string {
		t.Helper()
		proj := filepath.Join(t.TempDir(), ".gemini", "tmp", "project")
		require.NoError(t, os.MkdirAll(filepath.Join(proj, "chats"), 0o755))
		chat := filepath.Join(proj, "chats", "session-2026-11-27T08-00-g1.jsonl")
		data, err := os.ReadFile(hostFixture("gemini/open.jsonl"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(chat, data, 0o600))
		if tasks != nil {
			dir := filepath.Join(proj, sessionID, "tracker")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			for id, body := range tasks {
				if body == "fifo" {
					fifotest.Make(t, filepath.Join(dir, id+".json"))
					continue
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, id+".json"), []byte(body), 0o600))
			}
		}
		return chat
	}
	task := func(title, status string) string {
		return `{"id":"x","title":"` + title + `","description":"d","type":"task","status":"` + status + `","dependencies":[]}`
	}
	tests := []struct {
		name      string
		sessionID string
		tasks     map[string]string
		complete  bool
		feedback  string
	}{
		{"open tracker tasks hold the agent", "g1",
			map[string]string{"0a0a0a": task("Write DONE.txt", "in_progress"), "1b1b1b": task("Report back", "closed"), "2c2c2c": task("Ship", "blocked")}, false,
			"You have 2 incomplete task(s) out of 3. " + prefix + "with tracker_update_task " + rest + "Write DONE.txt, Ship"},
		{"every tracker task closed", "g1",
			map[string]string{"0a0a0a": task("Write DONE.txt", "closed")}, true,
			"All 1 task(s) in the task tracker (tracker_update_task) are completed."},
		{"no tracker: the write_todos calls", "g1", nil, false,
			"You have 2 incomplete task(s) out of 2. " + prefix + "with write_todos " + rest + "Write DONE.txt, Report back"},
		{"an empty tracker dir: the write_todos calls", "g1", map[string]string{}, false,
			"You have 2 incomplete task(s) out of 2. " + prefix + "with write_todos " + rest + "Write DONE.txt, Report back"},
		{"a session id that leads elsewhere reads no tracker", "..",
			map[string]string{"0a0a0a": task("Not this", "open")}, false,
			"You have 2 incomplete task(s) out of 2. " + prefix + "with write_todos " + rest + "Write DONE.txt, Report back"},
		{"a FIFO task file is an open item", "g1",
			map[string]string{"0a0a0a": "fifo", "1b1b1b": task("Report back", "closed")}, false,
			"You have 1 incomplete task(s) out of 2. " + prefix + "with tracker_update_task " + rest + "tracker task file 0a0a0a.json (unreadable: not a regular file (a FIFO))"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chat := layout(t, tt.sessionID, tt.tasks)
			ev := hookio.Event{Host: hookio.HostGemini, HookEventName: "Stop", SessionID: tt.sessionID, TranscriptPath: chat}
			c := &checkers.Context{Event: &ev, Getenv: claudeEnv(t.TempDir(), ""), Home: t.TempDir(), Reason: checkers.ReasonStop}
			r, err := checkers.Plan{}.Check(context.Background(), c)
			require.NoError(t, err)
			assert.Equal(t, tt.complete, r.Complete)
			assert.Equal(t, tt.feedback, r.Feedback)
		})
	}
}
