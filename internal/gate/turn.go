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
// A stop that starts a turn gets a new id, kept in the session's state;
// the stops that continue it take that id.
//
// Without a turn the count is per session, and dropped when the agent is
// let go (else every later prompt would be let through at once): then
// closer explain --last, replaying the stop that was let go, found no
// count and said the agent would be blocked — where on Copilot, which
// shows no systemMessage, explain is the only place the person learns
// why the agent was let go. A dry run reads the kept turn and keeps
// nothing.
func (r *run) copilotTurn() {
	ev := r.event
	if ev.Host != hookio.HostCopilot || !ev.IsStop() || ev.PromptID != "" || ev.SessionID == "" {
		return
	}
	key := gateKey(ev)
	var turn string
	store := state.Store{Dir: r.stateDir(), ReadOnly: r.opts.DryRun}
	err := store.Update(ev.SessionID, func(s *state.Session) error {
		turns := map[string]string{}
		s.Get(turnsSlot, &turns)
		if turn = turns[key]; ev.StopHookActive && turn != "" {
			return nil
		}
		turn = fmt.Sprintf("copilot-turn-%d", r.env.Now().UnixNano())
		turns[key] = turn
		return s.Put(turnsSlot, turns)
	})
	if err != nil {
		// The count is then kept per session, as on a host without turns.
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		return
	}
	ev.PromptID = turn
}
