package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// hostRow is the case of one host's end-of-turn event and its row.
type hostRow struct {
	*bcase
	what string
}

// hostCases are stop-hook on each other host's end-of-turn event, as the
// host sends it, with a session record of about 300 KB in the host's own
// format whose plan (where the host has one) is open: what every stop of
// an agent on that host costs with the embedded default.
func hostCases(work, bin string, env []string, project string) ([]hostRow, error) {
	home := filepath.Join(work, "hosts")
	rollout := filepath.Join(home, ".codex", "sessions", "2026", "11", "24", "rollout-2026-11-24T16-49-41-bench-codex.jsonl")
	qwenChat := filepath.Join(home, ".qwen", "projects", "-bench", "chats", "bench-qwen.jsonl")
	qwenTodos := filepath.Join(home, ".qwen", "todos", "bench-qwen.json")
	geminiChat := filepath.Join(home, ".gemini", "tmp", "bench", "chats", "session-2026-11-24T16-57-bench.jsonl")
	copilotEvents := filepath.Join(home, ".copilot", "session-state", "bench-copilot", "events.jsonl")
	cursorTranscript := filepath.Join(home, ".cursor", "projects", "bench", "agent-transcripts", "bench-cursor.txt")

	plan := `{"explanation":"two steps","plan":[{"step":"Write DONE.txt","status":"in_progress"},{"step":"Report back","status":"pending"}]}`
	planArgs, _ := json.Marshal(plan)
	files := []struct {
		path       string
		line, last string
	}{
		{rollout,
			`{"timestamp":"2026-11-24T16:49:50.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"` + strings.Repeat("ok  \\tgithub.com/example/pkg\\t0.123s\\n", 40) + `"}}`,
			`{"timestamp":"2026-11-24T16:49:59.000Z","type":"response_item","payload":{"type":"function_call","status":"completed","name":"update_plan","arguments":` + string(planArgs) + `,"call_id":"call_9"}}`},
		{qwenChat,
			`{"uuid":"u","type":"assistant","message":{"role":"model","parts":[{"text":"` + strings.Repeat("lorem ipsum ", 100) + `"}]}}`,
			`{"uuid":"v","type":"assistant","message":{"role":"model","parts":[{"text":"I am done."}]}}`},
		{qwenTodos, "",
			`{"planId":"p","todos":[{"id":"1","content":"Write DONE.txt","status":"in_progress"},{"id":"2","content":"Report back","status":"pending"}]}`},
		// A turn's records follow the record of its prompt, as Gemini CLI
		// writes them (testdata/events/gemini/chat-write-todos.jsonl): the
		// stop's search for its turn ends there.
		{geminiChat,
			`{"id":"m","timestamp":"2026-11-24T16:57:50.000Z","type":"gemini","content":"` + strings.Repeat("lorem ipsum ", 100) + `"}`,
			`{"id":"u","timestamp":"2026-11-24T16:57:51.000Z","type":"user","content":[{"text":"Write DONE.txt"}]}` + "\n" +
				`{"id":"t","timestamp":"2026-11-24T16:57:53.000Z","type":"gemini","content":"","toolCalls":[{"id":"write_todos-1","name":"write_todos","args":{"todos":[{"description":"Write DONE.txt","status":"in_progress"},{"description":"Report back","status":"pending"}]},"status":"success"}]}`},
		{copilotEvents,
			`{"type":"assistant.message","data":{"content":"` + strings.Repeat("lorem ipsum ", 100) + `"},"timestamp":"2026-11-24T17:00:00.000Z"}`,
			`{"type":"assistant.message","data":{"content":"I am done."},"timestamp":"2026-11-24T17:00:09.000Z"}`},
		{cursorTranscript, "user: " + strings.Repeat("lorem ipsum ", 100), "assistant: I am done."},
	}
	for _, f := range files {
		if err := writeRecord(f.path, f.line, f.last, 300<<10); err != nil {
			return nil, err
		}
	}
	// expect is what the answer must hold: the open plan (in a block, or
	// once max_blocks is spent in the let-go), where the host has a plan
	// donegate reads.
	events := []struct {
		name, what, expect string
		event              map[string]any
	}{
		{"codex", "stop-hook, Codex CLI Stop, 300 KB rollout", "2 incomplete task(s) out of 2", map[string]any{
			"session_id": "bench-codex", "turn_id": "bench-turn", "transcript_path": rollout, "cwd": project,
			"hook_event_name": "Stop", "model": "gpt-5", "permission_mode": "default", "stop_hook_active": false,
			"last_assistant_message": "I am done."}},
		{"qwen", "stop-hook, Qwen Code Stop, 300 KB chat and its todos", "2 incomplete task(s) out of 2", map[string]any{
			"session_id": "bench-qwen", "transcript_path": qwenChat, "cwd": project, "hook_event_name": "Stop",
			"timestamp": "2026-11-24T17:02:11.120Z", "stop_hook_active": false, "last_assistant_message": "I am done.",
			"context_usage": 0.02, "context_limit": 131072, "input_tokens": 2710}},
		{"gemini", "stop-hook, Gemini CLI AfterAgent, 300 KB chat", "2 incomplete task(s) out of 2", map[string]any{
			"session_id": "bench-gemini", "transcript_path": geminiChat, "cwd": project, "hook_event_name": "AfterAgent",
			"timestamp": "2026-11-24T16:57:54.725Z", "prompt": "Write DONE.txt", "prompt_response": "I am done.",
			"stop_hook_active": false}},
		// No session.db beside events.jsonl: no plan, and no test command
		// in the project, so the stop passes.
		{"copilot", "stop-hook, Copilot CLI agentStop, 300 KB events.jsonl, no session.db", "{}", map[string]any{
			"sessionId": "bench-copilot", "timestamp": 1795539630056, "cwd": project, "transcriptPath": copilotEvents,
			"stopReason": "end_turn", "stop_hook_active": false}},
		{"cursor", "stop-hook, Cursor stop (a new generation each run), 300 KB transcript", "{}", map[string]any{
			"conversation_id": "bench-cursor", "generation_id": "gen-" + runMark, "hook_event_name": "stop",
			"cursor_version": "2.1.40", "workspace_roots": []string{project}, "transcript_path": cursorTranscript,
			"status": "completed", "loop_count": 0, "model": "claude-sonnet-4.5"}},
	}
	hostEnv := append([]string{}, env...)
	for i, kv := range hostEnv {
		if strings.HasPrefix(kv, "HOME=") {
			hostEnv[i] = "HOME=" + home
		}
	}
	var rows []hostRow
	for _, e := range events {
		data, err := json.Marshal(e.event)
		if err != nil {
			return nil, err
		}
		rows = append(rows, hostRow{
			bcase: &bcase{name: "host-" + e.name, argv: []string{filepath.Join(bin, "stop-hook"), "--state-dir", filepath.Join(work, "state-host-"+e.name)},
				stdin: data, env: hostEnv, dir: project, expect: e.expect},
			what: e.what,
		})
	}
	return rows, nil
}

// writeRecord writes about size bytes of line (none when line is empty),
// then last.
func writeRecord(path, line, last string, size int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	var n int64
	for line != "" && n < size {
		k, _ := fmt.Fprintln(w, line)
		n += int64(k)
	}
	fmt.Fprintln(w, last)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
