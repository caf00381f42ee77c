package gate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/donegate/donegate/internal/gate"
)

// BenchmarkHostStop is what a stop costs in-process (a dry run: no state
// written), on Codex's and Gemini's events with a 300 KB session record
// whose plan is open, beside Claude Code's: hookbench has the process
// level, where these costs hide in the start-up's noise.
func BenchmarkHostStop(b *testing.B) {
	dir := b.TempDir()
	home := filepath.Join(dir, "home")
	write := func(p, line, last string) {
		var sb strings.Builder
		for sb.Len() < 300<<10 {
			sb.WriteString(line + "\n")
		}
		sb.WriteString(last + "\n")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(sb.String()), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	todos := `{"todos":[{"content":"Write DONE.txt","status":"in_progress","activeForm":"Writing"}]}`
	transcript := filepath.Join(home, ".claude", "projects", "-p", "s.jsonl")
	write(transcript, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"`+strings.Repeat("ok  \\tgithub.com/example/pkg\\t0.123s\\n", 40)+`"}]}}`,
		`{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t9","name":"TodoWrite","input":`+todos+`}]}}`)
	rollout := filepath.Join(home, ".codex", "sessions", "rollout-x.jsonl")
	plan, _ := json.Marshal(`{"explanation":"two steps","plan":[{"step":"Write DONE.txt","status":"in_progress"},{"step":"Report back","status":"pending"}]}`)
	write(rollout, `{"timestamp":"2026-11-24T16:49:50.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_1","output":"`+strings.Repeat("ok  \\tgithub.com/example/pkg\\t0.123s\\n", 40)+`"}}`,
		`{"timestamp":"2026-11-24T16:49:59.000Z","type":"response_item","payload":{"type":"function_call","status":"completed","name":"update_plan","arguments":`+string(plan)+`,"call_id":"call_9"}}`)
	chat := filepath.Join(home, ".gemini", "tmp", "b", "chats", "session-x.jsonl")
	write(chat, `{"id":"m","timestamp":"2026-11-24T16:57:50.000Z","type":"gemini","content":"`+strings.Repeat("lorem ipsum ", 100)+`"}`,
		`{"id":"t","timestamp":"2026-11-24T16:57:53.000Z","type":"gemini","content":"","toolCalls":[{"id":"write_todos-1","name":"write_todos","args":{"todos":[{"description":"Write DONE.txt","status":"in_progress"}]},"status":"success"}]}`)
	events := []struct{ name, event string }{
		{"claude", fmt.Sprintf(`{"session_id":"s","prompt_id":"p","transcript_path":%q,"cwd":%q,"hook_event_name":"Stop","stop_hook_active":false}`, transcript, dir)},
		{"codex", fmt.Sprintf(`{"session_id":"c","turn_id":"t","transcript_path":%q,"cwd":%q,"hook_event_name":"Stop","model":"m","stop_hook_active":false}`, rollout, dir)},
		{"gemini", fmt.Sprintf(`{"session_id":"g","transcript_path":%q,"cwd":%q,"hook_event_name":"AfterAgent","prompt":"Write DONE.txt","prompt_response":"I am done.","stop_hook_active":false}`, chat, dir)},
	}
	env := gate.Env{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }, Now: time.Now}
	for _, e := range events {
		b.Run(e.name, func(b *testing.B) {
			for range b.N {
				var stderr bytes.Buffer
				rep, err := gate.Evaluate(context.Background(), gate.StopHookName, gate.Options{StateDir: filepath.Join(dir, "state"), DryRun: true}, env, []byte(e.event), &stderr)
				if err != nil {
					b.Fatal(err)
				}
				if rep.Decision.Kind != gate.KindBlocked {
					b.Fatalf("%s: %s (%s)", e.name, rep.Decision.Kind, stderr.String())
				}
			}
		})
	}
}
