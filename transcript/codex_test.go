package transcript

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	}, bg(CodexPlan))
	runHostCases(t, "rollout.jsonl.zst", []hostCase{
		{name: "compressed by its name", lines: []string{open}, wantErr: "zstd-compressed"},
	}, bg(CodexPlan))
}

// TestCodexPlanFrom: the goal calls before a kept position are not
// searched again while the file there is the one read; what is appended
// is, and a file cut or replaced is searched whole.
func TestCodexPlanFrom(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rollout.jsonl")
	open := codexPlanLine("in_progress")
	goal := codexCallLine("create_goal", `{"objective": "Ship it"}`)
	done := codexCallLine("update_goal", `{"status": "complete"}`)
	write := func(lines ...string) {
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600))
	}
	appendText := func(text string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString(text)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	read := func(from CodexGoalState) (string, CodexGoalState) {
		items, _, next, err := CodexPlanFrom(context.Background(), path, from)
		require.NoError(t, err)
		return itemString(items), next
	}

	write(open, codexText)
	got, next := read(CodexGoalState{})
	assert.Equal(t, "Step 1=in_progress", got)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, st.Size(), next.Offset, "read to the end of the last line")
	assert.Empty(t, next.State)

	// What an earlier read learnt is trusted, not searched again: a
	// state kept for the same bytes says there is a goal.
	kept := next
	kept.State, kept.Title = GoalActive, "Kept"
	got, _ = read(kept)
	assert.Equal(t, "Step 1=in_progress,goal: Kept=active", got)

	// A goal set since is found in what was appended; a line still being
	// written is left for the next read.
	appendText(goal + "\n" + done[:40])
	got, next = read(next)
	assert.Equal(t, "Step 1=in_progress,goal: Ship it=active", got)
	st, err = os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, st.Size()-40, next.Offset)
	appendText(done[40:] + "\n")
	got, next = read(next)
	assert.Equal(t, "Step 1=in_progress,the goal set with create_goal=completed", got)
	// A blocked update names the goal kept before it.
	appendText(goal + "\n")
	_, next = read(next)
	appendText(codexCallLine("update_goal", `{"status": "blocked"}`) + "\n")
	got, _ = read(next)
	assert.Equal(t, "Step 1=in_progress,goal: Ship it=blocked", got)

	// The same file rewritten in place to the same length, its bytes
	// before the offset not the same: searched whole.
	write(open, codexText)
	_, kept = read(CodexGoalState{})
	kept.State, kept.Title = GoalActive, "Kept"
	write(open, strings.Replace(codexText, "Hello", "Hallo", 1))
	got, _ = read(kept)
	assert.Equal(t, "Step 1=in_progress", got)
	// A file cut below the kept offset: searched whole.
	write(open)
	got, _ = read(next)
	assert.Equal(t, "Step 1=in_progress", got)
}
