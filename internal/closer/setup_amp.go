package closer

import (
	"path/filepath"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/plugin"
)

// Amp has no hook file: donegate's plugin for Amp holds the agent
// (setup_plugin.go). Amp loads it from .amp/plugins/ and the user's
// $XDG_CONFIG_HOME/amp/plugins/ (else ~/.config/amp/plugins/), and only
// when it runs with PLUGINS=all, which doctor reads from its own
// environment.
var ampSetup = func() hostSetup {
	s := pluginSetup(hostSetup{
		host: hookio.HostAmp, marker: ".amp", binary: "amp",
		notes: func(*runCtx, initOptions) []string {
			return []string{"Amp loads plugins only when it runs with PLUGINS=all (`PLUGINS=all amp`, or export it in your shell's profile); then donegate's plugin runs stop-hook when the agent ends a turn, and Amp goes on while work is open, up to 5 continuations in a row, its own cap (docs/hosts.md, Amp)"}
		},
	}, pluginDirs{
		project: []string{".amp"}, subdirs: []string{"plugins"},
		user:     func(r *runCtx) string { return r.xdgConfigDir("amp") },
		userHint: filepath.Join("~", ".config", "amp"),
		source:   plugin.Amp, stopHookLine: plugin.AmpStopHook, marker: "donegate for Amp", what: "plugin for Amp",
		file: hookio.AmpPluginFile,
	})
	doctorPlugin := s.doctor
	s.doctor = func(r *runCtx, rep *DoctorReport, s hostSetup, regs []registration) {
		doctorPlugin(r, rep, s, regs)
		const fix = "start Amp as `PLUGINS=all amp`, or export PLUGINS=all in your shell's profile"
		switch v := r.env.Getenv("PLUGINS"); v {
		case "all":
			rep.add(string(s.host), statusOK, "", "PLUGINS=all here: Amp started from this environment loads its plugins")
		case "":
			rep.add(string(s.host), statusWarn, fix, "PLUGINS is not set here: Amp started from this environment loads no plugin, donegate's included, and nothing holds its agent")
		default:
			rep.add(string(s.host), statusWarn, fix, "PLUGINS is %q here; Amp's docs load plugins with PLUGINS=all", v)
		}
	}
	return s
}()
