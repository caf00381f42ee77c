package closer

import (
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/tidwall/gjson"
)

// sandboxJSON is the sandbox docs/security.md proposes for Claude Code:
// every Bash call in it, none let out of it, and no run without it.
const sandboxJSON = `"sandbox": {"enabled": true, "failIfUnavailable": true, "autoAllowBashIfSandboxed": true, "allowUnsandboxedCommands": false}`

// claudeSandbox is what Claude Code's settings say of its sandbox: the
// settings files it reads, the later one winning key by key (user,
// project, local), as far as "sandbox.enabled" and
// "sandbox.allowUnsandboxedCommands" go.
type claudeSandbox struct {
	enabled, letOut bool
	// from is the file that turned it on (or last set it).
	from string
}

// sandboxOf reads the sandbox settings of the project in r.dir.
func (r *runCtx) sandboxOf() claudeSandbox {
	sb := claudeSandbox{letOut: true} // allowUnsandboxedCommands defaults to true
	for _, path := range []string{
		filepath.Join(r.claudeDir(""), "settings.json"),
		filepath.Join(r.dir, ".claude", "settings.json"),
		filepath.Join(r.dir, ".claude", "settings.local.json"),
	} {
		data, _, err := readSettings(path)
		if err != nil || data == nil {
			continue
		}
		if v := gjson.GetBytes(data, "sandbox.enabled"); v.Exists() {
			sb.enabled, sb.from = v.Bool(), path
		}
		if v := gjson.GetBytes(data, "sandbox.allowUnsandboxedCommands"); v.Exists() {
			sb.letOut = v.Bool()
		}
	}
	return sb
}

// doctorSandbox reports whether Claude Code's sandbox keeps the agent's
// Bash out of donegate's state dir and the settings, which nothing else
// can against an agent that hides what it runs (docs/security.md).
func (r *runCtx) doctorSandbox(rep *DoctorReport) {
	sb := r.sandboxOf()
	switch {
	case !sb.enabled:
		// Not a problem of the setup: the gate holds without it as far as
		// docs/security.md says. Told, so that the person knows the step.
		rep.add("sandbox", statusOK, "", "Claude Code's sandbox is not on (optional): with it on, the agent's Bash cannot write donegate's state dir or the settings, which closes what a command hiding what it runs could still do (docs/security.md); add %s to %s", sandboxJSON, filepath.Join(r.claudeDir(""), "settings.json"))
	case sb.letOut:
		rep.add("sandbox", statusWarn, `set "allowUnsandboxedCommands": false in "sandbox"`, "Claude Code's sandbox is on (%s), but a call with dangerouslyDisableSandbox may leave it (allowUnsandboxedCommands is not false)", r.display(sb.from))
	default:
		rep.add("sandbox", statusOK, "", "Claude Code's sandbox is on (%s), with no way out: the agent's Bash cannot write donegate's state dir or the settings", r.display(sb.from))
	}
	if sb.enabled && runtime.GOOS == "linux" {
		for _, p := range []string{"bwrap", "socat"} {
			if _, err := exec.LookPath(p); err != nil {
				rep.add("sandbox", statusFail, "install bubblewrap and socat (apt-get install bubblewrap socat)", "%s is not on PATH: Claude Code's sandbox needs it on Linux", p)
			}
		}
	}
}
