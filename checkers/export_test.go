package checkers

import "github.com/donegate/donegate/internal/state"

// PhaseRecord is what the phase checker keeps of a session, for the tests
// of package checkers_test.
type PhaseRecord = phaseRecord

// StoredPhase returns the phase checker's record in sess; nil for none.
func StoredPhase(sess *state.Session) *PhaseRecord {
	var rec phaseRecord
	if !sess.Get(phaseTypeName, &rec) {
		return nil
	}
	return &rec
}
