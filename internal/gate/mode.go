package gate

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/regular"
)

// ModeEnv names the environment variable that sets the hooks' mode for
// every project, over the config's "mode": set where the host starts
// (DONEGATE_MODE=observe claude), it is the person's switch.
const ModeEnv = "DONEGATE_MODE"

// envMode is the mode $DONEGATE_MODE sets, "" for none; a value that is
// no mode is said on stderr and ignored. So is a loosening value that a
// project's host settings put in the hooks' environment (see
// projectSetsMode): the agent can write those files, and its own gate is
// not its to turn off; the person is told (modeNotice). newRun reads it
// once a run; the files are read only when the variable is set.
func (r *run) envMode() string {
	m := r.env.Getenv(ModeEnv)
	switch m {
	case "", config.ModeEnforce:
		return m
	case config.ModeObserve, config.ModeOff:
	default:
		fmt.Fprintf(r.stderr, "%s: %s=%q is no mode (enforce, observe or off); ignored\n", r.name, ModeEnv, m)
		return ""
	}
	if file := projectSetsMode(r.projectDir()); file != "" {
		r.modeNotice = "donegate ignores " + ModeEnv + "=" + m + ": " + file + " sets it in the hooks' environment, and the project's settings are the agent's to write. Set it where you start the host (" + ModeEnv + "=" + m + " claude), or in your user settings"
		fmt.Fprintf(r.stderr, "%s: %s\n", r.name, r.modeNotice)
		return ""
	}
	return m
}

// ProjectSetsMode names the project's host settings file whose "env"
// sets $DONEGATE_MODE, which the hooks ignore (see envMode); "" for none.
func ProjectSetsMode(projectDir string) string { return projectSetsMode(projectDir) }

// maxSettingsBytes bounds a host settings file read for its "env".
const maxSettingsBytes = 1 << 20

// projectSetsMode names the project's host settings file (see
// hookio.ProjectEnvFiles) whose "env" sets $DONEGATE_MODE, "" for none.
// A file that cannot be read, is no regular file or is over
// maxSettingsBytes sets nothing the host could read either.
func projectSetsMode(projectDir string) string {
	for _, rel := range hookio.ProjectEnvFiles() {
		path := filepath.Join(projectDir, filepath.FromSlash(rel))
		f, err := regular.Open(path)
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, maxSettingsBytes))
		f.Close()
		if err == nil && gjson.GetBytes(data, "env."+ModeEnv).Exists() {
			return path
		}
	}
	return ""
}

// settleMode sets the run's mode from the config in force (c may be nil:
// a config that does not load): $DONEGATE_MODE, else the config's, else
// enforce. A config's observe or off counts only where the person allowed
// that config: in a project nobody allowed, the agent could have written
// it (the person is told, modeNotice).
func (r *run) settleMode(c *config.Config) {
	r.mode = r.modeEnv
	if r.mode == "" && c != nil {
		r.mode = c.Mode
		if r.mode != config.ModeEnforce && r.mode != "" && r.consent != nil && !r.consent.ConfigAllowed {
			r.modeNotice = `donegate ignores the config's "mode": "` + r.mode + `": nobody allowed this project's config, and the agent can write it. Allow it (` + AllowCommand(r.consent.Project) + `), or set ` + ModeEnv + ` where you start the host`
			r.mode = ""
		}
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
