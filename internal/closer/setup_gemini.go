package closer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/donegate/donegate/hookio"
)

// Gemini CLI's setup: .gemini/settings.json, its trusted folders and its
// plan tool.
var geminiSetup = hostSetup{
	// Gemini CLI: AfterAgent ends a turn (no subagent event);
	// BeforeAgent (each prompt) and SessionStart can add context.
	// Timeouts are in milliseconds, 60 s when an entry has none.
	host: hookio.HostGemini, marker: ".gemini", binary: "gemini",
	project: filepath.Join(".gemini", "settings.json"),
	regs:    hostRegs(hookio.HostGemini),
	timeout: hookTimeout * 1000, unit: time.Millisecond, defaultTimeout: 60 * time.Second,
	userFile: func(r *runCtx) string { return homeFile(r, ".gemini", "settings.json") },
	doctor:   (*runCtx).doctorGemini,
	plugins:  (*runCtx).geminiExtensions,
	notes: func(_ *runCtx, o initOptions) []string {
		if o.user {
			return nil
		}
		return []string{"Gemini CLI runs a project's hooks only in a trusted folder: trust this one when Gemini asks (headless runs: GEMINI_CLI_TRUST_WORKSPACE=true)"}
	},
}

// geminiExtensions are donegate's Gemini CLI extension where Gemini
// installs it (~/.gemini/extensions/donegate/); its enablement per
// folder is not read.
func (r *runCtx) geminiExtensions(*DoctorReport) []hostPlugin {
	root := homeFile(r, ".gemini", "extensions", "donegate")
	if root == "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(root, "gemini-extension.json")); err != nil {
		return nil
	}
	return []hostPlugin{{source: "Gemini CLI extension donegate (" + root + ")", root: root}}
}

// doctorGemini says whether Gemini CLI runs the project's hooks: only
// in a folder the user trusts (~/.gemini/trustedFolders.json), or with
// GEMINI_CLI_TRUST_WORKSPACE=true.
func (r *runCtx) doctorGemini(rep *DoctorReport, s hostSetup, regs []registration) {
	projectFile := filepath.Join(r.dir, s.project)
	if !slices.ContainsFunc(regs, func(reg registration) bool { return reg.file == projectFile }) {
		return // user-level hooks run in any folder
	}
	if r.env.Getenv("GEMINI_CLI_TRUST_WORKSPACE") == "true" {
		rep.add("gemini", statusOK, "", "GEMINI_CLI_TRUST_WORKSPACE=true: Gemini CLI runs the project's hooks")
		return
	}
	trustFile := filepath.Join(r.home(), ".gemini", "trustedFolders.json")
	data, _, _ := readSettings(trustFile)
	var folders map[string]string
	_ = json.Unmarshal(data, &folders) // none read: nothing trusted
	switch geminiTrust(folders, r.dir) {
	case "trusted":
		rep.add("gemini", statusOK, "", "%s is a trusted folder in %s: Gemini CLI runs the project's hooks", r.dir, trustFile)
	case "untrusted":
		rep.add("gemini", statusFail, "trust the folder in Gemini (/permissions), or move the hooks to ~/.gemini/settings.json",
			"%s is marked DO_NOT_TRUST in %s: Gemini CLI skips the project's hooks, donegate's included", r.dir, trustFile)
	default:
		rep.add("gemini", statusUnknown, "trust the folder when Gemini asks (headless runs: GEMINI_CLI_TRUST_WORKSPACE=true)",
			"Gemini CLI runs the project's hooks only in a trusted folder, and %s does not list %s: if Gemini's folder trust is on, donegate's hooks are skipped here", trustFile, r.dir)
	}
}

// geminiTrust judges dir from Gemini's trustedFolders.json: the nearest
// rule for dir or a folder above it decides (TRUST_FOLDER trusts the
// folder and below, TRUST_PARENT the folder's parent and below).
func geminiTrust(folders map[string]string, dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if folders[d] == "DO_NOT_TRUST" {
			return "untrusted"
		}
		if folders[d] == "TRUST_FOLDER" {
			return "trusted"
		}
		for p, rule := range folders {
			if rule == "TRUST_PARENT" && filepath.Dir(p) == d {
				return "trusted"
			}
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}
