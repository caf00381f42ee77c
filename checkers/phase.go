package checkers

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/transcript"
)

// Phases are the project's phases, in order.
var Phases = []string{"preparation", "processing", "review", "complete"}

// phaseWork says what is done in each phase, for feedback: "write a
// line `Phase: review` and check the work...". Nothing is done in
// complete.
var phaseWork = map[string]string{
	"preparation": "understand the task and plan the work",
	"processing":  "do the work",
	"review":      "check the work against the task: run the tests, read your changes",
	"complete":    "",
}

// PhaseOptions are the phase checker's options.
type PhaseOptions struct {
	// Target is the phase the project must reach: "preparation",
	// "processing", "review" or "complete". Left out: "complete".
	Target string `json:"target,omitempty" validate:"omitempty,oneof=preparation processing review complete"`
}

// phaseTypeName is the phase checker type's name in a config.
const phaseTypeName = "phase"

// The phase checker's type. The phase is the main agent's,
// read from the session's transcript: it runs at the main agent's stop
// and at a gated tool, where the agent hands in its final output.
var _ = declare(phaseTypeName, func() *Type {
	return register(Type{
		Name:      phaseTypeName,
		Summary:   "the project reached the phase `target` (default `complete`) of preparation → processing → review → complete, marked by the agent with a line `Phase: <name>`",
		DefaultOn: []StopReason{ReasonStop, ReasonToolUse},
		Patterns:  []string{"phase-incomplete"},
		Example:   `{"type": "phase", "target": "review"}`,
	}, func(o *PhaseOptions) (Checker, error) {
		return Phase{Target: phaseTarget(o)}, nil
	}, func(o *PhaseOptions) string {
		return fmt.Sprintf("the project reached the `%s` phase: mark each phase you enter with a line `Phase: <name>` (%s)",
			phaseTarget(o), strings.Join(Phases, " → "))
	})
})

func phaseTarget(o *PhaseOptions) string {
	if o.Target == "" {
		return "complete"
	}
	return o.Target
}

// phaseRecord is what the phase checker keeps of a session (see
// state.Session.Get): the furthest phase the agent's markers named, and
// how much of the transcript it has read for them, so that each stop
// reads only what was appended since.
type phaseRecord struct {
	// Reached is the furthest phase marked so far; "" for none.
	Reached string `json:"reached,omitempty"`
	// Transcript is the transcript read, and Position how far, in which
	// file: the start of its first line not read yet, and what tells that
	// the file there is still the one read. A record of before 2026-11-24
	// has an offset alone, and its transcript is read once from the start.
	Transcript string `json:"transcript,omitempty"`
	transcript.Position
}

// Phase is complete when the furthest phase the agent has marked in the
// session is Target or later. The furthest phase is kept per session in
// the state dir with how far the transcript was read: a stop reads only
// the lines appended since the previous one, and a later marker of an
// earlier phase does not move the project back.
type Phase struct {
	Target string
}

// phaseMarker is a line that marks a phase: "Phase: review", in any case,
// white space around it and after the colon ignored, Markdown emphasis,
// heading or quote marks around it allowed ("**Phase:** review",
// "## Phase: Review", "> Phase: review."). Compiled on first use: every
// hook links this package, and few run a phase checker.
var phaseMarker = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?i)^[\\s>#*_`]*phase[*_`]*\\s*:[\\s*_`]*(preparation|processing|review|complete)[\\s*_`.!]*$")
})

// markedPhase returns the index in Phases of the furthest phase marked in
// text, or -1.
func markedPhase(text string) int {
	furthest := -1
	for _, line := range strings.Split(text, "\n") {
		if m := phaseMarker().FindStringSubmatch(line); m != nil {
			furthest = max(furthest, slices.Index(Phases, strings.ToLower(m[1])))
		}
	}
	return furthest
}

// Check implements Checker.
func (p Phase) Check(ctx context.Context, c *Context) (Result, error) {
	reached, err := c.phase(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("phase: %w", err)
	}
	target := slices.Index(Phases, p.Target)
	if reached >= target {
		return OK(fmt.Sprintf("The project reached the %s phase (%s required).", Phases[reached], p.Target)), nil
	}
	params := map[string]any{
		"Current":     "",
		"CurrentWork": "",
		"Next":        Phases[reached+1],
		"NextWork":    phaseWork[Phases[reached+1]],
		"Target":      p.Target,
		"Phases":      strings.Join(Phases, " → "),
	}
	if reached >= 0 {
		params["Current"], params["CurrentWork"] = Phases[reached], phaseWork[Phases[reached]]
	}
	return c.Fail("phase-incomplete", params), nil
}

// phase returns the index of the furthest phase the agent has marked in
// the session, -1 for none, and records it with how far the transcript
// has been read (nothing is written when c.ReadOnly).
func (c *Context) phase(ctx context.Context) (int, error) {
	ev := c.Event
	if ev == nil || ev.SessionID == "" {
		return 0, errors.New("no session to follow the phase of (a check from the command line)")
	}
	if c.StateDir == "" {
		return 0, errors.New("no state dir to keep the session's phase in")
	}
	path := ev.TranscriptPath
	if !ev.Host.TranscriptHasTexts() {
		// A transcript whose texts cannot be read: the markers
		// are read from the last message of each stop, kept in the
		// session's record, and not from the texts between stops.
		path = ""
	}
	furthest := -1
	// The transcript can lag behind the event: wait for what the event is
	// about, as the plan checker does. The last message is read too, in
	// case the wait ran out.
	// At a subagent's stop the event is about the subagent's own
	// transcript, and there is nothing in the main one to wait for.
	switch {
	case path == "":
		furthest = markedPhase(ev.LastAssistantMessage)
	case c.Reason == ReasonStop:
		if ev.LastAssistantMessage == "" {
			_, _, _ = transcript.LastText(ctx, path, transcript.ReadOptions{SkipSidechain: true}, TranscriptWait)
		} else {
			transcript.CaughtUp(ctx, path, ev.LastAssistantMessage, TranscriptWait)
		}
		furthest = markedPhase(ev.LastAssistantMessage)
	case c.Reason == ReasonToolUse:
		transcript.HoldsToolUse(ctx, path, ev.ToolUseID, ToolUseWait)
	}
	store := state.Store{Dir: c.StateDir, ReadOnly: c.ReadOnly}
	// The transcript is read outside the session's lock, which other hooks
	// wait for: the first read of a long session's transcript takes a
	// while. The record is then merged under the lock (see mergePhase).
	sess, err := store.Peek(ev.SessionID)
	if err != nil {
		return 0, err
	}
	var from transcript.Position
	if rec := (phaseRecord{}); sess.Get(phaseTypeName, &rec) {
		furthest = max(furthest, slices.Index(Phases, rec.Reached))
		if rec.Transcript == path {
			from = rec.Position
		}
	}
	next, restarted := from, false
	if path != "" {
		next, restarted, err = transcript.ReadTexts(ctx, path, from, transcript.ReadOptions{SkipSidechain: true}, func(text string) {
			furthest = max(furthest, markedPhase(text))
		})
		if err != nil {
			return 0, err
		}
	}
	read := phaseRecord{Transcript: path, Position: next}
	if furthest >= 0 {
		read.Reached = Phases[furthest]
	}
	err = store.Update(ev.SessionID, func(s *state.Session) error {
		var stored *phaseRecord
		if rec := (phaseRecord{}); s.Get(phaseTypeName, &rec) {
			stored = &rec
		}
		merged := mergePhase(stored, read, restarted)
		furthest = slices.Index(Phases, merged.Reached)
		return s.Put(phaseTypeName, merged)
	})
	if err != nil {
		return 0, err
	}
	return furthest, nil
}

// mergePhase merges what a hook read into the stored record, which another
// hook of the session may have moved on since it was read: the furthest
// phase of both, and the further position in the same file. Both hooks
// read from the stored position or before it to where they stopped, so
// the lines up to the further one have been read. A transcript that was
// cut or replaced (restarted, or another file) was read from its start:
// its position is the one read, or every stop would read it whole again.
func mergePhase(stored *phaseRecord, read phaseRecord, restarted bool) *phaseRecord {
	if stored == nil {
		return &read
	}
	m := *stored
	if slices.Index(Phases, read.Reached) > slices.Index(Phases, m.Reached) {
		m.Reached = read.Reached
	}
	if m.Transcript != read.Transcript || !m.SameFile(read.Position) || read.Offset > m.Offset || restarted {
		m.Transcript, m.Position = read.Transcript, read.Position
	}
	return &m
}
