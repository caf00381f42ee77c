package gate

import (
	"fmt"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/state"
)

// turnsSlot is the state slot that keeps, per gate, the turn a Copilot
// CLI stop is counted under.
const turnsSlot = "gate.copilot-turns"

// copilotTurn gives a Copilot CLI stop the turn its block count is kept
// per. Copilot's events carry no turn id, but its stop_hook_active says
// which stop starts one (measured with 1.0.102): false at the first stop
// after the person's prompt, a resumed session's included; true at every
// stop that follows a block, whether or not the continuation ran tools.
// A stop that starts a turn gets a new id; the stops that continue it
// take the id kept in the session's state. The id is kept with the count
// (keepTurn, in decide's one write of the state): a turn that never
// blocks is never continued, and reading costs no write.
//
// Without a turn the count is per session, and dropped when the agent is
// let go (else every later prompt would be let through at once): then
// closer explain --last, replaying the stop that was let go, found no
// count and said the agent would be blocked — where on Copilot, which
// shows no systemMessage, explain is the only place the person learns
// why the agent was let go.
func (r *run) copilotTurn() {
	ev := r.event
	if ev.Host != hookio.HostCopilot || !ev.IsStop() || ev.PromptID != "" || ev.SessionID == "" {
		return
	}
	if ev.StopHookActive {
		s, err := state.Store{Dir: r.stateDir()}.Peek(ev.SessionID)
		if err != nil {
			// The count is then the new turn's: blocks it would have
			// counted are counted again, never fewer.
			fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		} else {
			turns := map[string]string{}
			s.Get(turnsSlot, &turns)
			if turn := turns[gateKey(ev)]; turn != "" {
				ev.PromptID = turn
				return
			}
		}
	}
	ev.PromptID = fmt.Sprintf("copilot-turn-%d", r.env.Now().UnixNano())
	r.newTurn = true
}

// keepTurn keeps a new Copilot turn's id in the session s, under the gate
// key, for the stops that continue it. A gate is continued only after it
// blocked, which left a count: the turns of gates without one (a subagent
// long gone, a turn that ended complete) are dropped, so that one per
// subagent does not pile up over a long session.
func (r *run) keepTurn(s *state.Session, key string) error {
	if !r.newTurn {
		return nil
	}
	turns := map[string]string{}
	s.Get(turnsSlot, &turns)
	turns[key] = r.event.PromptID
	for k := range turns {
		if k != key && s.Counters[k] == nil {
			delete(turns, k)
		}
	}
	return s.Put(turnsSlot, turns)
}
