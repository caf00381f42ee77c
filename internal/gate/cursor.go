package gate

import (
	"fmt"
	"slices"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/state"
)

// cursorSlot is the state slot that keeps what Cursor stops need kept:
// the stops already taken, and the turn each gate is counted under.
const cursorSlot = "gate.cursor"

// maxStops bounds the stops kept: the copies of one stop come together
// (Cursor runs every matching entry of a stop at once), so only the
// latest few can ever be met again.
const maxStops = 16

// cursorRecord is what a session keeps of its Cursor stops.
type cursorRecord struct {
	Taken []takenStop `json:"taken,omitempty"`
	// Turns is the turn each gate is counted under (see cursorStop).
	Turns map[string]string `json:"turns,omitempty"`
}

// takenStop is one Cursor stop a donegate hook has taken: of one gate
// (the main agent's stop, or one subagent's), as a subagentStop of a
// generation is not its stop.
type takenStop struct {
	Gate       string `json:"gate"`
	Generation string `json:"generation"`
	Loop       int    `json:"loop"`
}

// cursorStop settles a Cursor stop, under the session's lock: whether
// another run of donegate took this very stop already (duplicate), and
// else the turn its count is kept under.
//
// Cursor runs the hooks of .cursor/hooks.json and of .claude/settings.json
// for one stop, each with the same payload (its docs): a project that
// registers donegate in both (for Cursor and for Claude Code) would have
// the stop checked twice and counted twice, so max_blocks would be spent
// at half the continuations. A stop is one gate's at one generation_id
// and loop_count; the first run to take it answers it, the other answers {}
// (a stop hook that sends no follow-up leaves the other's in place).
//
// Cursor's events name no turn, but its loop_count says which stop
// starts one: 0 at the first stop after the person's prompt, one more at
// each stop after a follow-up (Cursor's own loop_limit counts it). The
// turn is named after that stop's generation, kept in the session's
// state for the stops that continue it: a turn cut short leaves nothing
// to the next, and the count of a turn let go stays spent, so closer
// explain --last replaying that stop says it was let go.
//
// A dry run (closer explain) takes nothing and keeps nothing.
func (r *run) cursorStop() (duplicate bool) {
	ev := r.event
	if ev.Host != hookio.HostCursor || !ev.IsStop() || ev.SessionID == "" {
		return false
	}
	key := gateKey(ev)
	this := takenStop{Gate: key, Generation: ev.GenerationID, Loop: ev.LoopCount}
	var turn string
	store := state.Store{Dir: r.stateDir(), ReadOnly: r.opts.DryRun}
	err := store.Update(ev.SessionID, func(s *state.Session) error {
		var rec cursorRecord
		s.Get(cursorSlot, &rec)
		if ev.GenerationID != "" && !r.opts.DryRun {
			if slices.Contains(rec.Taken, this) {
				duplicate = true
				return nil
			}
			rec.Taken = append(rec.Taken, this)
			if len(rec.Taken) > maxStops {
				rec.Taken = rec.Taken[len(rec.Taken)-maxStops:]
			}
		}
		if rec.Turns == nil {
			rec.Turns = map[string]string{}
		}
		if turn = rec.Turns[key]; ev.TurnStart() || turn == "" {
			turn = "cursor-turn-" + ev.GenerationID
			if ev.GenerationID == "" {
				turn = fmt.Sprintf("cursor-turn-%d", r.env.Now().UnixNano())
			}
			rec.Turns[key] = turn
		}
		return s.Put(cursorSlot, rec)
	})
	if err != nil {
		// Checking twice is better than not at all, and without a turn
		// the count is the session's: go on, and say why.
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		return false
	}
	if !duplicate {
		ev.PromptID = turn
	}
	return duplicate
}
