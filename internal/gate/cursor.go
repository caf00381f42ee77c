package gate

import (
	"fmt"
	"slices"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/state"
)

// cursorSlot is the state slot that keeps the Cursor stops already taken.
const cursorSlot = "gate.cursor"

// maxStops bounds the stops kept: the copies of one stop come together
// (Cursor runs every matching entry of a stop at once), so only the
// latest few can ever be met again.
const maxStops = 16

// cursorRecord is what a session keeps of its Cursor stops.
type cursorRecord struct {
	Taken []takenStop `json:"taken,omitempty"`
}

// takenStop is one Cursor stop a donegate hook has taken: of one gate
// (the main agent's stop, or one subagent's), as a subagentStop of a
// generation is not its stop.
type takenStop struct {
	Gate       string `json:"gate"`
	Generation string `json:"generation"`
	Loop       int    `json:"loop"`
}

// cursorStop reports whether another run of donegate took this very
// Cursor stop already (duplicate), and else takes it, under the session's
// lock.
//
// Cursor runs the hooks of .cursor/hooks.json and of .claude/settings.json
// for one stop, each with the same payload (its docs): a project that
// registers donegate in both (for Cursor and for Claude Code) would have
// the stop checked twice and counted twice, so max_blocks would be spent
// at half the continuations. A stop is one gate's at one generation_id
// and loop_count; the first run to take it answers it, the other answers {}
// (a stop hook that sends no follow-up leaves the other's in place). The
// turn a Cursor stop is counted under is hostTurn's, as Copilot's.
//
// A dry run (closer explain) takes nothing.
func (r *run) cursorStop() (duplicate bool) {
	ev := r.event
	if ev.Host != hookio.HostCursor || !ev.IsStop() || ev.SessionID == "" || ev.GenerationID == "" || r.opts.DryRun {
		return false
	}
	this := takenStop{Gate: gateKey(ev), Generation: ev.GenerationID, Loop: ev.LoopCount}
	err := state.Store{Dir: r.stateDir()}.Update(ev.SessionID, func(s *state.Session) error {
		var rec cursorRecord
		s.Get(cursorSlot, &rec)
		if slices.Contains(rec.Taken, this) {
			duplicate = true
			return nil
		}
		rec.Taken = append(rec.Taken, this)
		if len(rec.Taken) > maxStops {
			rec.Taken = rec.Taken[len(rec.Taken)-maxStops:]
		}
		return s.Put(cursorSlot, rec)
	})
	if err != nil {
		// Checking twice is better than not at all: go on, and say why.
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		return false
	}
	return duplicate
}
