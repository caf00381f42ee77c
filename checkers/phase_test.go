package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/state"
)

// phaseCheck runs a phase checker of spec at a Stop of session "s" whose
// state is kept in stateDir.
func phaseCheck(t *testing.T, spec, stateDir string, ev hookio.Event, reason checkers.StopReason, readOnly bool) checkers.Result {
	t.Helper()
	ev.SessionID = "s"
	r, err := build(t, spec).Check(context.Background(), &checkers.Context{Event: &ev, Reason: reason, StateDir: stateDir, ReadOnly: readOnly})
	require.NoError(t, err)
	return r
}

// reached is the phase a result says the project is in: "complete" when
// it passed, else the feedback's current phase ("" for none).
func reached(r checkers.Result) string {
	if r.Complete {
		return "complete"
	}
	return r.Params["Current"].(string)
}

// TestPhaseMarkers: the marker grammar, on the last message alone.
func TestPhaseMarkers(t *testing.T) {
	tests := []struct{ message, want string }{
		{"Phase: review", "review"},
		{"phase: REVIEW", "review"},
		{"  Phase:review  ", "review"},
		{"**Phase: review**", "review"},
		{"**Phase:** review", "review"},
		{"## Phase: Review", "review"},
		{"> Phase: review.", "review"},
		{"_Phase: processing_", "processing"},
		{"Work done.\nPhase: complete\nBye.", "complete"},
		{"Phase: preparation\r\nmore", "preparation"},
		{"Phase: preparation\nPhase: review\nPhase: processing", "review"}, // the furthest counts
		{"I will write `Phase: complete` when done.", ""},                  // not a line of its own
		{"Phase: reviewing", ""},
		{"Phase: review now", ""},
		{"The phase: review", ""},
		{"Phase review", ""},
		{"Phase: done", ""},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.message, func(t *testing.T) {
			r := phaseCheck(t, `{"type":"phase"}`, t.TempDir(), hookio.Event{HookEventName: hookio.EventStop, LastAssistantMessage: tt.message}, checkers.ReasonStop, false)
			assert.Equal(t, tt.want, reached(r))
		})
	}
}

// TestPhaseFollowsTheRecordedSession: the stops of the recorded promise
// loop, each seeing the transcript as it was then. The phase moves on
// with the markers of the agent's text, not with one in its prose, in a
// file it writes or in a blob copy, and never moves back; each stop reads
// only what was appended since the previous one.
func TestPhaseFollowsTheRecordedSession(t *testing.T) {
	stateDir := t.TempDir()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	steps := []struct {
		upTo    string // the transcript holds the lines up to this one
		message string
		want    string
	}{
		{"Done for now.", "Phase: preparation\nI will write `Phase: complete` on its own line when everything is done. Done for now.", "preparation"},
		{"Looks right. TASK_COMPLETE", "## Phase: Review\nLooks right. TASK_COMPLETE", "review"},
		{"One more look.", "Phase: preparation\nOne more look.\n<promise>not yet</promise>", "review"},
		{"All done.", finalMessage, "complete"},
	}
	for i, st := range steps {
		data, err := os.ReadFile(upTo(t, st.upTo, 0))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, data, 0o600))
		r := phaseCheck(t, `{"type":"phase"}`, stateDir, hookio.Event{HookEventName: hookio.EventStop, TranscriptPath: path, LastAssistantMessage: st.message}, checkers.ReasonStop, false)
		assert.Equal(t, st.want, reached(r), "stop %d", i)
		sess, err := state.Store{Dir: stateDir}.Peek("s")
		require.NoError(t, err)
		require.NotNil(t, sess.Phase)
		assert.Equal(t, state.Phase{Reached: st.want, Transcript: path, Offset: int64(len(data))}, *sess.Phase, "stop %d", i)
	}
}

// TestPhaseReadsOnlyNewLines: a line before the recorded offset is not
// read again (the transcript can be hundreds of MB): here, a marker put
// in place of the old lines changes nothing, and the next appended one
// does.
func TestPhaseReadsOnlyNewLines(t *testing.T) {
	stateDir := t.TempDir()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	old := promptLine + textLine("Phase: processing")
	require.NoError(t, os.WriteFile(path, []byte(old), 0o600))
	ev := hookio.Event{HookEventName: hookio.EventStop, TranscriptPath: path}
	assert.Equal(t, "processing", reached(phaseCheck(t, `{"type":"phase"}`, stateDir, ev, checkers.ReasonStop, false)))

	// The same bytes' length, another marker: a reader that starts over
	// would see it.
	rewritten := strings.Replace(old, "Phase: processing", "Phase: complete  ", 1)
	require.Len(t, rewritten, len(old))
	require.NoError(t, os.WriteFile(path, []byte(rewritten+textLine("Phase: review")), 0o600))
	assert.Equal(t, "review", reached(phaseCheck(t, `{"type":"phase"}`, stateDir, ev, checkers.ReasonStop, false)))

	// Replaced by a shorter file: read from its start, and the phase
	// stays where it was.
	require.NoError(t, os.WriteFile(path, []byte(textLine("Phase: preparation")), 0o600))
	assert.Equal(t, "review", reached(phaseCheck(t, `{"type":"phase"}`, stateDir, ev, checkers.ReasonStop, false)))
	sess, err := state.Store{Dir: stateDir}.Peek("s")
	require.NoError(t, err)
	assert.EqualValues(t, len(textLine("Phase: preparation")), sess.Phase.Offset)
}

// TestPhaseWaitsForTheTranscript: at a gated tool call the text before
// the call reaches the transcript after the hook started; it is read.
func TestPhaseWaitsForTheTranscript(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(promptLine), 0o600))
	appendAfter(t, path, 40*time.Millisecond, textLine("Phase: complete")+callLine("toolu_7"))
	ev := hookio.Event{HookEventName: hookio.EventPreToolUse, TranscriptPath: path, ToolName: "StructuredOutput", ToolUseID: "toolu_7"}
	assert.Equal(t, "complete", reached(phaseCheck(t, `{"type":"phase"}`, t.TempDir(), ev, checkers.ReasonToolUse, false)))
}

// TestPhaseDryRun: closer explain's dry run finds the phase and writes
// nothing to the state dir.
func TestPhaseDryRun(t *testing.T) {
	stateDir := t.TempDir()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(textLine("Phase: review")), 0o600))
	ev := hookio.Event{HookEventName: hookio.EventStop, TranscriptPath: path}
	assert.Equal(t, "review", reached(phaseCheck(t, `{"type":"phase"}`, stateDir, ev, checkers.ReasonStop, true)))
	entries, err := os.ReadDir(stateDir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

func TestPhaseFeedback(t *testing.T) {
	tests := []struct {
		spec, message string
		complete      bool
		feedback      string
	}{
		{`{"type":"phase"}`, "Done.", false, "Mark the phases of your work: write a line `Phase: preparation` now and understand the task and plan the work, then a line `Phase: <name>` as you enter each next phase. " +
			"You may stop once you have written `Phase: complete` on a line of its own.\n\n" +
			"You have not marked a phase yet; the phases are preparation → processing → review → complete, and this session ends at complete."},
		{`{"type":"phase"}`, "Phase: processing", false, "Finish the processing phase (do the work); then write a line `Phase: review` and check the work against the task: run the tests, read your changes. " +
			"You may stop once you have written `Phase: complete` on a line of its own.\n\n" +
			"The furthest phase you have marked is processing; the phases are preparation → processing → review → complete, and this session ends at complete."},
		{`{"type":"phase"}`, "Phase: review", false, "Finish the review phase (check the work against the task: run the tests, read your changes); then write a line `Phase: complete`.\n\n" +
			"The furthest phase you have marked is review; the phases are preparation → processing → review → complete, and this session ends at complete."},
		{`{"type":"phase","target":"review"}`, "Phase: processing", false, "Finish the processing phase (do the work); then write a line `Phase: review` and check the work against the task: run the tests, read your changes.\n\n" +
			"The furthest phase you have marked is processing; the phases are preparation → processing → review → complete, and this session ends at review."},
		{`{"type":"phase","target":"review"}`, "Phase: review", true, "The project reached the review phase (review required)."},
		{`{"type":"phase","target":"review"}`, "Phase: complete", true, "The project reached the complete phase (review required)."},
	}
	for _, tt := range tests {
		r := phaseCheck(t, tt.spec, t.TempDir(), hookio.Event{HookEventName: hookio.EventStop, LastAssistantMessage: tt.message}, checkers.ReasonStop, false)
		assert.Equal(t, tt.complete, r.Complete, "%s %q", tt.spec, tt.message)
		assert.Equal(t, tt.feedback, r.Feedback)
		if !tt.complete {
			assert.Equal(t, "phase-incomplete", r.Pattern)
		}
	}
}

// TestPhaseCannotRunWithoutASession: there is no phase to follow without
// a session and a state dir; the check cannot run, it never passes.
func TestPhaseCannotRunWithoutASession(t *testing.T) {
	ch := build(t, `{"type":"phase"}`)
	_, err := ch.Check(context.Background(), &checkers.Context{Reason: checkers.ReasonManual, StateDir: t.TempDir()})
	assert.EqualError(t, err, "phase: no session to follow the phase of (a check from the command line)")
	_, err = ch.Check(context.Background(), &checkers.Context{Event: &hookio.Event{SessionID: "s"}, Reason: checkers.ReasonStop})
	assert.EqualError(t, err, "phase: no state dir to keep the session's phase in")
}

func TestPhaseConfig(t *testing.T) {
	assert.Equal(t, []string{`checkers[0].target: must be one of preparation, processing, review, complete, got "done"`},
		configProblems(t, `{"checkers":[{"type":"phase","target":"done"}]}`))
	assert.Equal(t, []string{`checkers[0].target: expected a string, got the number 3`},
		configProblems(t, `{"checkers":[{"type":"phase","target":3}]}`))
}
