package gate

import (
	"fmt"
	"slices"

	"github.com/donegate/donegate/internal/state"
)

// takenSlot is the state slot that keeps the stops already taken (see
// takeStop).
const takenSlot = "gate.stops"

// maxStops bounds the stops kept: the copies of one stop come together
// (the host runs every matching entry of a stop at once), so only the
// latest few can ever be met again.
const maxStops = 16

// takenRecord is what a session keeps of its stops taken.
type takenRecord struct {
	Taken []takenStop `json:"taken,omitempty"`
}

// takenStop is one stop a donegate hook has taken: of one gate (the main
// agent's stop, or one subagent's), as a subagent's stop is not the main
// agent's.
type takenStop struct {
	Gate string `json:"gate"`
	Stop string `json:"stop"`
}

// sameStop reports whether another run of donegate took this very stop
// already (see hookio.Event.StopKey), and else takes it, under the
// session's lock. The first run to take a stop answers it, the others
// answer {}: one check and one count per stop, however many entries the
// host runs for it.
//
// A dry run (closer explain) takes nothing.
func (r *run) sameStop() (duplicate bool) {
	ev := r.event
	key := ev.StopKey()
	if key == "" || ev.SessionID == "" || r.opts.DryRun {
		return false
	}
	this := takenStop{Gate: gateKey(ev), Stop: key}
	err := state.Store{Dir: r.stateDir()}.Update(ev.SessionID, func(s *state.Session) error {
		var rec takenRecord
		s.Get(takenSlot, &rec)
		if slices.Contains(rec.Taken, this) {
			duplicate = true
			return nil
		}
		rec.Taken = append(rec.Taken, this)
		if len(rec.Taken) > maxStops {
			rec.Taken = rec.Taken[len(rec.Taken)-maxStops:]
		}
		return s.Put(takenSlot, rec)
	})
	if err != nil {
		// Checking twice is better than not at all: go on, and say why.
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		return false
	}
	return duplicate
}
