package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// codexCallLine is a rollout line of a function call, arguments given as
// the JSON text the model wrote (a JSON string in the line).
func codexCallLine(name, args string) string {
	a, _ := json.Marshal(args)
	return fmt.Sprintf(`{"timestamp":"2026-11-24T16:49:49.000Z","ordinal":9,"type":"response_item","payload":{"type":"function_call","status":"completed","name":%q,"arguments":%s,"call_id":"call_1"}}`, name, a)
}

func codexPlanLine(statuses ...string) string {
	var steps []string
	for i, s := range statuses {
		steps = append(steps, fmt.Sprintf(`{"step": "Step %d", "status": %q}`, i+1, s))
	}
	return codexCallLine("update_plan", `{"explanation": "x", "plan": [`+strings.Join(steps, ", ")+`]}`)
}

const codexText = `{"timestamp":"2026-11-24T16:49:50.000Z","ordinal":12,"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello."}]}}`

func TestCodexPlan(t *testing.T) {
	open, done := codexPlanLine("in_progress", "pending"), codexPlanLine("completed", "completed")
	goal := codexCallLine("create_goal", `{"objective": "Ship it"}`)
	runHostCases(t, "rollout.jsonl", []hostCase{
		{name: "missing file is no plan"},
		{name: "recorded: open plan", fixture: "codex/open.jsonl", want: "Write DONE.txt=in_progress,Report back=pending", found: true},
		{name: "recorded: the latest call wins", fixture: "codex/done.jsonl", want: "Write DONE.txt=completed,Report back=completed", found: true},
		{name: "recorded: no plan tool", fixture: "codex/no-plan.jsonl"},
		{name: "recorded: a goal set and not closed is open", fixture: "codex/goal-open.jsonl", want: "Write DONE.txt=completed,Report back=completed,goal: Make every test in ./... pass=active", found: true},
		{name: "recorded: a goal marked complete", fixture: "codex/goal-done.jsonl", want: "Write DONE.txt=completed,Report back=completed,the goal set with create_goal=completed", found: true},
		{name: "symlink to a rollout is read", kind: "symlink", fixture: "codex/open.jsonl", want: "Write DONE.txt=in_progress,Report back=pending", found: true},
		{name: "a goal alone is a plan", lines: []string{goal, codexText}, want: "goal: Ship it=active", found: true},
		{name: "blocked goal stays open", lines: []string{goal, codexCallLine("update_goal", `{"status": "blocked"}`)}, want: "goal: Ship it=blocked", found: true},
		{name: "a status update_goal refuses changes nothing", lines: []string{goal, codexCallLine("update_goal", `{"status": "paused"}`)}, want: "goal: Ship it=active", found: true},
		{name: "completed goal without its create_goal", lines: []string{codexCallLine("update_goal", `{"status": "complete"}`)}, want: "the goal set with create_goal=completed", found: true},
		{name: "create_goal without an objective was refused", lines: []string{codexCallLine("create_goal", `{"objective": "  "}`)}},
		{name: "arguments that are not JSON were refused: the earlier call counts", lines: []string{done, codexCallLine("update_plan", `{"plan": [`)}, want: "Step 1=completed,Step 2=completed", found: true},
		{name: "arguments not a JSON string", lines: []string{done, `{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":{"plan":[{"step":"x","status":"pending"}]}}}`}, want: "Step 1=completed,Step 2=completed", found: true},
		{name: "a plan that is not an array was refused", lines: []string{open, codexCallLine("update_plan", `{"plan": "all done"}`)}, want: "Step 1=in_progress,Step 2=pending", found: true},
		{name: "arguments nested past the bound are skipped", lines: []string{done, codexCallLine("update_plan", `{"plan": [], "x": `+strings.Repeat("[", MaxLineDepth)+strings.Repeat("]", MaxLineDepth)+`}`)}, want: "Step 1=completed,Step 2=completed", found: true},
		{name: "the name in a message is not a call", lines: []string{open, `{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"\"update_plan\""}]}}`}, want: "Step 1=in_progress,Step 2=pending", found: true},
		{name: "other line types are not calls", lines: []string{done, `{"type":"event_msg","payload":{"type":"function_call","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"x\",\"status\":\"pending\"}]}"}}`}, want: "Step 1=completed,Step 2=completed", found: true},
		{name: "last line cut short", lines: []string{done, open[:120] + "\x00"}, want: "Step 1=completed,Step 2=completed", found: true},
		{name: "huge line after the plan is skipped whole", lines: []string{open, `{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"` + strings.Repeat("x", MaxLineBytes) + `"}}`}, want: "Step 1=in_progress,Step 2=pending", found: true},
		{name: "compressed by its content", raw: []byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0}, wantErr: "zstd-compressed; donegate reads plain JSONL rollouts only: the plan (update_plan) and goal in it are not read"},
		{name: "directory", kind: "dir", wantErr: "not a regular file (a directory)"},
		{name: "FIFO is refused without blocking", kind: "fifo", wantErr: "not a regular file (a FIFO)"},
	}, CodexPlan)
	runHostCases(t, "rollout.jsonl.zst", []hostCase{
		{name: "compressed by its name", lines: []string{open}, wantErr: "zstd-compressed"},
	}, CodexPlan)
}
