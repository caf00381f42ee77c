package gate

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/consent"
	"github.com/donegate/donegate/internal/lastevent"
	"github.com/donegate/donegate/internal/state"
)

// The person's ways to let the agent go without editing a file: a
// message of ReleasePhrase alone typed in the session (where the host runs
// stop-hook --criteria at once for a message typed while the agent works,
// with the running turn's id: Claude Code), or `closer release` in a
// terminal of their own. Either marks the turn released, and its stops
// are answered at once, unchecked. closer refuses to release from inside
// an agent's shell (see internal/closer's personOnly).

// ReleasePhrase is the message that releases the running turn, typed
// alone (case and surrounding space do not matter).
const ReleasePhrase = "donegate release"

// isReleasePhrase reports whether the person's prompt is ReleasePhrase.
func isReleasePhrase(prompt string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(prompt), " "), ReleasePhrase)
}

// releaseByMessage is stop-hook --criteria at the person's message
// ReleasePhrase: the turn it names is released. A message typed while
// the agent works carries the running turn's id (Claude Code 2.1.332);
// one typed between turns starts a turn of its own, which is released
// and holds nothing. An agent cannot type a message: a run of the host it
// starts from its shell (claude -p --resume) is a turn of its own, which
// releases only itself.
func (r *run) releaseByMessage() (Report, bool) {
	ev := r.event
	if ev.HookEventName != hookio.EventUserPromptSubmit || !ev.Host.PromptMidTurn() || ev.PromptID == "" || ev.SessionID == "" || !isReleasePhrase(ev.Prompt) {
		return Report{}, false
	}
	rep := Report{Hook: r.name, Event: ev, ProjectDir: r.projectDir(), StateDir: r.stateDir(), Dialect: r.dialect(nil), Decision: Decision{Kind: KindReleased, Why: releasedByMessage}}
	if r.opts.DryRun {
		return rep, true
	}
	err := state.Store{Dir: r.stateDir()}.Update(ev.SessionID, func(s *state.Session) error {
		return s.Put(releaseSlot, release{Prompt: ev.PromptID, At: r.env.Now().UTC(), By: releasedByMessage})
	})
	if err != nil {
		fmt.Fprintf(r.stderr, "%s: the release could not be kept: %v\n", r.name, err)
		rep.Decision = Decision{Kind: KindStateFailed, Err: err}
		rep.Verdict = hookio.Verdict{SystemMessage: "donegate could not release this turn: " + err.Error()}
		return rep, true
	}
	rep.Verdict = hookio.Verdict{
		SystemMessage: "donegate: you released this turn; its stops are let go, unchecked.",
		Context:       "The person released this turn from donegate's checks: you may stop when you see fit.",
	}
	return rep, true
}

// releasedByMessage is the release's By for the person's message.
const releasedByMessage = "the person's message"

// releasedHow says who released a turn, from its record's By, as the
// answer, explain and the log say it: the person only for their message,
// which no agent can send. closer release refuses inside an agent's
// shell where it can tell, but a process whose ancestry was cut and
// whose environment was cleared can run it unseen (docs/security.md):
// that release is told as what it is.
func releasedHow(by string) string {
	if by == releasedByMessage {
		return "released by the person (" + by + ")"
	}
	return "released with " + by + ", run in no agent shell donegate could see"
}

// releaseSlot is the session record's slot of the release.
const releaseSlot = "released"

// release is a turn the person released.
type release struct {
	// Prompt is the released turn: the event's turn id, "" on hosts that
	// name none (the release then lasts the session).
	Prompt string    `json:"prompt"`
	At     time.Time `json:"at"`
	// By is what released it: "closer release", the person's message.
	By string `json:"by,omitempty"`
}

// released reports whether the person released the event's turn, and
// how ("closer release").
func (r *run) released() (string, bool) {
	if r.event.SessionID == "" {
		return "", false
	}
	s, err := r.session()
	if err != nil {
		return "", false
	}
	var rel release
	if !s.Get(releaseSlot, &rel) || rel.Prompt != r.event.PromptID {
		return "", false
	}
	if rel.By == "" {
		rel.By = "closer release"
	}
	return rel.By, true
}

// Released is what Release did.
type Released struct {
	Session, Prompt string
	Host            hookio.Host
	Undone          bool
	// Project is the project dir of the released session's last event.
	Project string
}

// Release marks the turn of the last event the hooks recorded (of
// session, or when it is "" of the latest session of the project in
// project) released, or with undo takes the release back. Only closer,
// run by the person, calls it; by says how ("closer release").
func Release(stateDir, project, session string, undo bool, now time.Time, by string) (Released, error) {
	var rec lastevent.Record
	var err error
	if session == "" {
		rec, err = lastevent.LatestWhere(stateDir, func(r lastevent.Record) bool { return r.InProject(project, consent.Resolve) })
		if errors.Is(err, lastevent.ErrNone) {
			err = fmt.Errorf("the hooks have seen no session of %s (closer release --dir DIR names another project, --session ID a session): %w", consent.Resolve(project), err)
		}
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
	out := Released{Session: ev.SessionID, Prompt: ev.PromptID, Host: ev.Host, Undone: undo, Project: rec.Project}
	if out.Project == "" {
		out.Project = ev.Cwd
	}
	err = state.Store{Dir: stateDir}.Update(ev.SessionID, func(s *state.Session) error {
		if undo {
			delete(s.Checkers, releaseSlot)
			return nil
		}
		return s.Put(releaseSlot, release{Prompt: ev.PromptID, At: now.UTC(), By: by})
	})
	return out, err
}
