package gate

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/otlp"
	"github.com/donegate/donegate/internal/regular"
)

// ModeEnv names the environment variable that sets the hooks' mode for
// every project, over the config's "mode": set where the host starts
// (DONEGATE_MODE=observe claude), it is the person's switch.
const ModeEnv = "DONEGATE_MODE"

// envMode is the mode $DONEGATE_MODE sets, "" for none; a value that is
// no mode is said on stderr and ignored. newRun reads it once a run, from
// the person's environment (see personsEnv).
func (r *run) envMode() string {
	m := r.env.Getenv(ModeEnv)
	switch m {
	case "", config.ModeEnforce, config.ModeObserve, config.ModeOff:
		return m
	}
	fmt.Fprintf(r.stderr, "%s: %s=%q is no mode (enforce, observe or off); ignored\n", r.name, ModeEnv, m)
	return ""
}

// personsVars are the variables that loosen or move the gate: its mode,
// where its records and the person's consent are kept, which config it
// reads. They are the person's: one that a project's host settings put in
// the hooks' environment (Claude Code's "env" in .claude/settings.json
// and settings.local.json, files the agent can write) is ignored. Set to
// an empty dir, DONEGATE_STATE_DIR alone would make an allowed project
// one nobody allowed, whose commands run nowhere and hold nobody.
var personsVars = []string{ModeEnv, "DONEGATE_STATE_DIR", "DONEGATE_CONFIG"}

// personsEnv is env less the personsVars and the export's variables
// (otlp.Vars) that the settings of the project in projectDir set (read
// only when one of them is set), and the notice that tells the person of
// the personsVars ignored ("" when none is). An export setting the
// project makes is ignored without a word at every stop (a team may
// commit OpenTelemetry settings for its host's own telemetry): closer
// doctor says it.
func personsEnv(env Env, projectDir func() string) (Env, string) {
	set := false
	for _, v := range personsVars {
		set = set || env.Getenv(v) != ""
	}
	for _, v := range otlp.Vars {
		set = set || env.Getenv(v) != ""
	}
	if !set {
		return env, ""
	}
	file, names := projectSetsVars(projectDir())
	var ignored, told []string
	for _, n := range names {
		if env.Getenv(n) != "" {
			ignored = append(ignored, n)
			if slices.Contains(personsVars, n) {
				told = append(told, n)
			}
		}
	}
	if len(ignored) == 0 {
		return env, ""
	}
	getenv, environ := env.Getenv, env.environ
	env.Getenv = func(name string) string {
		if slices.Contains(ignored, name) {
			return ""
		}
		return getenv(name)
	}
	env.Environ = func() []string {
		return slices.DeleteFunc(environ(), func(kv string) bool {
			name, _, _ := strings.Cut(kv, "=")
			return slices.Contains(ignored, name)
		})
	}
	if len(told) == 0 {
		return env, ""
	}
	return env, "donegate ignores " + strings.Join(told, ", ") + ": " + file + " sets it in the hooks' environment, and the project's settings are the agent's to write. Set it where you start the host (" + ModeEnv + "=observe claude), or in your user settings"
}

// ProjectSetsVars names the project's host settings file whose "env"
// sets one of donegate's person's variables, which the hooks ignore, and
// which it sets (see personsEnv); "" for none.
func ProjectSetsVars(projectDir string) (string, []string) { return projectSetsVars(projectDir) }

// maxSettingsBytes bounds a host settings file read for its "env".
const maxSettingsBytes = 1 << 20

// projectSetsVars names the first of the project's host settings files
// (see hookio.ProjectEnvFiles) whose "env" sets any of personsVars, and
// those it sets in all of them. A file that cannot be read, is no regular
// file or is over maxSettingsBytes sets nothing the host could read
// either.
func projectSetsVars(projectDir string) (file string, names []string) {
	for _, rel := range hookio.ProjectEnvFiles() {
		path := filepath.Join(projectDir, filepath.FromSlash(rel))
		f, err := regular.Open(path)
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, maxSettingsBytes))
		f.Close()
		if err != nil {
			continue
		}
		for _, v := range slices.Concat(personsVars, otlp.Vars) {
			if gjson.GetBytes(data, "env."+v).Exists() && !slices.Contains(names, v) {
				if file == "" {
					file = path
				}
				names = append(names, v)
			}
		}
	}
	return file, names
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
