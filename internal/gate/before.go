package gate

import (
	"fmt"
	"strings"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
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
	// background is the agent's own background work still running.
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
// it, keeps the event (see keepEvent); then reads the release.
func (r *run) sessionFacts(f *beforeFacts) {
	f.session = true
	ev := r.event
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
			return lastevent.Keep(s, r.raw, r.env.Now(), lastevent.Found{Project: r.consent.project(r), FinalOutput: ev.FinalOutput() != nil})
		})
		if err != nil {
			r.recordFailed(err)
		} else {
			r.found(found)
		}
		if f.otherEntry != "" {
			fmt.Fprintf(r.stderr, "%s: %s stop %s is answered by donegate's other hook entry; not checking it twice\n", r.name, ev.Host.Title(), ev.StopKey())
		}
	}
	if ev.IsStop() {
		f.background = ev.BackgroundRunning
	}
	if by, ok := r.released(); ok {
		f.releasedBy = by
	}
}

// answerBefore is the verdict of a decision before the checks, and what
// the hook says of it on stderr.
func (r *run) answerBefore(d Decision) hookio.Verdict {
	switch d.Kind {
	case KindGuarded:
		fmt.Fprintf(r.stderr, "%s: running inside donegate's own check of session %s; not checking again\n", r.name, r.event.SessionID)
	case KindWaiting:
		fmt.Fprintf(r.stderr, "%s: not checking: the agent's background work is still running (%s); the stop after it ends is checked\n", r.name, d.Why)
	case KindReleased:
		return hookio.Verdict{SystemMessage: "donegate: this turn was " + releasedHow(d.Why) + "; not checking it"}
	}
	return hookio.Verdict{}
}
