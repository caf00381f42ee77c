package gate

import (
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

// takeStop reports whether another run of donegate took this very stop
// already (see hookio.Event.StopKey), and else takes it, in the session
// s, which the caller holds under its lock (sessionFacts). The first run
// to take a stop answers it, the others answer {}: one check and one
// count per stop, however many entries the host runs for it. An event
// with no stop key takes nothing.
func (r *run) takeStop(s *state.Session) (taken bool, err error) {
	key := r.event.StopKey()
	if key == "" {
		return false, nil
	}
	this := takenStop{Gate: gateKey(r.event), Stop: key}
	var rec takenRecord
	s.Get(takenSlot, &rec)
	if slices.Contains(rec.Taken, this) {
		return true, nil
	}
	rec.Taken = append(rec.Taken, this)
	if len(rec.Taken) > maxStops {
		rec.Taken = rec.Taken[len(rec.Taken)-maxStops:]
	}
	return false, s.Put(takenSlot, rec)
}
