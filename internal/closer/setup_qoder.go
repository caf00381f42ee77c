package closer

import (
	"path/filepath"
	"time"

	"github.com/donegate/donegate/hookio"
)

// The Qoder CLI's setup, by contract (its docs): Claude Code's hook shape
// under the "hooks" key of .qoder/settings.json, timeouts in seconds.
var qoderSetup = hostSetup{
	host: hookio.HostQoder, marker: ".qoder", binary: "qodercli",
	project: filepath.Join(".qoder", "settings.json"),
	regs:    hostRegs(hookio.HostQoder),
	timeout: hookTimeout, unit: time.Second,
	userFile: func(r *runCtx) string { return homeFile(r, ".qoder", "settings.json") },
	notes: func(*runCtx, initOptions) []string {
		return []string{"Qoder CLI runs the hooks of .qoder/settings.json in Claude Code's shape, from its docs: no Qoder CLI ran here (docs/hosts.md, Qoder CLI)"}
	},
}
