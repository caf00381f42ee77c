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
	host: hookio.HostCopilot, marker: filepath.Join(".github", "hooks"), binary: "copilot",
	project:   filepath.Join(".github", "hooks", "donegate.json"),
	regs:      hostRegs(hookio.HostCopilot),
	flatHooks: true, timeout: hookTimeout, unit: time.Second,
	files:    copilotFiles,
	userFile: func(r *runCtx) string { return homeFile(r, ".copilot", "hooks", "donegate.json") },
	doctor:   (*runCtx).doctorCopilot,
	notes: func(_ *runCtx, o initOptions) []string {
		if o.user {
			return nil
		}
		return []string{"Copilot CLI runs a repository's hooks only in a folder you trust: trust this one when Copilot asks (headless runs: COPILOT_ALLOW_ALL=true)"}
	},
}

// copilotFiles are the hook files Copilot CLI reads: every .json in its
// user hook dir, then in the project's .github/hooks.
func copilotFiles(r *runCtx, s hostSetup) []hostFile {
	dirs := []struct{ what, dir string }{{"project hooks", filepath.Join(r.dir, ".github", "hooks")}}
	if u := r.userFile(s); u != "" {
		dirs = slices.Insert(dirs, 0, struct{ what, dir string }{"user hooks", filepath.Dir(u)})
	}
	var files []hostFile
	for _, d := range dirs {
		names, _ := filepath.Glob(filepath.Join(d.dir, "*.json"))
		slices.Sort(names)
		for _, n := range names {
			files = append(files, hostFile{what: d.what, path: n})
		}
	}
	return files
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
