package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// geminiLine is a gemini message record with one write_todos call.
func geminiLine(id, callStatus string, statuses ...string) string {
	var todos []map[string]string
	for i, s := range statuses {
		todos = append(todos, map[string]string{"description": fmt.Sprintf("Step %d", i+1), "status": s})
	}
	call := map[string]any{"id": "write_todos-" + id, "name": "write_todos", "args": map[string]any{"todos": todos}, "status": callStatus}
	b, _ := json.Marshal(map[string]any{"id": id, "type": "gemini", "content": "", "toolCalls": []any{call}})
	return string(b)
}

func TestGeminiPlan(t *testing.T) {
	open, done := geminiLine("a", "success", "in_progress", "pending"), geminiLine("b", "success", "completed")
	runHostCases(t, "session.jsonl", []hostCase{
		{name: "missing file is no plan"},
		{name: "recorded: the later copy of a record adds the call", fixture: "gemini/open.jsonl", want: "Write DONE.txt=in_progress,Report back=pending", found: true},
		{name: "recorded: the latest call wins", fixture: "gemini/done.jsonl", want: "Write DONE.txt=completed,Report back=completed", found: true},
		{name: "recorded: cancelled is closed, blocked open", fixture: "gemini/blocked.jsonl", want: "Write DONE.txt=completed,Try the flaky mirror=completed,Report back=blocked", found: true},
		{name: "recorded: a rewound call no longer counts", fixture: "gemini/rewound.jsonl", want: "Write DONE.txt=in_progress,Report back=pending", found: true},
		{name: "recorded: no plan tool", fixture: "gemini/no-plan.jsonl"},
		{name: "symlink to a chat file is read", kind: "symlink", fixture: "gemini/open.jsonl", want: "Write DONE.txt=in_progress,Report back=pending", found: true},
		{name: "a failed call never became the list", lines: []string{open, geminiLine("b", "error", "completed")}, want: "Step 1=in_progress,Step 2=pending", found: true},
		{name: "a user message naming the tool is not a call", lines: []string{open, `{"id":"u","type":"user","content":[{"text":"call \"write_todos\""}],"toolCalls":[{"name":"write_todos","status":"success","args":{"todos":[]}}]}`}, want: "Step 1=in_progress,Step 2=pending", found: true},
		{name: "todos not an array", lines: []string{open, `{"id":"b","type":"gemini","toolCalls":[{"name":"write_todos","status":"success","args":{"todos":"none"}}]}`}, want: "Step 1=in_progress,Step 2=pending", found: true},
		{name: "the whole list again in a $set line", lines: []string{open, `{"$set":{"messages":[` + done + `,{"id":"c","type":"gemini","content":"ok"}]}}`}, want: "Step 1=completed", found: true},
		{name: "a rewind to a message that is not there drops all", lines: []string{open, `{"$rewindTo":"zzz"}`}},
		{name: "earlier copies of a rewound record are dropped too", lines: []string{geminiLine("a", "success", "pending"), `{"id":"x","type":"user","content":"go on"}`, geminiLine("r", "success", "completed"), geminiLine("r", "success", "completed"), `{"$set":{"lastUpdated":"t"}}`, `{"$rewindTo":"r"}`}, want: "Step 1=pending", found: true},
		{name: "bad JSON line after the plan", lines: []string{open, `{"id":"b","type":"gemini","toolCalls":[{"name":"write_todos"`}, want: "Step 1=in_progress,Step 2=pending", found: true},
		{name: "last line cut short", lines: []string{open, done[:60] + "\x00"}, want: "Step 1=in_progress,Step 2=pending", found: true},
		{name: "line nested past the bound is skipped", lines: []string{open, strings.TrimSuffix(done, "}") + `,"x":` + strings.Repeat("[", MaxLineDepth) + strings.Repeat("]", MaxLineDepth) + `}`}, want: "Step 1=in_progress,Step 2=pending", found: true},
		{name: "huge line after the plan is skipped whole", lines: []string{open, `{"id":"h","type":"gemini","toolCalls":[{"name":"write_todos","status":"success","args":{"todos":[]}}],"x":"` + strings.Repeat("x", MaxLineBytes) + `"}`}, want: "Step 1=in_progress,Step 2=pending", found: true},
		{name: "directory", kind: "dir", wantErr: "not a regular file (a directory)"},
		{name: "FIFO is refused without blocking", kind: "fifo", wantErr: "not a regular file (a FIFO)"},
	}, bg(GeminiPlan))
}
