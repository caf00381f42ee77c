package checkers_test

import (
	"context"
	"fmt"
	"github.com/donegate/donegate/internal/testsupport/proctest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/transcript"
)

// Transcript lines shaped as Claude Code 2.1.330 writes them: one content
// block a line, "type" after "message".
func todoLine(status string) string {
	return fmt.Sprintf(`{"parentUuid":"a","isSidechain":false,"message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"TodoWrite","input":{"todos":[{"content":"Write tests","status":%q,"activeForm":"Writing tests"}]}}]},"type":"assistant"}`+"\n", status)
}

func textLine(text string) string {
	return fmt.Sprintf(`{"parentUuid":"b","isSidechain":false,"message":{"role":"assistant","content":[{"type":"text","text":%q}]},"type":"assistant"}`+"\n", text)
}

func callLine(id string) string {
	return fmt.Sprintf(`{"parentUuid":"c","isSidechain":false,"message":{"role":"assistant","content":[{"type":"tool_use","id":%q,"name":"StructuredOutput","input":{"name":"early"}}]},"type":"assistant"}`+"\n", id)
}

const promptLine = `{"type":"user","message":{"role":"user","content":"Name it"}}` + "\n"

const openFeedback = "You have 1 incomplete task(s) out of 1. Please either complete all remaining tasks or update the plan to remove tasks that are no longer needed before producing output: Write tests"

// appendAfter appends text to path after delay, as Claude Code's writer
// does while a hook runs (measured: 16-42 ms after the hook starts).
func appendAfter(t *testing.T, path string, delay time.Duration, text string) {
	t.Helper()
	done := make(chan struct{})
	t.Cleanup(func() { <-done })
	go func() {
		defer close(done)
		time.Sleep(delay)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer f.Close()
		if _, err := f.WriteString(text); err != nil {
			t.Error(err)
		}
	}()
}

// TestPlanIsReadAfterTheTranscriptCatchesUp: the lines the event is about
// reach the transcript 40 ms after the check starts; the plan must be
// read from them, not from what the file held when the hook started.
func TestPlanIsReadAfterTheTranscriptCatchesUp(t *testing.T) {
	tests := []struct {
		name     string
		event    hookio.Event
		reason   checkers.StopReason
		before   string
		later    string
		complete bool
		feedback string
	}{
		{
			name:   "gate: the TodoWrite and the gated call lag",
			event:  hookio.Event{HookEventName: hookio.EventPreToolUse, ToolName: "StructuredOutput", ToolUseID: "toolu_9"},
			reason: checkers.ReasonToolUse,
			before: promptLine,
			later:  todoLine("pending") + callLine("toolu_9"),
			// Read at once, the transcript holds no plan and the early
			// call would be accepted.
			feedback: openFeedback,
		},
		{
			name:     "gate: the gated call lags after the plan was completed",
			event:    hookio.Event{HookEventName: hookio.EventPreToolUse, ToolName: "StructuredOutput", ToolUseID: "toolu_9"},
			reason:   checkers.ReasonToolUse,
			before:   promptLine + todoLine("pending"),
			later:    todoLine("completed") + callLine("toolu_9"),
			complete: true,
			feedback: "All 1 task(s) in the todo list are completed.",
		},
		{
			name:     "stop: the last message lags",
			event:    hookio.Event{HookEventName: hookio.EventStop, LastAssistantMessage: "All done."},
			reason:   checkers.ReasonStop,
			before:   promptLine + todoLine("pending") + textLine("Working on it."),
			later:    todoLine("completed") + textLine("All done."),
			complete: true,
			feedback: "All 1 task(s) in the todo list are completed.",
		},
		{
			name:   "stop: an earlier message ends like the last one",
			event:  hookio.Event{HookEventName: hookio.EventStop, LastAssistantMessage: "All done."},
			reason: checkers.ReasonStop,
			// "done." is a suffix of "All done.": it once passed for it.
			before:   promptLine + todoLine("pending") + textLine("done."),
			later:    todoLine("completed") + textLine("All done."),
			complete: true,
			feedback: "All 1 task(s) in the todo list are completed.",
		},
		{
			name:   "stop: an earlier message is white space",
			event:  hookio.Event{HookEventName: hookio.EventStop, LastAssistantMessage: "All done."},
			reason: checkers.ReasonStop,
			before: promptLine + todoLine("completed") + textLine("\n"),
			later:  todoLine("pending") + textLine("All done."),
			// The agent reopened an item in the turn the hook is about.
			feedback: openFeedback,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "s.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tt.before), 0o644))
			ev := tt.event
			ev.SessionID, ev.TranscriptPath = "s", path
			appendAfter(t, path, 40*time.Millisecond, tt.later)
			// No quiet period: the writer is waited for however late a
			// loaded machine runs it.
			useTranscriptWait(t, endless)
			c := &checkers.Context{Event: &ev, Getenv: claudeEnv(dir, ""), Reason: tt.reason}
			var r checkers.Result
			var err error
			proctest.WithinAMinute(t, func() { r, err = checkers.Plan{}.Check(context.Background(), c) })
			require.NoError(t, err)
			assertSaid(t, checkers.Result{Complete: tt.complete, Feedback: tt.feedback}, "plan-incomplete", r)
		})
	}
}

// TestPlanDoesNotWaitInVain: a transcript that never holds what the event
// names costs the quiet period, not the hard bound; task files, written
// when the tool runs, cost no wait at all. The bounds the test sets are an
// hour, so a check that ends at all (within the minute of withinAMinute)
// did not wait for them, however loaded the machine; figures belong in
// benchmarks.
func TestPlanDoesNotWaitInVain(t *testing.T) {
	sub := filepath.Join(claudeDir(t), "projects", "-home-user-project", sessSub, "subagents", "agent-"+agentID+".jsonl")
	tests := []struct {
		name     string
		event    hookio.Event
		reason   checkers.StopReason
		listID   string
		wait     transcript.Wait
		feedback string
	}{
		{
			// As recorded from the real CLI: the SubagentStop's
			// last_assistant_message is not in the subagent's transcript.
			name: "SubagentStop whose last message is not in the transcript",
			event: hookio.Event{HookEventName: hookio.EventSubagentStop, SessionID: sessSub, AgentID: agentID,
				AgentTranscriptPath: sub, LastAssistantMessage: "main done"},
			reason:   checkers.ReasonSubagentStop,
			wait:     quietOnly,
			feedback: "You have 1 incomplete task(s) out of 2. Please either complete all remaining tasks or update the plan to remove tasks that are no longer needed before producing output: Sub step two",
		},
		{
			name:     "gated call never written",
			event:    hookio.Event{HookEventName: hookio.EventPreToolUse, SessionID: sessOpen, TranscriptPath: transcriptOf(t, sessOpen), ToolUseID: "toolu_never"},
			reason:   checkers.ReasonToolUse,
			wait:     quietOnly,
			feedback: "You have 2 incomplete task(s) out of 5. Please either complete all remaining tasks or update the plan to remove tasks that are no longer needed before producing output: Write tests, Implement feature",
		},
		{
			name:     "task files are the plan: no wait for the transcript",
			event:    hookio.Event{HookEventName: hookio.EventPreToolUse, SessionID: sessTasks, TranscriptPath: transcriptOf(t, sessTasks), ToolUseID: "toolu_never"},
			reason:   checkers.ReasonToolUse,
			wait:     endless,
			feedback: "You have 2 incomplete task(s) out of 3. Please either complete all remaining tasks or update the plan to remove tasks that are no longer needed before producing output: Implement feature, Update docs",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := tt.event
			c := &checkers.Context{Event: &ev, Getenv: claudeEnv(claudeDir(t), tt.listID), Reason: tt.reason}
			useTranscriptWait(t, tt.wait)
			var r checkers.Result
			var err error
			proctest.WithinAMinute(t, func() { r, err = checkers.Plan{}.Check(context.Background(), c) })
			require.NoError(t, err)
			assertSaid(t, checkers.Result{Feedback: tt.feedback}, "plan-incomplete", r)
		})
	}
}

// Waits whose hard bound is an hour: endless ends only with what it waits
// for, quietOnly also with a file that stops changing for 300 ms.
var (
	endless   = transcript.Wait{Max: time.Hour, Quiet: time.Hour}
	quietOnly = transcript.Wait{Max: time.Hour, Quiet: 300 * time.Millisecond}
)

// useTranscriptWait sets checkers.TranscriptWait and ToolUseWait for the
// test.
func useTranscriptWait(t *testing.T, w transcript.Wait) {
	t.Helper()
	old, oldTool := checkers.TranscriptWait, checkers.ToolUseWait
	checkers.TranscriptWait, checkers.ToolUseWait = w, w
	t.Cleanup(func() { checkers.TranscriptWait, checkers.ToolUseWait = old, oldTool })
}
