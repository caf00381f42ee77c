package closer

import (
	"path/filepath"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/plugin"
)

// pi has no hook file: donegate's extension for pi holds the agent
// (setup_plugin.go). pi loads it from .pi/extensions/ once the person
// trusts the project, and from the user's ~/.pi/agent/extensions/
// ($PI_CODING_AGENT_DIR/extensions/) always.
var piSetup = pluginSetup(hostSetup{
	host: hookio.HostPi, marker: ".pi", binary: "pi",
	notes: func(*runCtx, initOptions) []string {
		return []string{"pi loads donegate's extension from .pi/extensions/ once you trust the project (pi asks at its next start; --user puts it in ~/.pi/agent/extensions/, loaded everywhere); it runs stop-hook when a run would settle, in the background (docs/hosts.md, pi)"}
	},
}, pluginDirs{
	project: []string{".pi"}, subdirs: []string{"extensions"},
	user: func(r *runCtx) string {
		if d := r.env.Getenv("PI_CODING_AGENT_DIR"); filepath.IsAbs(d) {
			return d
		}
		if home := r.home(); filepath.IsAbs(home) {
			return filepath.Join(home, ".pi", "agent")
		}
		return ""
	},
	userHint: filepath.Join("~", ".pi", "agent"),
	source:   plugin.Pi, stopHookLine: plugin.PiStopHook, marker: "donegate for pi", what: "extension for pi",
})
