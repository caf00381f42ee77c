package closer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// configTarget is the config init writes (or keeps): the one the project
// has already, in the order the hooks look them up (config.ProjectFiles);
// else .claude/donegate.json when Claude Code is among the hosts, whose
// project files live in .claude/, and the host-neutral .donegate.json
// when it is not.
func (r *runCtx) configTarget(hosts hostList) string {
	files := config.ProjectFiles(r.dir)
	for _, p := range files {
		if _, err := os.Lstat(p); err == nil {
			return p
		}
	}
	if slices.Contains(hosts, defaultSetup().host) { // .claude/ is the default host's
		return files[0]
	}
	return filepath.Join(r.dir, config.NeutralFileName)
}

// usesProgram reports whether init registers program for host.
func usesProgram(host hookio.Host, program string) bool {
	s, _ := setupOf(host)
	if s.plugin {
		return program == "stop-hook"
	}
	return slices.ContainsFunc(s.regs, func(e hookReg) bool { return e.program == program })
}

// hostChange works out the hook file of a host other than Claude Code
// and the change to it, as settingsChange does for Claude Code's: nil
// when every entry is registered already, there or in another file the
// host reads.
func (r *runCtx) hostChange(s hostSetup, o initOptions, commands map[string]string, rep *InitReport) (*change, error) {
	target, root := filepath.Join(r.dir, s.project), r.dir
	if o.user {
		if target = r.userFile(s); target == "" {
			return nil, errorf(ErrEnv, "--user: the user's %s dir is unknown (HOME is unset): set HOME, and run init again", s.title())
		}
		root = filepath.Dir(target)
	}
	fix := fmt.Sprintf("add donegate's entries by hand (docs/install.md, Set up %s)", s.title())
	return r.mergeChange(s, target, root, o.user, r.hostRegisteredElsewhere(s, target, rep), commands, fix, rep)
}

// hostRegisteredElsewhere returns the entries of s.regs (by index) that
// already run from another file the host reads (the user's and the
// project's, Codex's config.toml [hooks], Copilot's other hook files),
// and notes each: the host would run both, and each run spends
// limits.max_blocks, as for Claude Code.
func (r *runCtx) hostRegisteredElsewhere(s hostSetup, target string, rep *InitReport) map[int]bool {
	var scratch DoctorReport // what is wrong with those files is doctor's to say
	found := r.hostRegistrations(s, &scratch)
	return r.notAgain(s, found, func(file string) bool { return sameFile(file, target) }, target, rep)
}

// sameFile reports whether a and b name one file: the same path, or
// the same file through a link.
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// mergeCopilot adds to a Copilot hook file every entry of regs that is
// missing, as mergeHooks does to a settings file: every other key and
// entry keeps its value, its place and its bytes; nil when nothing is
// missing. Copilot's entries sit right in the event's list, with the
// command in "bash" and the timeout in "timeoutSec"; with windows, the
// command in "powershell" too, which Copilot runs on Windows instead of
// "bash" (its docs).
func mergeCopilot(data []byte, regs []hookReg, timeout int, commands map[string]string, skip map[int]bool, windows bool) ([]byte, error) {
	version := func(root *jnode) {
		if root.get("version") == nil {
			root.set("version", newScalar(1))
		}
	}
	return mergeEntries(data, regs, skip, version, func(entries *jnode, reg hookReg) bool {
		if copilotRegistered(entries, reg.program, reg.flags) {
			return false
		}
		h := newObject()
		h.set("type", newScalar("command"))
		command := regCommand(commands[reg.program], reg.flags)
		h.set("bash", newScalar(command))
		if windows {
			h.set("powershell", newScalar(powerShellCommand(command)))
		}
		h.set("timeoutSec", newScalar(timeout))
		entries.items = append(entries.items, h)
		return true
	})
}

// powerShellCommand is command, written for sh (a name on PATH, or a
// path quoted by cli.ShellQuote, then flags), as PowerShell runs it: a
// quoted path is a string there, which the call operator & runs.
func powerShellCommand(command string) string {
	if strings.HasPrefix(command, "'") {
		return "& " + command
	}
	return command
}

// copilotRegistered reports whether a Copilot event's entries run
// program with flags (as registered judges a settings file's): an entry
// of type "command" whose bash command is ours.
func copilotRegistered(entries *jnode, program, flags string) bool {
	for _, h := range entries.items {
		if typ, ok := h.get("type").str(); ok && typ != "command" {
			continue
		}
		c, ok := h.get("bash").str()
		if ok && isOurs(c, program) && hasWord(c, criteriaFlag) == (flags == criteriaFlag) {
			return true
		}
	}
	return false
}

// hostNotes is what a person must still do for each host init set up:
// what no file init writes can do for them.
func (r *runCtx) hostNotes(hosts hostList, o initOptions) []string {
	var notes []string
	for _, h := range hosts {
		if s, _ := setupOf(h); s.notes != nil {
			notes = append(notes, s.notes(r, o)...)
		}
	}
	return notes
}
