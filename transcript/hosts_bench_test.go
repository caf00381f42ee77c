package transcript_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/donegate/donegate/transcript"
)

// writeRollout writes about size bytes shaped like a Codex rollout: shell
// calls and their outputs (some of 64 KB to 1 MB), reasoning items and
// token counts; with plan set, the agent's latest update_plan call stands
// a few lines before the end, and with goal set, a create_goal beside it.
func writeRollout(b *testing.B, size int, plan, goal bool) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "rollout.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	line := func(typ string, payload any) int {
		p, _ := json.Marshal(payload)
		n, _ := fmt.Fprintf(w, `{"timestamp":"2026-11-24T16:49:41.000Z","type":%q,"payload":%s}`+"\n", typ, p)
		return n
	}
	call := func(name, args, id string) int {
		return line("response_item", map[string]any{"type": "function_call", "name": name, "arguments": args, "call_id": id})
	}
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 40000)
	n := line("session_meta", map[string]any{"id": "01a2", "cwd": "/home/user/proj", "cli_version": "0.169.0"})
	for i := 0; n < size-4096; i++ {
		id := fmt.Sprintf("call_%d", i)
		n += call("shell", `{"command":["bash","-lc","go test ./..."]}`, id)
		out := strings.Repeat("ok pkg 0.1s\n", 100)
		if i%3 == 0 {
			out = pad[:[]int{64 << 10, 256 << 10, 1 << 20}[(i/3)%3]]
		}
		n += line("response_item", map[string]any{"type": "function_call_output", "call_id": id, "output": out})
		n += line("event_msg", map[string]any{"type": "token_count", "info": map[string]int{"total_tokens": i}})
	}
	if goal {
		call("create_goal", `{"objective": "Make every test pass"}`, "call_g")
	}
	if plan {
		call("update_plan", `{"plan": [{"step": "Write tests", "status": "completed"}, {"step": "Implement feature", "status": "pending"}]}`, "call_p")
	}
	line("response_item", map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]string{"type": "output_text", "text": "I am done."}}})
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

func benchCodex(b *testing.B, size int, plan, goal bool) {
	path := writeRollout(b, size, plan, goal)
	if st, _ := os.Stat(path); !goal {
		b.SetBytes(st.Size()) // searched whole for a goal call
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, found, err := transcript.CodexPlan(context.Background(), path)
		if err != nil || found != (plan || goal) {
			b.Fatalf("found=%v err=%v", found, err)
		}
	}
}

// A plan and a goal near the end: the search stops there.
func BenchmarkCodexPlanSmall(b *testing.B) { benchCodex(b, 300<<10, true, true) }

func BenchmarkCodexPlanLarge(b *testing.B) { large(b); benchCodex(b, 256<<20, true, true) }

// A plan and no goal call: the whole rollout is searched for one, as a
// Claude transcript without TodoWrite is.
func BenchmarkCodexPlanNoGoalLarge(b *testing.B) { large(b); benchCodex(b, 256<<20, true, false) }

// writeGeminiChat writes about size bytes shaped like a Gemini CLI chat
// file: gemini messages written twice (the later copy with its
// run_shell_command calls and results, some of 64 KB to 1 MB), user
// messages and $set lines; with plan set, a write_todos call stands a few
// lines before the end.
func writeGeminiChat(b *testing.B, size int, plan bool) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "session.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rec := func(v any) int {
		p, _ := json.Marshal(v)
		n, _ := fmt.Fprintf(w, "%s\n", p)
		return n
	}
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 40000)
	n := rec(map[string]any{"sessionId": "bd9b", "projectHash": "9f8e", "startTime": "2026-11-24T16:57:40.100Z", "kind": "main"})
	for i := 0; n < size-4096; i++ {
		id := fmt.Sprintf("g%d", i)
		n += rec(map[string]any{"id": id, "type": "gemini", "content": ""})
		out := strings.Repeat("ok pkg 0.1s\n", 100)
		if i%3 == 0 {
			out = pad[:[]int{64 << 10, 256 << 10, 1 << 20}[(i/3)%3]]
		}
		n += rec(map[string]any{"id": id, "type": "gemini", "content": "", "toolCalls": []any{map[string]any{
			"id": "run_shell_command-" + id, "name": "run_shell_command", "args": map[string]string{"command": "go test ./..."},
			"result": []any{map[string]any{"functionResponse": map[string]any{"response": map[string]string{"output": out}}}}, "status": "success"}}})
		n += rec(map[string]any{"$set": map[string]string{"lastUpdated": "2026-11-24T16:57:41.000Z"}})
	}
	if plan {
		rec(map[string]any{"id": "gp", "type": "gemini", "content": "", "toolCalls": []any{map[string]any{
			"id": "write_todos-p", "name": "write_todos", "status": "success", "args": map[string]any{"todos": []any{
				map[string]string{"description": "Write tests", "status": "completed"}, map[string]string{"description": "Implement feature", "status": "pending"}}}}}})
	}
	rec(map[string]any{"id": "gz", "type": "gemini", "content": "I am done."})
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

func benchGemini(b *testing.B, size int, plan bool) {
	path := writeGeminiChat(b, size, plan)
	if st, _ := os.Stat(path); !plan {
		b.SetBytes(st.Size())
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, found, err := transcript.GeminiPlan(context.Background(), path)
		if err != nil || found != plan {
			b.Fatalf("found=%v err=%v", found, err)
		}
	}
}

func BenchmarkGeminiPlanSmall(b *testing.B) { benchGemini(b, 300<<10, true) }

func BenchmarkGeminiPlanLarge(b *testing.B) { large(b); benchGemini(b, 256<<20, true) }

func BenchmarkGeminiPlanNone(b *testing.B) { large(b); benchGemini(b, 256<<20, false) }

// BenchmarkCodexPlanNoGoalLargeKept is a later stop of a session without
// a goal: what the goal calls said up to the previous stop is kept (as
// the plan checker keeps it in the session's record), and only a line
// appended since is searched for one.
func BenchmarkCodexPlanNoGoalLargeKept(b *testing.B) {
	large(b)
	path := writeRollout(b, 256<<20, true, false)
	_, _, kept, err := transcript.CodexPlanFrom(context.Background(), path, transcript.CodexGoalState{})
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintln(f, `{"timestamp":"2026-11-24T16:50:00.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Still going."}]}}`)
	f.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, found, next, err := transcript.CodexPlanFrom(context.Background(), path, kept)
		if err != nil || !found || next.Offset <= kept.Offset {
			b.Fatalf("found=%v next=%d kept=%d err=%v", found, next.Offset, kept.Offset, err)
		}
	}
}
