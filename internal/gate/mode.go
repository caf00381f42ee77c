package gate

import (
	"fmt"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// ModeEnv names the environment variable that sets the hooks' mode for
// every project, over the config's "mode": set where the host starts
// (DONEGATE_MODE=observe claude), it is the person's switch.
const ModeEnv = "DONEGATE_MODE"

// envMode is the mode $DONEGATE_MODE sets, "" for none; a value that is
// no mode is said on stderr once a run and ignored.
func (r *run) envMode() string {
	m := r.env.Getenv(ModeEnv)
	switch m {
	case "", config.ModeEnforce, config.ModeObserve, config.ModeOff:
		return m
	}
	fmt.Fprintf(r.stderr, "%s: %s=%q is no mode (enforce, observe or off); ignored\n", r.name, ModeEnv, m)
	return ""
}

// mode is the mode of the run: $DONEGATE_MODE, else the config's (c may
// be nil: a config that does not load), else enforce.
func (r *run) mode(c *config.Config) string {
	if r.modeSet {
		return r.modeVal
	}
	m := r.envMode()
	if m == "" && c != nil {
		m = c.Mode
	}
	if m == "" {
		m = config.ModeEnforce
	}
	r.modeSet, r.modeVal = true, m
	return m
}

// observed turns a verdict that holds the agent into one that lets it go
// and tells the person what would have held it (observe mode).
func observed(v hookio.Verdict, d Decision) (hookio.Verdict, Decision) {
	if !v.Block {
		return v, d
	}
	d.Kind, d.Why = KindObserved, v.Reason
	msg := "donegate (observe mode) would have held the agent: " + v.Reason
	if v.SystemMessage != "" {
		msg += "\n" + v.SystemMessage
	}
	return hookio.Verdict{SystemMessage: msg}, d
}
