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
	"github.com/donegate/donegate/transcript"
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
		rec := checkers.StoredPhase(sess)
		require.NotNil(t, rec)
		assert.Equal(t, st.want, rec.Reached, "stop %d", i)
		assert.Equal(t, path, rec.Transcript, "stop %d", i)
		assert.EqualValues(t, len(data), rec.Offset, "stop %d", i)
	}
}

// TestPhaseReadsOnlyNewLines: a line before the recorded offset is not
// read again (the transcript can be hundreds of MB): here, a marker put
// in place of an old line changes nothing, and the next appended one
// does. Only the last transcript.TailBytes before the offset are compared
// with what was read; the marker is before them.
func TestPhaseReadsOnlyNewLines(t *testing.T) {
	stateDir := t.TempDir()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	old := textLine("Phase: processing") + promptLine + promptLine
	require.Greater(t, 2*len(promptLine), transcript.TailBytes)
	require.NoError(t, os.WriteFile(path, []byte(old), 0o600))
	ev := hookio.Event{HookEventName: hookio.EventStop, TranscriptPath: path}
	assert.Equal(t, "processing", reached(phaseCheck(t, `{"type":"phase"}`, stateDir, ev, checkers.ReasonStop, false)))

	// The same bytes' length, another marker, in the same file: a reader
	// that starts over would see it.
	rewritten := strings.Replace(old, "Phase: processing", "Phase: complete  ", 1)
	require.Len(t, rewritten, len(old))
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(rewritten + textLine("Phase: review"))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.Equal(t, "review", reached(phaseCheck(t, `{"type":"phase"}`, stateDir, ev, checkers.ReasonStop, false)))

	// Replaced by a shorter file: read from its start, and the phase
	// stays where it was.
	replace(t, path, textLine("Phase: preparation"))
	assert.Equal(t, "review", reached(phaseCheck(t, `{"type":"phase"}`, stateDir, ev, checkers.ReasonStop, false)))
	sess, err := state.Store{Dir: stateDir}.Peek("s")
	require.NoError(t, err)
	assert.EqualValues(t, len(textLine("Phase: preparation")), checkers.StoredPhase(sess).Offset)
}

// replace puts a new file with content at path, renamed over the old one
// as an editor or a restored backup does.
func replace(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".new"
	require.NoError(t, os.WriteFile(tmp, []byte(content), 0o600))
	require.NoError(t, os.Rename(tmp, path))
}

// TestPhaseOfAReplacedTranscript: the transcript read is replaced by
// another, longer file. Its lines are read from its start, not from the
// offset kept in the old one. Until 2026-11-24 they were read from that
// offset: a marker before it was missed (a stale phase), and reading
// began inside a line, where a malformed line of the new file looked
// whole from there on (a false pass).
func TestPhaseOfAReplacedTranscript(t *testing.T) {
	first := promptLine + textLine("Phase: processing")
	// malformed is a line that is no JSON from its start, and a whole
	// agent's line from len(first) on.
	junk := strings.Repeat("x", len(first)-len(promptLine)-1)
	malformed := promptLine + "{" + junk + textLine("Phase: complete")
	require.Len(t, malformed, len(first)+len(textLine("Phase: complete")))
	tests := []struct {
		name, replacement, want string
	}{
		{"a marker before the old offset", promptLine + textLine("Phase: review") + strings.Repeat(promptLine, 4), "review"},
		{"a malformed line across the old offset", malformed + promptLine, "processing"},
		{"in place, the marker in the bytes before the old offset", promptLine + textLine("Phase: review    ") + promptLine, "review"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Greater(t, len(tt.replacement), len(first))
			stateDir := t.TempDir()
			path := filepath.Join(t.TempDir(), "session.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(first), 0o600))
			ev := hookio.Event{HookEventName: hookio.EventStop, TranscriptPath: path}
			require.Equal(t, "processing", reached(phaseCheck(t, `{"type":"phase"}`, stateDir, ev, checkers.ReasonStop, false)))

			if strings.HasPrefix(tt.name, "in place") {
				require.NoError(t, os.WriteFile(path, []byte(tt.replacement), 0o600))
			} else {
				replace(t, path, tt.replacement)
			}
			assert.Equal(t, tt.want, reached(phaseCheck(t, `{"type":"phase"}`, stateDir, ev, checkers.ReasonStop, false)))
			sess, err := state.Store{Dir: stateDir}.Peek("s")
			require.NoError(t, err)
			assert.EqualValues(t, len(tt.replacement), checkers.StoredPhase(sess).Offset, "the new file was read to its end")
		})
	}
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
