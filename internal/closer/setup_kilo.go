package closer

import "github.com/donegate/donegate/hookio"

// The Kilo CLI, an OpenCode fork, loads the same plugin as OpenCode
// (setup_plugin.go), from .kilo/ or .kilocode/ in the project and
// ~/.config/kilo/ (7.7.7; not from .opencode/).
var kiloSetup = pluginSetup(hostSetup{
	host: hookio.HostKilo, marker: ".kilo", binary: "kilo",
	notes: func(*runCtx, initOptions) []string {
		return []string{"Kilo loads donegate's plugin when it starts; under `kilo run` the checks run while Kilo waits, elsewhere (the TUI, `kilo serve`) in the background once the agent is idle (docs/hosts.md, Kilo CLI)"}
	},
}, openCodePlugin("kilo", hookio.KiloProjectDirs...))
