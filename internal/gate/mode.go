package gate

import (
	"fmt"
	"io"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// ModeEnv names the environment variable that sets the hooks' mode for
// every project, over the config's "mode": set where the host starts
// (DONEGATE_MODE=observe claude), it is the person's switch.
const ModeEnv = "DONEGATE_MODE"

// envMode is the mode $DONEGATE_MODE sets, "" for none; a value that is
// no mode is said on stderr and ignored. newRun reads it once a run.
func envMode(name string, env Env, stderr io.Writer) string {
	m := env.Getenv(ModeEnv)
	switch m {
	case "", config.ModeEnforce, config.ModeObserve, config.ModeOff:
		return m
	}
	fmt.Fprintf(stderr, "%s: %s=%q is no mode (enforce, observe or off); ignored\n", name, ModeEnv, m)
	return ""
}

// settleMode sets the run's mode from the config in force (c may be nil:
// a config that does not load): $DONEGATE_MODE, else the config's, else
// enforce.
func (r *run) settleMode(c *config.Config) {
	r.mode = r.modeEnv
	if r.mode == "" && c != nil {
		r.mode = c.Mode
	}
	if r.mode == "" {
		r.mode = config.ModeEnforce
	}
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
