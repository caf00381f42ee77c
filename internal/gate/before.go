package gate

import (
	"fmt"
	"strings"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/consent"
	"github.com/donegate/donegate/internal/lastevent"
	"github.com/donegate/donegate/internal/state"
)

// beforeFacts are what the decision before the checks depends on: the
// event's and the config's (eventFacts), then, where those decide
// nothing, the session's (sessionFacts), gathered once.
type beforeFacts struct {
	// guarded: the hook runs inside donegate's own check of the session.
	guarded bool
	// notDeclared is the completion_signal the agent's final answer
	// does not meet ("blocked", "failed": an honest answer); "" when it
	// meets it or none is set.
	notDeclared string
	// mode is the mode in force (settleMode's).
	mode string
	// unchecked is why the host's event is one donegate does not check.
	unchecked string

	// session: the session's facts below were gathered.
	session bool
	// otherEntry names the host whose other donegate entry took this
	// stop; subagentsOwn is a subagent's stop the host honours a block
	// of only at the parent's subagentStop, which it runs next.
	otherEntry, subagentsOwn string
	// background is the agent's own background work still running, where
	// this stop is the first to meet some of it (see firstWait).
	background []string
	// releasedBy says how the person released the turn; "" when not.
	releasedBy string
}

// decideBefore is the decision before the checks: the first of the
// rules below that holds, in this order. check is true when none holds
// and the checks decide; needSession when the rules that do not read the
// session hold none and its facts are not gathered yet. It reads
// nothing and writes nothing.
func decideBefore(f beforeFacts) (d Decision, check, needSession bool) {
	switch {
	case f.guarded:
		return Decision{Kind: KindGuarded}, false, false
	case f.notDeclared != "":
		// The agent hands in an answer that says the work is not done:
		// an honest answer, let through unchecked and uncounted.
		return Decision{Kind: KindNotDeclared, Why: f.notDeclared}, false, false
	case f.mode == config.ModeOff:
		// $DONEGATE_MODE=off returned before: this is the config's.
		return Decision{Kind: KindOff, Why: `the config's "mode": "off"`}, false, false
	case f.unchecked != "":
		return Decision{Kind: KindUnchecked, Why: f.unchecked}, false, false
	case !f.session:
		return Decision{}, false, true
	case f.otherEntry != "":
		// The host ran donegate for this stop already (Cursor: from
		// .cursor/hooks.json and from .claude/settings.json, which it
		// runs too): that run checks and counts it, this one lets it be.
		return Decision{Kind: KindDuplicate, Why: f.otherEntry + " ran donegate's other hook entry for this stop"}, false, false
	case f.subagentsOwn != "":
		// Copilot runs agentStop for a subagent that ends, then the
		// parent's subagentStop for the same end, and honours a block
		// only there: that run checks and counts it.
		return Decision{Kind: KindDuplicate, Why: f.subagentsOwn}, false, false
	case len(f.background) > 0:
		// The agent waits for its own background work, which the host
		// wakes it from when it ends: checking now would hold it with a
		// failure it is already waiting to see.
		return Decision{Kind: KindWaiting, Why: strings.Join(f.background, ", ")}, false, false
	case f.releasedBy != "":
		return Decision{Kind: KindReleased, Why: f.releasedBy}, false, false
	}
	return Decision{}, true, false
}

// eventFacts gathers the facts of the event and the config c (or the
// error loading it gave); toolUse: the run checks the agent's final
// answer.
func (r *run) eventFacts(toolUse bool, c *config.Config, err error) beforeFacts {
	f := beforeFacts{guarded: r.guarded(), unchecked: r.event.Unchecked}
	if err == nil && toolUse && c.CompletionSignal != nil && !declaresCompletion(c.CompletionSignal, r.structuredOutput()) {
		f.notDeclared = config.DescribeConditions(c.CompletionSignal, " or ")
	}
	if !f.guarded && f.notDeclared == "" {
		// Settled where a rule reads it: the decision log has the mode of
		// a decision the mode took part in.
		r.settleMode(c)
		f.mode = r.mode
	}
	return f
}

// sessionFacts gathers the session's facts into f, under the session's
// lock once: it takes the stop (see takeStop) and, where the run answers
// it, keeps the event (see keepEvent) and notes the background work it
// waits for (see firstWait); then reads the release.
func (r *run) sessionFacts(f *beforeFacts) {
	f.session = true
	ev := r.event
	// Without a session's record every stop with work running waits.
	waits := len(ev.BackgroundRunning) > 0 && ev.IsStop()
	if ev.SubagentsOwnStop() {
		f.subagentsOwn = fmt.Sprintf("%s runs subagentStop for subagent %s next; that stop is checked", ev.Host.Title(), ev.AgentID)
	}
	switch {
	case ev.SessionID == "":
	case r.opts.DryRun:
		// A dry run (closer explain) takes and keeps nothing: what the
		// stop would find of consent.
		if s, err := r.session(); err == nil {
			r.consent.lostIn(s, false)
			waits, _ = r.firstWait(s, false)
		}
	case ev.StopKey() != "" || f.subagentsOwn == "":
		var found *state.Session
		err := state.Store{Dir: r.stateDir()}.Update(ev.SessionID, func(s *state.Session) error {
			found = s
			if taken, err := r.takeStop(s); taken || err != nil {
				if taken {
					f.otherEntry = ev.Host.Title()
				}
				return err
			}
			if f.subagentsOwn != "" {
				return nil
			}
			r.consent.lostIn(s, true)
			if err := lastevent.Keep(s, r.raw, r.env.Now(), lastevent.Found{Project: r.consent.project(r), FinalOutput: ev.FinalOutput() != nil}); err != nil {
				return err
			}
			var err error
			waits, err = r.firstWait(s, true)
			return err
		})
		if err != nil {
			r.recordFailed(err)
		} else {
			r.found(found)
		}
	}
	if waits {
		f.background = ev.BackgroundRunning
	}
	if by, ok := r.released(); ok {
		f.releasedBy = by
	}
}

// waitedSlot keeps, for each piece of the agent's background work that
// was running at a stop, the stop that met it first: a digest of the
// stop's turn, the agent's last message and the work running then (the
// event's own bytes differ in the kept copy closer explain replays).
const waitedSlot = "gate.waited"

// firstWait reports whether this stop is the first to meet some of the
// agent's background work still running: that stop waits for it
// unchecked, the host waking the agent when it ends. A later stop while
// the same work runs is checked: one long task (a sleep) would otherwise
// leave every stop of the session unchecked. The record holds the work
// running now, nothing else; with write it is updated in s (held under
// its lock). The same stop again (closer explain --last) waits again.
func (r *run) firstWait(s *state.Session, write bool) (bool, error) {
	running := r.event.BackgroundRunning
	if len(running) == 0 || !r.event.IsStop() {
		return false, nil
	}
	this := consent.Digest([]byte(r.event.PromptID + "\x00" + r.event.LastAssistantMessage + "\x00" + strings.Join(running, "\x00")))
	met, now := stringMap{}, stringMap{}
	s.Get(waitedSlot, &met)
	first := false
	for _, work := range running {
		at, seen := met[work]
		if !seen {
			at = this
		}
		now[work] = at
		first = first || at == this
	}
	if !write {
		return first, nil
	}
	return first, s.Put(waitedSlot, now)
}

// answerBefore is the verdict of d, decided before the checks from f,
// and what the hook says of it on stderr.
func (r *run) answerBefore(d Decision, f beforeFacts) hookio.Verdict {
	switch {
	case d.Kind == KindGuarded:
		fmt.Fprintf(r.stderr, "%s: running inside donegate's own check of session %s; not checking again\n", r.name, r.event.SessionID)
	case d.Kind == KindDuplicate && f.otherEntry != "":
		fmt.Fprintf(r.stderr, "%s: %s stop %s is answered by donegate's other hook entry; not checking it twice\n", r.name, f.otherEntry, r.event.StopKey())
	case d.Kind == KindWaiting:
		fmt.Fprintf(r.stderr, "%s: not checking: the agent's background work is still running (%s); the stop after it ends is checked\n", r.name, d.Why)
		// Where the host ends the turn while the work runs (Claude Code's
		// terminal), the person reads the agent's last word unchecked.
		return hookio.Verdict{SystemMessage: "donegate did not check this stop: the agent's background work is still running (" + d.Why + "); the stop after it ends is checked, and so is any other stop while it runs"}
	case d.Kind == KindReleased:
		return hookio.Verdict{SystemMessage: "donegate: this turn was " + releasedHow(d.Why) + "; not checking it"}
	}
	return hookio.Verdict{}
}
