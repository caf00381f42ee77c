package checkers_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// promiseLoop is a transcript recorded with the real CLI 2.1.330 (lines
// over 5 KB, attachments and request shapes, taken out): a scripted agent
// blocked at three stops by a Stop hook, saying in turn
//
//	0 "Phase: preparation\nI will write `Phase: complete` on its own line when everything is done. Done for now."
//	  (block: "Keep going (0)")
//	1 "Phase: processing" + a Write of a.txt holding "Phase: complete\n"
//	2 "## Phase: Review\nLooks right. TASK_COMPLETE" (block: "Keep going (1)")
//	3 "Phase: preparation\nOne more look.\n<promise>not yet</promise>" (block: "Keep going (2)")
//	4 "**Phase: complete**\nAll done.\n<promise>  ALL\n  DONE </promise>"
//
// with the api-request-blob copies of earlier messages Claude Code writes
// after each block.
const promiseLoop = "testdata/transcripts/promise-loop.jsonl"

// upTo writes the lines of the recorded transcript up to the first that
// contains mark (and the n lines after it) to a new file: the transcript
// as a hook saw it at that point, or when it lagged behind.
func upTo(t *testing.T, mark string, n int) string {
	t.Helper()
	f, err := os.Open(promiseLoop)
	require.NoError(t, err)
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	left := -1
	for sc.Scan() && left != 0 {
		b.WriteString(sc.Text() + "\n")
		switch {
		case left > 0:
			left--
		case left < 0 && strings.Contains(sc.Text(), mark):
			left = n
		}
	}
	require.NoError(t, sc.Err())
	require.GreaterOrEqual(t, left, 0, "no line holds %q", mark)
	path := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o600))
	return path
}

// configProblems returns the problems config.Parse finds in cfg.
func configProblems(t *testing.T, cfg string) []string {
	t.Helper()
	_, err := config.Parse(strings.NewReader(cfg), "t.json")
	var cerr *config.Error
	require.ErrorAs(t, err, &cerr)
	var got []string
	for _, p := range cerr.Problems {
		got = append(got, p.String())
	}
	return got
}

const (
	stopHookFeedback1 = `Stop hook feedback:\nKeep going (1)`
	stopHookFeedback2 = `Stop hook feedback:\nKeep going (2)`
	finalMessage      = "**Phase: complete**\nAll done.\n<promise>  ALL\n  DONE </promise>"
)

func TestKeyword(t *testing.T) {
	full := func(*testing.T) string { return promiseLoop }
	tests := []struct {
		name       string
		spec       string
		message    string                  // the event's last_assistant_message
		transcript func(*testing.T) string // nil: none
		agent      bool                    // a SubagentStop of the transcript
		reason     checkers.StopReason     // "": stop
		later      string                  // appended 40 ms after the check starts
		complete   bool
		feedback   string // the whole feedback, or
		contains   string // a part of it
	}{
		{
			name:    "the default keyword, missing",
			spec:    `{"type":"keyword"}`,
			message: "I am done.",
			feedback: "Do not stop yet: when, and only when, the task is completely done, say TASK_COMPLETE in your final message. Until then keep working.\n\n" +
				`Your last message ended: "I am done."`,
		},
		{name: "the default keyword, said", spec: `{"type":"keyword"}`, message: "Checked it.\nTASK_COMPLETE", complete: true},
		{name: "case counts", spec: `{"type":"keyword"}`, message: "task_complete", contains: "say TASK_COMPLETE"},
		{name: "white space normalised on both sides", spec: `{"type":"keyword","keyword":" ALL \n DONE"}`, message: "It is all\nALL\t\tDONE now.", complete: true},
		{name: "a keyword inside a longer word counts", spec: `{"type":"keyword","keyword":"DONE"}`, message: "UNDONE", complete: true},
		{name: "the recorded promise, across lines", spec: `{"type":"keyword","promise":"ALL DONE"}`, message: finalMessage, complete: true},
		{
			name: "with a promise the keyword does not count", spec: `{"type":"keyword","promise":"DONE"}`,
			message: "Looks right. TASK_COMPLETE",
			feedback: "Do not stop yet: when, and only when, the task is completely done, end your final message with <promise>DONE</promise>, exactly. Until then keep working, and do not write the promise just to leave the loop.\n\n" +
				`Your last message ended: "Looks right. TASK_COMPLETE"`,
		},
		{
			name: "only the first promise tag counts", spec: `{"type":"keyword","promise":"DONE"}`,
			message:  "<promise>not yet</promise> and then <promise>DONE</promise>",
			contains: "leave the loop.\n\nYour last message held <promise>not yet</promise>, which is not the promise; it ended: \"<promise>not yet</promise> and then <promise>DONE</promise>\"",
		},
		{name: "an unclosed tag holds nothing", spec: `{"type":"keyword","promise":"DONE"}`, message: "<promise>DONE", contains: `leave the loop.` + "\n\n" + `Your last message ended: "<promise>DONE"`},
		{name: "the promise must be the whole tag", spec: `{"type":"keyword","promise":"DONE"}`, message: "<promise>DONE, almost</promise>", contains: "held <promise>DONE, almost</promise>"},
		{
			name: "a long message is quoted by its end", spec: `{"type":"keyword"}`,
			message:  strings.Repeat("a", 500) + " the end.",
			contains: `Your last message ended: "...` + strings.Repeat("a", 191) + ` the end."`,
		},

		// Without last_assistant_message: the transcript.
		{name: "from the recorded transcript", spec: `{"type":"keyword","promise":"ALL DONE"}`, transcript: full, complete: true},
		{
			// The latest text says TASK_COMPLETE, but a block came after
			// it: the agent's answer to it is not written yet, and the
			// blob copy of the old text does not count.
			name: "a transcript a turn behind is waited for", spec: `{"type":"keyword"}`,
			transcript: func(t *testing.T) string { return upTo(t, stopHookFeedback1, 3) },
			later:      textLine("Not quite yet."),
			contains:   `Your last message ended: "Not quite yet."`,
		},
		{
			name: "a transcript that never catches up: no message", spec: `{"type":"keyword"}`,
			transcript: func(t *testing.T) string { return upTo(t, stopHookFeedback1, 3) },
			contains:   "say TASK_COMPLETE in your final message. Until then keep working.\n\ndonegate found no last message of yours to read.",
		},
		{
			name: "a subagent's line in the main transcript does not count", spec: `{"type":"keyword"}`,
			transcript: func(t *testing.T) string { return upTo(t, stopHookFeedback2, 0) },
			later:      textLine("Still on it.") + sidechainText("TASK_COMPLETE"),
			contains:   `Your last message ended: "Still on it."`,
		},
		{
			name: "a subagent's own transcript: every line is a sidechain line", spec: `{"type":"keyword"}`,
			transcript: func(t *testing.T) string {
				p := filepath.Join(t.TempDir(), "agent.jsonl")
				require.NoError(t, os.WriteFile(p, []byte(promptLine+sidechainText("Sub work TASK_COMPLETE")), 0o600))
				return p
			},
			agent:    true,
			complete: true,
		},
		{
			name: "at a gated tool call: the text before the call", spec: `{"type":"keyword"}`,
			transcript: func(t *testing.T) string {
				p := filepath.Join(t.TempDir(), "session.jsonl")
				require.NoError(t, os.WriteFile(p, []byte(promptLine+textLine("Handing in. TASK_COMPLETE")+callLine("toolu_3")), 0o600))
				return p
			},
			reason:   checkers.ReasonToolUse,
			complete: true,
		},
		{
			// As recorded from the real CLI: a background subagent's
			// SubagentStop carried the main agent's last message.
			name: "a SubagentStop with the main agent's message: the subagent's own is read", spec: `{"type":"keyword","keyword":"sub done"}`,
			message:    "main done",
			transcript: func(t *testing.T) string { return agentTranscript(t) },
			agent:      true,
			complete:   true,
		},
		{
			name: "... and the main agent's words do not count for it", spec: `{"type":"keyword","keyword":"main done"}`,
			message:    "main done",
			transcript: func(t *testing.T) string { return agentTranscript(t) },
			agent:      true,
			contains:   `Your last message ended: "sub done"`,
		},
		{
			name: "a SubagentStop whose message is in its transcript", spec: `{"type":"keyword","keyword":"TASK_COMPLETE"}`,
			message: "Sub work TASK_COMPLETE",
			transcript: func(t *testing.T) string {
				p := filepath.Join(t.TempDir(), "agent.jsonl")
				require.NoError(t, os.WriteFile(p, []byte(promptLine+sidechainText("Sub work TASK_COMPLETE")), 0o600))
				return p
			},
			agent:    true,
			complete: true,
		},
		{name: "no transcript, no message", spec: `{"type":"keyword"}`, transcript: func(t *testing.T) string { return filepath.Join(t.TempDir(), "none.jsonl") }, contains: "found no last message"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := &hookio.Event{HookEventName: hookio.EventStop, SessionID: "s", LastAssistantMessage: tt.message}
			reason := checkers.ReasonStop
			if tt.reason != "" {
				reason = tt.reason
			}
			if tt.transcript != nil {
				path := tt.transcript(t)
				ev.TranscriptPath = path
				if tt.agent {
					ev.HookEventName, ev.AgentTranscriptPath, reason = hookio.EventSubagentStop, path, checkers.ReasonSubagentStop
				}
				if tt.later != "" {
					appendAfter(t, path, 40*time.Millisecond, tt.later)
				}
			}
			r, err := build(t, tt.spec).Check(context.Background(), &checkers.Context{Event: ev, Reason: reason})
			require.NoError(t, err)
			assert.Equal(t, tt.complete, r.Complete, r.Feedback)
			switch {
			case tt.complete:
				assert.Empty(t, r.Pattern)
			case tt.feedback != "":
				assert.Equal(t, tt.feedback, r.Feedback)
			default:
				assert.Contains(t, r.Feedback, tt.contains)
			}
			if !tt.complete {
				assert.Equal(t, "keyword-missing", r.Pattern)
			}
		})
	}
}

// agentTranscript is the recorded subagent's transcript (the session of
// testdata/claude whose SubagentStop carried "main done"), whose last
// text is "sub done".
func agentTranscript(t *testing.T) string {
	return filepath.Join(claudeDir(t), "projects", "-home-user-project", sessSub, "subagents", "agent-"+agentID+".jsonl")
}

// sidechainText is a subagent's text line, as its own transcript holds
// it (and older versions mixed into the main one).
func sidechainText(text string) string {
	return strings.Replace(textLine(text), `"isSidechain":false`, `"isSidechain":true`, 1)
}

func TestKeywordParams(t *testing.T) {
	r, err := build(t, `{"type":"keyword","promise":" ALL\tDONE "}`).Check(context.Background(), &checkers.Context{
		Event:  &hookio.Event{HookEventName: hookio.EventStop, LastAssistantMessage: "Phase: preparation\nOne more look.\n<promise>not yet</promise>"},
		Reason: checkers.ReasonStop,
	})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"Keyword": "",
		"Promise": "ALL DONE",
		"Found":   "not yet",
		"Tagged":  true,
		"Message": "Phase: preparation One more look. <promise>not yet</promise>",
		"Source":  "last_assistant_message",
	}, r.Params)
}

func TestKeywordConfig(t *testing.T) {
	tests := []struct {
		spec string
		want []string
	}{
		{`{"type":"keyword","keyword":""}`, []string{`checkers[0].keyword: must not be empty or only white space; leave it out for "TASK_COMPLETE"`}},
		{`{"type":"keyword","keyword":" \n"}`, []string{`checkers[0].keyword: must not be empty or only white space; leave it out for "TASK_COMPLETE"`}},
		{`{"type":"keyword","promise":""}`, []string{`checkers[0].promise: must not be empty or only white space`}},
		{`{"type":"keyword","promise":"<promise>DONE</promise>"}`, []string{`checkers[0].promise: is the text between the tags: write "DONE", not "<promise>DONE</promise>"`}},
		{`{"type":"keyword","keyword":"X","promise":"DONE"}`, []string{`checkers[0].keyword: not used with promise: with a promise only <promise>PROMISE</promise> counts; leave keyword out`}},
		{`{"type":"keyword","keyword":3}`, []string{`checkers[0].keyword: expected a string, got the number 3`}},
		{`{"type":"keyword","min":3}`, []string{`checkers[0].min: not used by a "keyword" checker (only by git-commits, iterations)`}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			assert.Equal(t, tt.want, configProblems(t, `{"checkers":[`+tt.spec+`]}`))
		})
	}
}

// TestKeywordDescribe: one line each, for closer check's checklist and
// the criteria told up front.
func TestKeywordDescribe(t *testing.T) {
	c, err := config.Parse(strings.NewReader(`{"checkers":[
		{"type":"keyword"},
		{"type":"keyword","name":"said","keyword":"ALL  DONE"},
		{"type":"keyword","promise":" DONE\n"},
		{"type":"composite","name":"promise loop","checkers":[{"type":"keyword","promise":"DONE"},{"type":"iterations","min":3}]},
		{"type":"phase"},
		{"type":"phase","target":"review"}]}`), "t.json")
	require.NoError(t, err)
	want := []string{
		"keyword: your final message says `TASK_COMPLETE`, once the task is truly done",
		"said: your final message says `ALL DONE`, once the task is truly done",
		"keyword: your final message holds `<promise>DONE</promise>`, written only once the task is truly done",
		"promise loop: all of: your final message holds `<promise>DONE</promise>`, written only once the task is truly done | you have been sent back to work at least 3 times in this prompt",
		"phase: the project reached the `complete` phase: mark each phase you enter with a line `Phase: <name>` (preparation → processing → review → complete)",
		"phase: the project reached the `review` phase: mark each phase you enter with a line `Phase: <name>` (preparation → processing → review → complete)",
	}
	for i, spec := range c.Checkers {
		assert.Equal(t, want[i], checkers.Describe(spec))
	}
}
