package closer

import (
	"path/filepath"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/plugin"
)

// The Cline CLI runs every file of its hooks dirs named after an event:
// init writes donegate's Cline hook (setup_plugin.go) as
// .clinerules/hooks/PreToolUse.cjs, beside any PreToolUse hook of the
// person's, or with --user into $CLINE_DIR/hooks/ (else ~/.cline/hooks/).
var clineSetup = pluginSetup(hostSetup{
	host: hookio.HostCline, marker: ".clinerules", binary: "cline",
	notes: func(*runCtx, initOptions) []string {
		return []string{"Cline runs donegate's hook at each tool call; it holds the agent of `cline --yolo`, whose run ends with submit_and_exit. A run in Cline's default mode ends with the agent's text, which no hook of Cline's can continue: nothing holds it there (docs/hosts.md, Cline CLI)"}
	},
}, pluginDirs{
	project: []string{".clinerules", ".cline"}, subdirs: []string{"hooks"},
	user: func(r *runCtx) string {
		if d := hookio.ClineDir(r.env.Getenv); filepath.IsAbs(d) {
			return d
		}
		return ""
	},
	userHint: filepath.Join("~", ".cline"),
	source:   plugin.Cline, stopHookLine: plugin.ClineStopHook, marker: "donegate for Cline", what: "Cline hook",
	file: hookio.ClineHookFile,
})
