package gate

import (
	"errors"
	"fmt"
	"time"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/lastevent"
	"github.com/donegate/donegate/internal/state"
)

// The person's way to let the agent go from inside the host, without
// editing a file: `closer release` (in Claude Code, typed as
// `!closer release` at the prompt) marks the latest session's current
// turn released, and its stops are answered at once, unchecked.

// releaseSlot is the session record's slot of the release.
const releaseSlot = "released"

// release is a turn the person released.
type release struct {
	// Prompt is the released turn: the event's turn id, "" on hosts that
	// name none (the release then lasts the session).
	Prompt string    `json:"prompt"`
	At     time.Time `json:"at"`
}

// released reports whether the person released the event's turn.
func (r *run) released() bool {
	if r.event.SessionID == "" {
		return false
	}
	s, err := r.session()
	if err != nil {
		return false
	}
	var rel release
	return s.Get(releaseSlot, &rel) && rel.Prompt == r.event.PromptID
}

// Released is what Release did.
type Released struct {
	Session, Prompt string
	Host            hookio.Host
	Undone          bool
}

// Release marks the turn of the last event the hooks recorded (of
// session, or of any session when it is "") released, or with undo takes
// the release back. Only closer, run by the person, calls it.
func Release(stateDir, session string, undo bool, now time.Time) (Released, error) {
	var rec lastevent.Record
	var err error
	if session == "" {
		rec, err = lastevent.Latest(stateDir)
	} else {
		rec, err = lastevent.Load(stateDir, session)
	}
	if err != nil {
		return Released{}, fmt.Errorf("no stop to release: %w", err)
	}
	ev, err := hookio.Parse(rec.Raw, hookio.DetectHost(rec.Raw, nil))
	if err != nil {
		return Released{}, fmt.Errorf("the recorded event: %w", err)
	}
	if ev.SessionID == "" {
		return Released{}, errors.New("the recorded event names no session")
	}
	out := Released{Session: ev.SessionID, Prompt: ev.PromptID, Host: ev.Host, Undone: undo}
	err = state.Store{Dir: stateDir}.Update(ev.SessionID, func(s *state.Session) error {
		if undo {
			delete(s.Checkers, releaseSlot)
			return nil
		}
		return s.Put(releaseSlot, release{Prompt: ev.PromptID, At: now.UTC()})
	})
	return out, err
}
