package transcript

import "github.com/donegate/donegate/internal/sqlitefile"

// SetCopilotLimits replaces the bounds of the session.db read for a test
// and returns what puts them back.
func SetCopilotLimits(l sqlitefile.Limits) (restore func()) {
	old := copilotLimits
	copilotLimits = l
	return func() { copilotLimits = old }
}
