package gate

import (
	"fmt"

	"github.com/donegate/donegate/internal/state"
)

// turnsSlot is the state slot that keeps, per gate, the turn a stop of
// a host that names no turn is counted under (see hostTurn).
const turnsSlot = "gate.turns"

// hostTurn gives a stop of a host whose events carry no turn id, but say
// which stop starts a turn (hookio.Event.TurnStart: Copilot CLI's
// stop_hook_active false, Cursor's loop_count 0), the turn its block
// count is kept per. Measured with Copilot 1.0.102: stop_hook_active is
// false at the first stop after the person's prompt, a resumed session's
// included, and true at every stop that follows a block, whether or not
// the continuation ran tools. A stop that starts a turn gets a new id;
// the stops that continue it take the id kept in the session's state.
// The id is kept with the count (keepTurn, in decide's one write of the
// state): a turn that never blocks is never continued, and reading costs
// no write.
//
// Without a turn the count is per session, and dropped when the agent is
// let go (else every later prompt would be let through at once): then
// closer explain --last, replaying the stop that was let go, found no
// count and said the agent would be blocked — where on Copilot and
// Cursor, which show no systemMessage, explain is the only place the
// person learns why the agent was let go.
func (r *run) hostTurn() {
	ev := r.event
	if !ev.Host.TurnFromStart() || !ev.IsStop() || ev.PromptID != "" || ev.SessionID == "" {
		return
	}
	if !ev.TurnStart() {
		s, err := r.session()
		if err != nil {
			// The count is then the new turn's: blocks it would have
			// counted are counted again, never fewer.
			fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		} else {
			turns := stringMap{}
			s.Get(turnsSlot, &turns)
			if turn := turns[gateKey(ev)]; turn != "" {
				ev.PromptID = turn
				return
			}
		}
	}
	ev.PromptID = fmt.Sprintf("%s-turn-%d", ev.Host, r.env.Now().UnixNano())
	if ev.GenerationID != "" {
		// Cursor names the generation of the stop that starts the turn:
		// the same turn again when closer explain --last replays that
		// stop, so it finds the turn's count.
		ev.PromptID = fmt.Sprintf("%s-turn-%s", ev.Host, ev.GenerationID)
	}
	r.newTurn = true
}

// keepTurn keeps a new turn's id (see hostTurn) in the session s, under the gate
// key, for the stops that continue it. A gate is continued only after it
// blocked, which left a count: the turns of gates without one (a subagent
// long gone, a turn that ended complete) are dropped, so that one per
// subagent does not pile up over a long session.
func (r *run) keepTurn(s *state.Session, key string) error {
	if !r.newTurn {
		return nil
	}
	turns := stringMap{}
	s.Get(turnsSlot, &turns)
	turns[key] = r.event.PromptID
	for k := range turns {
		if k != key && s.Counters[k] == nil {
			delete(turns, k)
		}
	}
	return s.Put(turnsSlot, turns)
}
