package closer

import (
	"path/filepath"
	"time"

	"github.com/donegate/donegate/hookio"
)

// Claude Code's setup: its settings' hook entries (registrations, the
// doctor checks of its own in doctor.go).
var claudeSetup = hostSetup{
	host: hookio.HostClaude, title: "Claude Code", marker: ".claude", binary: "claude",
	project: filepath.Join(".claude", "settings.json"), regs: registrations,
	timeout: hookTimeout, unit: time.Second, defaultTimeout: defaultHookTimeout,
	userFile: func(r *runCtx) string {
		// $CLAUDE_CONFIG_DIR's settings, else ~/.claude's.
		dir := r.claudeDir("")
		if !filepath.IsAbs(dir) {
			return ""
		}
		return filepath.Join(dir, "settings.json")
	},
}
