package gate

import (
	"fmt"
	"slices"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/state"
)

// stopsSlot is the state slot that keeps the Cursor stops already taken.
const stopsSlot = "gate.cursor-stops"

// maxStops bounds the stops kept: the copies of one stop come together
// (Cursor runs every matching entry of a stop at once), so only the
// latest few can ever be met again.
const maxStops = 16

// takenStop is one Cursor stop a donegate hook has taken.
type takenStop struct {
	Generation string `json:"generation"`
	Loop       int    `json:"loop"`
}

// duplicateStop reports whether another run of donegate took this very
// stop already, and takes it if not. Cursor runs the hooks of
// .cursor/hooks.json and of .claude/settings.json for one stop, each with
// the same payload (its docs): a project that registers donegate in both
// (for Cursor and for Claude Code) would have the stop checked twice and
// counted twice, so max_blocks would be spent at half the continuations.
// A stop is one generation_id at one loop_count; the first run to take it
// under the session's lock answers it, the other answers {} (a stop hook
// that sends no follow-up leaves the other's follow-up in place).
//
// Only Cursor stops with a generation id are looked at: no other host
// runs two sources of hooks for one event. A dry run takes nothing.
func (r *run) duplicateStop() bool {
	ev := r.event
	if ev.Host != hookio.HostCursor || !ev.IsStop() || ev.GenerationID == "" || ev.SessionID == "" || r.opts.DryRun {
		return false
	}
	this := takenStop{Generation: ev.GenerationID, Loop: ev.LoopCount}
	dup := false
	err := state.Store{Dir: r.stateDir()}.Update(ev.SessionID, func(s *state.Session) error {
		var taken []takenStop
		s.Get(stopsSlot, &taken)
		if slices.Contains(taken, this) {
			dup = true
			return nil
		}
		taken = append(taken, this)
		if len(taken) > maxStops {
			taken = taken[len(taken)-maxStops:]
		}
		return s.Put(stopsSlot, taken)
	})
	if err != nil {
		// Checking twice is better than not at all: go on, and say why.
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		return false
	}
	return dup
}
