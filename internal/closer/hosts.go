package closer

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// hookReg is one hook entry donegate registers: program (with flags)
// at a host's event, for matcher. A registration with flags runs
// program with them, and only a command with them counts as that
// registration: stop-hook at SessionStart tells the criteria only with
// --criteria.
type hookReg struct {
	event, matcher, program, flags string
	// role is the entry of hookio.Entries it registers.
	role hookio.Role
}

// hostSetup is what init writes, and doctor reads, for one agent host:
// its hook file and the entries donegate registers there. The event
// names are the host's own (Gemini's AfterAgent, Copilot's agentStop);
// hookio reads each as the Claude event it stands for.
type hostSetup struct {
	host hookio.Host
	// marker is the project dir whose presence says the project uses
	// the host; binary is the host's CLI, looked up on PATH.
	marker, binary string
	// project is the hook file init writes in DIR (relative to it).
	project string
	regs    []hookReg
	// flatHooks: a flat hook file ({"version": 1, "hooks": {"agentStop":
	// [{"type": "command", "bash": ...}]}}, Copilot CLI's), in every
	// .json of the hook file's dir; else the matcher groups of Claude
	// Code's settings.
	flatHooks bool
	// timeout is what init writes in each entry, in the host's unit
	// (unit): above the default limits.budget (540s), as for Claude Code.
	timeout int
	unit    time.Duration
	// millisFrom, when set, is the value from which the host reads a
	// timeout written in unit as milliseconds instead (Qwen Code: see its
	// setup).
	millisFrom int
	// defaultTimeout is what the host gives an entry with no timeout; 0
	// when its docs do not say.
	defaultTimeout time.Duration
	// plugin: the host has no hook file; init writes donegate's plugin
	// for it, which runs stop-hook (OpenCode, see setup_opencode.go).
	plugin bool
	// userFile is the user-level hook file (init --user), "" when HOME
	// is unknown; nil: the host has none.
	userFile func(r *runCtx) string
	// doctor says what the host's own config does to donegate's hooks,
	// found in its files; nil: nothing more than the registrations.
	doctor func(r *runCtx, rep *DoctorReport, s hostSetup, found []registration)
	// notes is what a person must still do once init set the host up
	// with o.
	notes func(r *runCtx, o initOptions) []string
	// installed, for a plugin host, reports whether its plugin is
	// where the host loads it (doctor then checks it, marker or not).
	installed func(r *runCtx) bool

	// change works out the change init makes to set the host up with o;
	// nil: hostChange, which merges the entries into its hook file.
	change func(r *runCtx, s hostSetup, o initOptions, commands map[string]string, rep *InitReport) (*change, error)
	// managed: the host runs hooks an administrator set for the machine
	// without review, and init --managed registers them there (see
	// change).
	managed bool
	// files are the files the host reads hooks from, user-level first;
	// nil: its user file (userFile) and the project's (project).
	files func(r *runCtx, s hostSetup) []hostFile
	// plugins are donegate's plugins or extensions the host loads hooks
	// from, where doctor finds them; nil: none.
	plugins func(r *runCtx, rep *DoctorReport) []hostPlugin

	// registrationsOf reads the registrations in the host's files its
	// own way (Claude Code's settings and plugins); nil: hostRegistrations.
	registrationsOf func(r *runCtx, rep *DoctorReport) []registration
	// doctorArea files the host's findings under a name of their own
	// ("settings"); "": the host's name. readsFrom says where it reads
	// registrations, for "not registered in …"; "": its files.
	doctorArea, readsFrom string
	// unregistered reports that no file registers donegate for the
	// host; nil: a warning naming its files.
	unregistered func(r *runCtx, rep *DoctorReport)
	// judgeEntry is the host's own check of a registration, after
	// judgeRegistrations' own, and reports whether it found a problem;
	// judgeAll its own checks of them all (served counts the entries
	// they serve, by role). nil: none.
	judgeEntry func(r *runCtx, rep *DoctorReport, reg registration, where string, c, found *config.Config) bool
	judgeAll   func(r *runCtx, rep *DoctorReport, regs []registration, cfg *config.Config, served map[hookio.Role]int)
	// client checks the host's CLI (Claude Code's version, its
	// sandbox); nil: none.
	client func(ctx context.Context, r *runCtx, rep *DoctorReport, claude string)
}

// title is the host's name as its makers write it (its spec's).
func (s hostSetup) title() string { return s.host.Title() }

// hostPlugin is a donegate plugin or extension a host loads hooks from:
// its hooks/hooks.json under root.
type hostPlugin struct {
	source string // what doctor calls it
	root   string
	// keySource is what the host hashes the hook's trust key with,
	// where it is not the file (Codex: "donegate@MARKET:hooks/hooks.json").
	keySource string
}

// homeFile is HOME/elem..., "" when HOME is not an absolute path.
func homeFile(r *runCtx, elem ...string) string {
	home := r.home()
	if !filepath.IsAbs(home) {
		return ""
	}
	return filepath.Join(append([]string{home}, elem...)...)
}

// hostSetups are the hosts init writes hook files for, in the order it
// names them. Cursor is not among them: it has no client here to check a
// hook file against, and it runs .claude/settings.json's.
var hostSetups = []hostSetup{claudeSetup, codexSetup, qwenSetup, geminiSetup, copilotSetup, openCodeSetup, kiloSetup, piSetup, droidSetup, clineSetup, qoderSetup, ampSetup}

// defaultSetup is the default host's setup (Claude Code's: the host
// whose settings files others read too, and the one init sets up where
// nothing says which), and otherSetups the rest, in init's order.
func defaultSetup() hostSetup  { return hostSetups[0] }
func otherSetups() []hostSetup { return hostSetups[1:] }

// setupOf returns host's setup.
func setupOf(host hookio.Host) (hostSetup, bool) {
	i := slices.IndexFunc(hostSetups, func(s hostSetup) bool { return s.host == host })
	if i < 0 {
		return hostSetup{}, false
	}
	return hostSetups[i], true
}

// hostNames lists the hosts init takes, for messages.
func hostNames() string {
	names := make([]string, len(hostSetups))
	for i, s := range hostSetups {
		names[i] = string(s.host)
	}
	return strings.Join(names, ", ")
}

// hostFiles names the file init writes in DIR for each host, for help:
// a hook file, or for a host that has none, donegate's plugin.
func hostFiles() string {
	files := make([]string, len(hostSetups))
	for i, s := range hostSetups {
		files[i] = filepath.ToSlash(s.project)
		if s.plugin {
			files[i] += " (" + s.title() + "'s plugin)"
		}
	}
	return strings.Join(files, ", ")
}

// hostList is --host: repeatable, each a name or a comma-separated list.
type hostList []hookio.Host

func (l *hostList) String() string {
	names := make([]string, len(*l))
	for i, h := range *l {
		names[i] = string(h)
	}
	return strings.Join(names, ",")
}

func (l *hostList) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if _, ok := setupOf(hookio.Host(name)); !ok {
			return fmt.Errorf("unknown host %q (init sets up: %s)", name, hostNames())
		}
		if !slices.Contains(*l, hookio.Host(name)) {
			*l = append(*l, hookio.Host(name))
		}
	}
	return nil
}

var _ flag.Value = (*hostList)(nil)

// userFile is the user-level hook file of s (init --user), "" when HOME
// is unknown.
func (r *runCtx) userFile(s hostSetup) string {
	if s.userFile == nil {
		return ""
	}
	return s.userFile(r)
}

// detectHosts picks the hosts init sets up when --host is not given, and
// says why. The project's own dirs decide first (.claude/, .codex/,
// .qwen/, .gemini/, .github/hooks/): a team that committed one uses that
// host, whatever else a teammate has installed. Without any, the host
// CLIs on PATH decide; without those either, Claude Code, as before
// hosts other than it were known. So a user of one host gets exactly it.
func (r *runCtx) detectHosts() (hostList, string) {
	var inProject, onPATH hostList
	var whyProject, whyPath []string
	for _, s := range hostSetups {
		if st, err := os.Stat(filepath.Join(r.dir, s.marker)); err == nil && st.IsDir() {
			inProject = append(inProject, s.host)
			whyProject = append(whyProject, s.markerDir())
		}
		if onPath(r.env.Getenv("PATH"), s.binary) {
			onPATH = append(onPATH, s.host)
			whyPath = append(whyPath, s.binary)
		}
	}
	switch {
	case len(inProject) > 0:
		return inProject, "the project has " + andList(whyProject)
	case len(onPATH) > 0:
		return onPATH, andList(whyPath) + " on PATH, and the project has none of " + markerList()
	}
	return hostList{defaultSetup().host}, "none of " + markerList() + " in the project, and no host CLI on PATH: the default"
}

// markerDir is the host's marker as a directory is written on this
// system: .claude/, or .github\hooks\ on Windows.
func (s hostSetup) markerDir() string { return s.marker + string(filepath.Separator) }

func markerList() string {
	var m []string
	for _, s := range hostSetups {
		m = append(m, s.markerDir())
	}
	return strings.Join(m, ", ")
}
