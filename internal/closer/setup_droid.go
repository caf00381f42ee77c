package closer

import (
	"path/filepath"
	"time"

	"github.com/donegate/donegate/hookio"
)

// Factory Droid's setup: Claude Code's hook shape under the "hooks" key
// of .factory/settings.json, timeouts in seconds. Droid 0.225.2 reads no
// .factory/hooks.json, though its docs name it.
var droidSetup = hostSetup{
	host: hookio.HostDroid, marker: ".factory", binary: "droid",
	project: filepath.Join(".factory", "settings.json"),
	regs:    hostRegs(hookio.HostDroid),
	timeout: hookTimeout, unit: time.Second,
	userFile: func(r *runCtx) string { return homeFile(r, ".factory", "settings.json") },
	notes: func(*runCtx, initOptions) []string {
		return []string{"Factory Droid runs the hooks of .factory/settings.json's \"hooks\" key (0.225.2 ignores .factory/hooks.json); droid exec needs --auto low or higher for the agent to change files"}
	},
}
