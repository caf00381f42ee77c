package closer

import "github.com/donegate/donegate/hookio"

// OpenCode has no hook file: donegate's OpenCode plugin holds the agent
// (setup_plugin.go).
var openCodeSetup = pluginSetup(hostSetup{
	host: hookio.HostOpenCode, marker: ".opencode", binary: "opencode",
	notes: func(*runCtx, initOptions) []string {
		return []string{"OpenCode loads donegate's plugin when it starts; under `opencode run` the checks run while OpenCode waits, elsewhere (the TUI, `opencode serve`) in the background once the agent is idle (docs/hosts.md, OpenCode)"}
	},
}, openCodePlugin("opencode", ".opencode"))
