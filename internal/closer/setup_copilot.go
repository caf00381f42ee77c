package closer

import (
	"path/filepath"
	"slices"
	"time"

	"github.com/donegate/donegate/hookio"
)

// Copilot CLI's setup: a hook file of donegate's own among
// .github/hooks/*.json, in Copilot's flat shape, and its folder trust.
var copilotSetup = hostSetup{
	// Copilot CLI: its own flat shape, timeoutSec in seconds, in a
	// file of donegate's own among .github/hooks/*.json.
	host: hookio.HostCopilot, title: "Copilot CLI", marker: filepath.Join(".github", "hooks"), binary: "copilot",
	project: filepath.Join(".github", "hooks", "donegate.json"),
	regs: []hookReg{
		{"agentStop", "", "stop-hook", ""},
		{"subagentStop", "", "stop-hook", ""},
	},
	copilot: true, timeout: hookTimeout, unit: time.Second,
	userFile: func(r *runCtx) string { return homeFile(r, ".copilot", "hooks", "donegate.json") },
	doctor:   (*runCtx).doctorCopilot,
	notes: func(o initOptions) []string {
		if o.user {
			return nil
		}
		return []string{"Copilot CLI runs a repository's hooks only in a folder you trust: trust this one when Copilot asks (headless runs: COPILOT_ALLOW_ALL=true)"}
	},
}

// doctorCopilot says that Copilot CLI runs a repository's hooks only in
// a folder the user trusts; doctor cannot see that trust.
func (r *runCtx) doctorCopilot(rep *DoctorReport, _ hostSetup, regs []registration) {
	dir := filepath.Join(r.dir, ".github", "hooks")
	if !slices.ContainsFunc(regs, func(reg registration) bool { return filepath.Dir(reg.file) == dir }) {
		return
	}
	if r.env.Getenv("COPILOT_ALLOW_ALL") == "true" {
		rep.add("copilot", statusOK, "", "COPILOT_ALLOW_ALL=true: Copilot CLI runs the repository's hooks")
		return
	}
	rep.add("copilot", statusUnknown, "trust the folder when Copilot asks (headless runs: COPILOT_ALLOW_ALL=true)",
		"Copilot CLI runs the repository's hooks (.github/hooks/) only in a folder you trust, and skips them silently otherwise: doctor cannot see that trust")
}
