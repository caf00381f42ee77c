package closer

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/jsondepth"
	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/safewrite"
)

var initCommand = command{
	name: "init",
	summary: reflow(`Set donegate up in DIR: write its config and register its hooks for
each agent host (--host ` + hostNames() + `; by default
the hosts whose dirs the project has, else whose CLIs are on PATH, else
Claude Code). The config gets the plan checker, the test command detected
from the project's files (a Bazel workspace, go.mod, a go.work, package.json with a "test"
script, pyproject.toml, setup.cfg or pytest.ini, Cargo.toml, a Makefile
with a test target) and the type-check, lint and format presets the project has tools
for: .claude/donegate.json with Claude Code, else .donegate.json; an
existing one is kept unless --force. The hooks are merged into each host's
file (` + hostFiles() + `; --user: the user's),
keeping every other hook and setting; a hook that already runs from
another file the host reads or an enabled plugin is not registered again
(the host would run both), and init says so. It never trusts a hook for
the user (Codex's trusted_hash): it says what to do. The commands are the
bare names stop-hook and posttooluse-hook, found on PATH, as suits a file
a team commits (--absolute: the paths of the binaries beside closer, else
on PATH, for this machine only); with the donegate plugin, which registers
them itself, --no-hooks writes the config only. A file init changes is
backed up first (into donegate.bak/ beside it, with the file's mode; a
.gitignore there keeps the backups out of git status) and replaced
through a rename. A file that is a link is written through it (in DIR,
only when it leads to a file inside DIR); a dangling link, a link at a
.bak, a FIFO, a device or a read-only file is refused, and nothing is
written. A second run changes nothing.`),
	noConfig: true,
	bind: func(fs *flag.FlagSet, _ *options) runFunc {
		var o initOptions
		fs.BoolVar(&o.dryRun, "dry-run", false, "print the diff of each file init would change, and write nothing")
		fs.BoolVar(&o.user, "user", false, "register the hooks in the user's files (~/.claude/settings.json or $CLAUDE_CONFIG_DIR's, $CODEX_HOME/hooks.json, ~/.qwen/settings.json, ~/.gemini/settings.json, ~/.copilot/hooks/donegate.json) instead of DIR's")
		fs.BoolVar(&o.absolute, "absolute", false, "write the hook commands as absolute paths of this machine's binaries (default: bare names, looked up on PATH, which suit a settings file shared in a repository)")
		fs.BoolVar(&o.portable, "portable", false, "bare names: the default; kept for the scripts that pass it")
		fs.BoolVar(&o.force, "force", false, "replace an existing .claude/donegate.json or .donegate.json (it is backed up first)")
		fs.BoolVar(&o.managed, "managed", false, "with --host codex: register the hooks in Codex's managed requirements ("+codexRequirementsPath+", or $DONEGATE_CODEX_REQUIREMENTS), which Codex runs without review, for every user of the machine; needs the right to write there")
		fs.BoolVar(&o.noHooks, "no-hooks", false, "write the config only and register no hooks (the donegate plugin registers them itself)")
		fs.Var(&o.hosts, "host", "the agent `host`s to register the hooks for: "+hostNames()+"; repeat it or give a comma-separated list (default: the hosts whose dirs the project has, else whose CLIs are on PATH, else claude)")
		return func(ctx context.Context, r *runCtx) (verdict, error) { return runInit(ctx, r, o) }
	},
}

// initOptions are init's flags.
type initOptions struct {
	dryRun, user, portable, absolute, force, noHooks, managed bool
	hosts                                                     hostList
}

// schemaURL is what the written config's "$schema" points at, so editors
// complete and check it.
const schemaURL = "https://raw.githubusercontent.com/donegate/donegate/main/schema/donegate.schema.json"

// hookTimeout is the timeout of every registration, in seconds: the
// default budget (540s) must stay below it.
const hookTimeout = 600

// criteriaFlag makes stop-hook tell the agent what will be checked;
// startFlag makes it start the stop's checks, in the background (the
// registration with it is an "async" one: see background).
const (
	criteriaFlag = hookio.CriteriaFlag
	startFlag    = hookio.StartFlag
)

// hostRegs are the hook entries init writes for host, and doctor
// expects: hookio.Entries, as the host registers them.
func hostRegs(host hookio.Host) []hookReg {
	var regs []hookReg
	for _, e := range host.Entries() {
		regs = append(regs, hookReg{e.Event, e.Matcher, e.Program, e.Flag, e.Role})
	}
	return regs
}

// background reports whether the host runs reg without waiting for it
// (Claude Code's "async": true).
func (reg hookReg) background() bool { return reg.flags == startFlag }

// regCommand is the command that registers program with flags.
func regCommand(program, flags string) string {
	if flags == "" {
		return program
	}
	return program + " " + flags
}

// executable is os.Executable; tests replace it to put hook binaries
// beside closer.
var executable = os.Executable

// maxSettingsBytes bounds what init reads of a settings file or
// manifest: real ones are a few KiB.
const maxSettingsBytes = 1 << 20

// InitReport is init's --json output.
type InitReport struct {
	DryRun bool `json:"dryRun"`
	// Hosts are the agent hosts set up; Detected says why, when --host
	// did not name them.
	Hosts    []string `json:"hosts"`
	Detected string   `json:"detected,omitempty"`
	// Test is the detected test command, "" when none was.
	Test     string     `json:"test"`
	TestFrom string     `json:"testFrom,omitempty"`
	Presets  []string   `json:"presets"`
	Files    []InitFile `json:"files"`
	Notes    []string   `json:"notes"`
	// Allowed is the consent init gave (see closer allow); nil for a dry
	// run.
	Allowed *AllowReport `json:"allowed,omitempty"`
}

// InitFile is what init did, or would do, to one file.
type InitFile struct {
	Path string `json:"path"`
	// Action is "created", "updated", "unchanged" or "kept" (an existing
	// config, left as it is without --force).
	Action string `json:"action"`
	Backup string `json:"backup,omitempty"`
	Diff   string `json:"diff,omitempty"`
	// hooks: a hook file, not the config.
	hooks bool
}

// change is one file to write: new content, and the old when it exists.
type change struct {
	path    string // absolute, symbolic links resolved
	root    string // the dir path must resolve inside: the project's, or the user's settings'
	display string // as the user named it: relative to DIR when inside it
	old     []byte // nil when the file does not exist
	new     []byte
	mode    fs.FileMode
	hooks   bool // a hook file, not the config
}

func runInit(ctx context.Context, r *runCtx, o initOptions) (verdict, error) {
	if err := o.usable(r.opts); err != nil {
		return incomplete, err
	}
	if !o.dryRun {
		// init registers the hooks and allows the project: the person's.
		if err := r.personOnly("init"); err != nil {
			return incomplete, err
		}
	}
	rep := InitReport{DryRun: o.dryRun, Presets: []string{}, Files: []InitFile{}, Notes: []string{}}
	hosts := o.hosts
	if len(hosts) == 0 {
		hosts, rep.Detected = r.detectHosts()
	}
	for _, h := range hosts {
		rep.Hosts = append(rep.Hosts, string(h))
	}

	// Everything is worked out before anything is written: bad input
	// ends the run with every file as it was.
	proj, err := detectProject(r.dir)
	if err != nil {
		return incomplete, errorf(ErrEnv, "%w", err)
	}
	rep.Test, rep.TestFrom, rep.Presets, rep.Notes = proj.test, proj.testFrom, proj.presets, proj.notes

	var changes []change
	if c, err := r.configChange(hosts, proj, o, &rep); err != nil {
		return incomplete, err
	} else if c != nil {
		changes = append(changes, *c)
	}

	var commands map[string]string
	if o.noHooks {
		rep.Notes = append(rep.Notes, "--no-hooks: no hooks registered; the donegate plugin (or your own settings) must register them")
	} else {
		commands, err = r.hookCommands(o.absolute, hosts, &rep)
		if err != nil {
			return incomplete, err
		}
		for _, h := range hosts {
			s, _ := setupOf(h)
			change := (*runCtx).hostChange
			if s.change != nil {
				change = s.change
			}
			c, err := change(r, s, o, commands, &rep)
			if err != nil {
				return incomplete, err
			}
			if c != nil {
				changes = append(changes, *c)
			}
		}
	}

	for _, c := range changes {
		if err := c.check(); err != nil {
			return incomplete, err
		}
	}
	for _, c := range changes {
		f := InitFile{Path: c.display, Action: "created", hooks: c.hooks}
		if c.old != nil {
			f.Action = "updated"
			f.Backup = r.display(backupPath(c.path))
		}
		if o.dryRun {
			if f.Diff, err = c.diff(); err != nil {
				return incomplete, err
			}
			f.Backup = ""
		}
		rep.Files = append(rep.Files, f)
	}
	if !o.dryRun {
		if err := writeAll(changes); err != nil {
			return incomplete, errorf(ErrEnv, "%w", err)
		}
		// The person set the project up: that is consent to run what its
		// config runs, as it is now (see closer allow).
		allowed, err := r.allow("closer init")
		if err != nil {
			return incomplete, err
		}
		rep.Allowed = &allowed
	}
	if !o.noHooks {
		rep.Notes = append(rep.Notes, r.hostNotes(hosts, o)...)
	}
	if r.opts.json {
		return complete, writeJSON(r.stdout, rep)
	}
	return complete, r.printInit(rep, commands)
}

// usable reports a usage error in o's flags (opts: the common ones).
func (o initOptions) usable(opts options) error {
	if opts.configPath != "" {
		return errorf(ErrUsage, "--config: init writes DIR/.claude/donegate.json (or DIR/.donegate.json); use --dir to choose the project")
	}
	if o.noHooks && (o.user || o.portable || o.absolute) {
		return errorf(ErrUsage, "--no-hooks registers no hooks: --user, --portable and --absolute have nothing to do with it")
	}
	if o.managed {
		var managed []string
		for _, s := range hostSetups {
			if s.managed {
				managed = append(managed, string(s.host))
			}
		}
		if o.user || o.noHooks || len(o.hosts) != 1 || !slices.Contains(managed, string(o.hosts[0])) {
			return errorf(ErrUsage, "--managed writes a host's managed hooks (%s): give it with one --host, and without --user or --no-hooks", strings.Join(managed, ", "))
		}
	}
	if o.portable && o.absolute {
		return errorf(ErrUsage, "--portable and --absolute: choose one (bare names are the default)")
	}
	return nil
}

// configChange works out init's change to the project's config (nil:
// none, the file kept or already so), and notes it in rep.
func (r *runCtx) configChange(hosts hostList, proj project, o initOptions, rep *InitReport) (*change, error) {
	cfgPath := r.configTarget(hosts)
	cfgOld, cfgMode, err := readSettings(cfgPath)
	if err != nil {
		return nil, errorf(ErrEnv, "%w", err)
	}
	cfgNew := proj.config()
	if proj.noTest != "" && (cfgOld == nil || o.force) {
		// Of the config init writes; one it keeps says what it says.
		rep.Notes = append(rep.Notes, proj.noTest)
	}
	switch {
	case cfgOld != nil && !o.force:
		rep.Files = append(rep.Files, InitFile{Path: r.display(cfgPath), Action: "kept"})
		rep.Notes = append(rep.Notes, r.display(cfgPath)+" exists: left as it is (--force replaces it, after a backup)")
	case bytes.Equal(cfgOld, cfgNew):
		rep.Files = append(rep.Files, InitFile{Path: r.display(cfgPath), Action: "unchanged"})
	default:
		real, root, err := resolveDest(cfgPath, r.dir, false)
		if err != nil {
			return nil, errorf(ErrEnv, "%w", err)
		}
		return &change{path: real, root: root, display: r.display(real), old: cfgOld, new: cfgNew, mode: cfgMode}, nil
	}
	return nil, nil
}

// mergeChange works out the change that merges s's entries, but those
// in skip, into the hook file target, written through a link to a file
// inside root (anywhere with --user): nil when none is missing. fix says
// what else the person can do when the file cannot be read.
func (r *runCtx) mergeChange(s hostSetup, target, root string, user bool, skip map[int]bool, commands map[string]string, fix string, rep *InitReport) (*change, error) {
	// A hook file linked from a dotfiles repository is written through
	// the link, which stays a link: the user's own, with --user; in a
	// project, only a link to a file inside it.
	path, root, err := resolveDest(target, root, user)
	if err != nil {
		return nil, errorf(ErrEnv, "%w", err)
	}
	old, mode, err := readSettings(path)
	if err != nil {
		return nil, errorf(ErrEnv, "%w", err)
	}
	var merged []byte
	if s.flatHooks {
		merged, err = mergeCopilot(old, s.regs, s.timeout, commands, skip, runtime.GOOS == "windows")
	} else {
		merged, err = mergeHooks(old, s.regs, s.timeout, commands, skip)
	}
	if err != nil {
		return nil, errorf(ErrConfig, "%s: %w; it is left as it is: fix it, or %s", r.display(path), err, fix)
	}
	if merged == nil {
		rep.Files = append(rep.Files, InitFile{Path: r.display(path), Action: "unchanged", hooks: true})
		if len(skip) < len(s.regs) {
			rep.Notes = append(rep.Notes, r.display(path)+": the donegate hooks are registered already")
		}
		return nil, nil
	}
	return &change{path: path, root: root, display: r.display(path), old: old, new: merged, mode: mode, hooks: true}, nil
}

// notAgain returns the entries of s.regs (by index) that one of found
// (registrations read as doctor reads them) runs from a file other than
// target (isTarget says which), and notes each by where it runs from.
func (r *runCtx) notAgain(s hostSetup, found []registration, isTarget func(file string) bool, target string, rep *InitReport) map[int]bool {
	skip := map[int]bool{}
	bySource := map[string][]string{}
	var sources []string
	for i, e := range s.regs {
		for _, reg := range found {
			if isTarget(reg.file) || !runsEntry(reg, e.event, e.matcher, e.program, e.flags) {
				continue
			}
			skip[i] = true
			if _, seen := bySource[reg.source]; !seen {
				sources = append(sources, reg.source)
			}
			if what := regCommand(e.program, e.flags) + " at " + e.event; !slices.Contains(bySource[reg.source], what) {
				bySource[reg.source] = append(bySource[reg.source], what)
			}
			break
		}
	}
	for _, src := range sources {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%s already run from %s: not registered again in %s (%s would run both, and each run spends limits.max_blocks)",
			andList(bySource[src]), src, r.display(target), s.title()))
	}
	return skip
}

// runsEntry reports whether reg runs the registration of program (with
// flags) at event for matcher, as registered() judges an entry in the
// file init writes.
func runsEntry(reg registration, event, matcher, program, flags string) bool {
	if reg.hook != program || reg.event != event || !sameFlags(func(f string) bool { return slices.Contains(reg.flags, f) }, flags) {
		return false
	}
	if matcher == "" {
		return reg.matcher == "" || reg.matcher == "*"
	}
	return matchesAny(reg.matcher, strings.Split(matcher, "|"))
}

// sameFlags reports whether a command that has (has says which) the
// flags that make a registration of their own is the registration with
// flags: --criteria and --start each only where flags is it.
func sameFlags(has func(flag string) bool, flags string) bool {
	for _, f := range []string{criteriaFlag, startFlag} {
		if has(f) != (flags == f) {
			return false
		}
	}
	return true
}

// display names path for the user: relative to DIR when inside it.
func (r *runCtx) display(path string) string {
	if rel, err := filepath.Rel(r.dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

func (r *runCtx) printInit(rep InitReport, commands map[string]string) error {
	p := r.printer()
	var titles []string
	for _, h := range rep.Hosts {
		s, _ := setupOf(hookio.Host(h))
		titles = append(titles, s.title())
	}
	if rep.Detected != "" {
		p.line(fmt.Sprintf("Hosts: %s (detected: %s; --host chooses).", andList(titles), rep.Detected))
	} else {
		p.line("Hosts: " + andList(titles) + ".")
	}
	if rep.Test != "" {
		p.line(fmt.Sprintf("Detected %s: test command `%s`.", rep.TestFrom, rep.Test))
	}
	if len(rep.Presets) > 0 {
		p.line("Detected tools for: " + strings.Join(rep.Presets, ", ") + ".")
	}
	for _, n := range rep.Notes {
		p.line("Note: " + n + ".")
	}
	for _, f := range rep.Files {
		switch {
		case f.Diff != "":
			p.line(strings.TrimSuffix(f.Diff, "\n"))
		case f.Action == "created":
			p.line("Created " + f.Path + ".")
		case f.Action == "updated":
			p.line("Updated " + f.Path + " (the old one is in " + f.Backup + ").")
		}
	}
	if rep.DryRun {
		p.line("Dry run: nothing written.")
		return p.err
	}
	if a := rep.Allowed; a != nil {
		var cmds []string
		for _, c := range a.Commands {
			cmds = append(cmds, "`"+c.Command+"`")
		}
		if len(cmds) == 0 {
			cmds = []string{"no command"}
		}
		p.line(fmt.Sprintf("Allowed the hooks to run %s here (closer allow; the state dir keeps it, not the project).", andList(cmds)))
		for _, w := range a.Warnings {
			p.line("Note: " + w + ".")
		}
	}
	for _, f := range rep.Files {
		if f.hooks && f.Action != "unchanged" {
			if c, ok := commands["posttooluse-hook"]; ok {
				p.line(fmt.Sprintf("Hooks: stop-hook as `%s`, posttooluse-hook as `%s`.", commands["stop-hook"], c))
			} else {
				p.line(fmt.Sprintf("Hooks: stop-hook as `%s`.", commands["stop-hook"]))
			}
			break
		}
	}
	return p.err
}

// project is what init found in the project dir.
type project struct {
	test, testFrom string
	presets        []string
	notes          []string
	// noTest is the note that the config init writes has no test checker:
	// said only where init writes one.
	noTest string
}

// detectProject looks at dir's files, never at which tools are installed:
// as the presets do, so the config means the same on every machine.
func detectProject(dir string) (project, error) {
	var p project
	test, err := checkers.DetectTestCommand(dir)
	if err != nil {
		return p, err
	}
	p.test, p.testFrom, p.notes = test.Command, test.From, test.Notes
	if p.test == "" {
		p.noTest = "no test command detected (looked for " + checkers.TestSigns() +
			"): the config has the plan checker only; add a test checker to it by hand"
	}
	p.presets = []string{}
	for _, kind := range []string{"type-check", "lint", "format"} {
		found, err := checkers.DetectPreset(kind, dir)
		if err != nil {
			return p, err
		}
		if len(found) > 0 {
			p.presets = append(p.presets, kind)
		}
	}
	return p, nil
}

// readSettings reads a file init may replace, or doctor reads: its content
// (nil when it does not exist) and mode. A FIFO or a device is refused,
// never opened for a blocking read; so is a file too large to be a
// settings file.
func readSettings(path string) ([]byte, fs.FileMode, error) {
	f, err := regular.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o644, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", path, err)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxSettingsBytes {
		return nil, 0, fmt.Errorf("%s: larger than 1 MiB", path)
	}
	return data, st.Mode().Perm(), nil
}

// config is the donegate.json init writes, one checker a line.
func (p project) config() []byte {
	lines := []string{`{"type": "plan"}`}
	if p.test != "" {
		lines = append(lines, fmt.Sprintf(`{"type": "test", "command": %s}`, newScalar(p.test).scalar))
	}
	for _, kind := range p.presets {
		lines = append(lines, fmt.Sprintf(`{"type": %q}`, kind))
	}
	return []byte(fmt.Sprintf("{\n  \"$schema\": %q,\n  \"checkers\": [\n    %s\n  ]\n}\n", schemaURL, strings.Join(lines, ",\n    ")))
}

// hookCommands returns the command to register for each hook program.
// A bare name depends on Claude Code's PATH, which is not the shell's
// (an app started from the dock has the system's): a hook it cannot find
// fails as a non-blocking error and donegate is silently off. So the
// binaries could be named by absolute path; but .claude/settings.json is
// the file teams commit, and a teammate's binaries are elsewhere (issue
// 20), so bare names are the default and --absolute opts in. A bare name
// not on PATH here is noted: Claude Code would not find it either.
func (r *runCtx) hookCommands(absolute bool, hosts hostList, rep *InitReport) (map[string]string, error) {
	out := map[string]string{}
	var titles []string
	for _, h := range hosts {
		s, _ := setupOf(h)
		titles = append(titles, s.title())
	}
	runs := andList(titles) + " run"
	if len(titles) == 1 {
		runs += "s"
	}
	for _, prog := range []string{"stop-hook", "posttooluse-hook"} {
		if !slices.ContainsFunc(hosts, func(h hookio.Host) bool { return usesProgram(h, prog) }) {
			continue
		}
		if !absolute {
			out[prog] = prog
			if !onPath(r.env.Getenv("PATH"), prog) {
				where := "install the binaries"
				if path, err := r.findHook(prog); err == nil {
					where = "put " + filepath.Dir(path) + " on PATH"
				}
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s is not on PATH: %s the hooks by name, so %s (or run init --absolute to name this machine's binaries)", prog, runs, where))
			}
			continue
		}
		path, err := r.findHook(prog)
		if err != nil {
			return nil, err
		}
		command, portable := absoluteCommand(path)
		out[prog] = command
		if !portable {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s is named as %s, quoted as Git Bash (Claude Code's hook shell on Windows) reads it; cmd.exe and PowerShell read a quoted path their own ways: for other hosts, put %s on PATH and leave out --absolute", prog, command, filepath.Dir(path)))
		}
	}
	return out, nil
}

// onPath reports whether prog is an executable in one of path's
// absolute directories.
func onPath(path, prog string) bool {
	for _, dir := range filepath.SplitList(path) {
		if _, ok := executableIn(dir, prog); ok && filepath.IsAbs(dir) {
			return true
		}
	}
	return false
}

// findHook looks for prog beside closer (a release's plugin/bin, or
// GOPATH/bin for go install), then in PATH's absolute directories.
func (r *runCtx) findHook(prog string) (string, error) {
	var looked []string
	if exe, err := executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		dir := filepath.Dir(exe)
		if path, ok := executableIn(dir, prog); ok {
			return path, nil
		}
		looked = append(looked, dir)
	}
	for _, dir := range filepath.SplitList(r.env.Getenv("PATH")) {
		// A relative directory would make the command depend on the
		// directory Claude Code runs hooks in.
		if !filepath.IsAbs(dir) {
			continue
		}
		if path, ok := executableIn(dir, prog); ok {
			return path, nil
		}
	}
	looked = append(looked, "PATH")
	return "", errorf(ErrEnv, "%s not found (looked beside closer in %s); install the binaries (%s) or leave out --absolute to register bare names",
		prog, strings.Join(looked, " and on "), installCommand(runtime.GOOS))
}

// isOurs reports whether a hook command runs program: as a bare name, a
// path ending in it ("$CLAUDE_PROJECT_DIR"/bin/stop-hook), or the
// plugin's wrapper (sh ".../donegate-hook" stop-hook). Any word of the
// command counts: a registration of ours behind a wrapper of the user's
// is ours too, and registering a second one would run the gate twice.
func isOurs(command, program string) bool {
	for _, w := range strings.Fields(command) {
		w = strings.Trim(w, `"'`)
		if w == program || programName(w) == program {
			return true
		}
	}
	return false
}

// mergeHooks adds to the settings text data every registration of ours
// that is missing, and returns the new text, or nil when nothing is
// missing. Every other key keeps its value and its place; the text is
// indented as data was. data nil or blank is a new file.
//
// Registrations of one event that run the same command (posttooluse-hook
// at PostToolUse, for StructuredOutput and for Bash) go into one group,
// their matchers joined: Claude Code runs one command once per tool call
// whatever the groups, but VS Code ignores matchers and runs every group,
// so two groups would run the hook twice after each of its tool calls.
// An entry of ours already there stays as it is.
func mergeHooks(data []byte, regs []hookReg, timeout int, commands map[string]string, skip map[int]bool) ([]byte, error) {
	// joined are the matchers of the groups this merge added, by the
	// command the group runs at its event.
	type command struct{ event, program, flags string }
	type matcher struct {
		node  *jnode
		tools string
	}
	joined := map[command]*matcher{}
	return mergeEntries(data, regs, skip, nil, func(groups *jnode, reg hookReg) bool {
		// The guard's entry registers the tools it does not yet run for
		// (Codex's from before apply_patch: Bash is, apply_patch is
		// added): a tool left out is a way around it. Another entry
		// that runs for some of its tools is the person's choice.
		if guard := reg.role == hookio.RoleGuardShell || reg.role == hookio.RoleGuardEdit; guard && reg.matcher != "" {
			var missing []string
			for _, tool := range strings.Split(reg.matcher, "|") {
				if !registered(groups, tool, reg.program, reg.flags) {
					missing = append(missing, tool)
				}
			}
			if len(missing) == 0 {
				return false
			}
			reg.matcher = strings.Join(missing, "|")
		} else if registered(groups, reg.matcher, reg.program, reg.flags) {
			return false
		}
		k := command{reg.event, reg.program, reg.flags}
		if m := joined[k]; m != nil && reg.matcher != "" {
			m.tools += "|" + reg.matcher
			*m.node = *newScalar(m.tools)
			return true
		}
		g := newObject()
		if reg.matcher != "" {
			m := &matcher{newScalar(reg.matcher), reg.matcher}
			g.set("matcher", m.node)
			joined[k] = m
		}
		h := newObject()
		h.set("type", newScalar("command"))
		h.set("command", newScalar(regCommand(commands[reg.program], reg.flags)))
		h.set("timeout", newScalar(timeout))
		if reg.background() {
			h.set("async", newScalar(true))
		}
		g.set("hooks", &jnode{kind: '[', items: []*jnode{h}})
		groups.items = append(groups.items, g)
		return true
	})
}

// mergeEntries is what mergeHooks and mergeCopilot share: it parses the
// hook file data (nil or blank is a new file), lets top add what the top
// level must hold, and calls add with the list of "hooks" under each
// event of regs but those in skip; add appends an entry when the list
// has none of reg's, and reports whether it did. It returns the new
// text, indented as data was, or nil when add appended nothing.
func mergeEntries(data []byte, regs []hookReg, skip map[int]bool, top func(root *jnode), add func(list *jnode, reg hookReg) bool) ([]byte, error) {
	root := newObject()
	indent, nl := "  ", "\n"
	// What is around the top-level value (white space) is kept as it
	// was; a new file ends with a newline.
	before, after := []byte(nil), []byte(nl)
	if len(bytes.TrimSpace(data)) > 0 {
		if !jsondepth.Within(data, 512) {
			return nil, errors.New("nested deeper than 512 levels")
		}
		var err error
		if root, err = parseJSON(data); err != nil {
			return nil, err
		}
		if root.kind != '{' {
			return nil, fmt.Errorf("the top level is %s, not an object", root.typeName())
		}
		indent, nl = detectIndent(data), detectNewline(data)
		lead := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
		before, after = data[:lead], data[lead+len(root.raw):]
	}
	if top != nil {
		top(root)
	}
	hooks := root.get("hooks")
	if hooks == nil {
		hooks = newObject()
		root.set("hooks", hooks)
	} else if hooks.kind != '{' {
		return nil, fmt.Errorf(`"hooks" is %s, not an object`, hooks.typeName())
	}
	changed := false
	for i, reg := range regs {
		if skip[i] {
			continue
		}
		list := hooks.get(reg.event)
		if list == nil {
			list = &jnode{kind: '['}
			hooks.set(reg.event, list)
		} else if list.kind != '[' {
			return nil, fmt.Errorf(`"hooks.%s" is %s, not an array`, reg.event, list.typeName())
		}
		if add(list, reg) {
			list.dirty, hooks.dirty, root.dirty = true, true, true
			changed = true
		}
	}
	if !changed {
		return nil, nil
	}
	return slices.Concat(before, root.encode(indent, nl), after), nil
}

// registered reports whether an event's matcher groups run program, with
// flags when it has them ("--criteria"), without them when not: a stop-hook
// at SessionStart without --criteria is not the registration init adds
// (doctor says it answers nothing there), nor is one with it at Stop.
// Only an entry of type "command" in a group whose matcher selects
// ours counts: a posttooluse-hook under matcher "Bash", or a "prompt"
// entry naming stop-hook, never runs the gate. Without
// a matcher of ours (Stop, SessionStart...), the group's must be absent,
// "" or "*": SessionStart's "startup" alone would not tell the criteria
// on resume.
// Entries of shapes Claude Code would not take are skipped, not refused:
// they are the user's to fix, and they do not stop us adding ours.
func registered(groups *jnode, matcher, program, flags string) bool {
	for _, g := range groups.items {
		hs := g.get("hooks")
		if hs == nil || hs.kind != '[' {
			continue
		}
		m, ok := g.get("matcher").str()
		switch {
		case g.get("matcher") != nil && !ok:
			continue // not a string: Claude Code would not take it
		case matcher == "" && m != "" && m != "*":
			continue
		case matcher != "" && !matchesAny(m, strings.Split(matcher, "|")):
			continue
		}
		for _, h := range hs.items {
			if typ, _ := h.get("type").str(); typ != "command" {
				continue
			}
			c, ok := h.get("command").str()
			if ok && isOurs(c, program) && sameFlags(func(f string) bool { return hasWord(c, f) }, flags) {
				return true
			}
		}
	}
	return false
}

// hasWord reports whether word is one of command's words.
func hasWord(command, word string) bool {
	return slices.Contains(strings.Fields(command), word)
}

// diff is a unified diff of the change, as --dry-run prints it. A file
// in the project is named as git names it (a/.claude/..., b/...), one
// outside it (the user's settings) by its absolute path, as diff -u
// names it.
func (c change) diff() (string, error) {
	from, to := "a/"+c.display, "b/"+c.display
	if filepath.IsAbs(c.display) {
		from, to = c.display, c.display
	}
	if c.old == nil {
		from = "/dev/null"
	}
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        splitLines(c.old),
		B:        splitLines(c.new),
		FromFile: from,
		ToFile:   to,
		Context:  3,
	})
	if err != nil {
		return "", fmt.Errorf("diff %s: %w", c.display, err)
	}
	return d, nil
}

// replaceFile is safewrite.Replace; a test replaces it to fail a write.
var replaceFile = safewrite.Replace

// check refuses, before anything is written, a change that could not be
// made or must not be: a link, FIFO or device at the file or its .bak
// (safewrite.Check), a file its owner made read-only, or content over
// the size init and doctor read.
func (c change) check() error {
	if err := safewrite.Check(c.root, c.path); err != nil {
		return errorf(ErrEnv, "%s: %w; nothing was written", c.display, err)
	}
	if c.old != nil {
		for _, p := range []string{backupPath(c.path), backupIgnore(c.path)} {
			if err := safewrite.Check(c.root, p); err != nil {
				return errorf(ErrEnv, "%s: %w; remove it, then run init again; nothing was written", p, err)
			}
		}
		if c.mode&0o200 == 0 {
			return errorf(ErrEnv, "%s is read-only (mode %#o): init does not replace a file its owner made read-only; make it writable (chmod u+w) to let init change it; nothing was written", c.display, c.mode)
		}
	}
	if len(c.new) > maxSettingsBytes {
		return errorf(ErrConfig, "%s: with donegate's hooks it would be %d bytes, over the 1 MiB init and doctor read; nothing was written", c.display, len(c.new))
	}
	return nil
}

// backupDir holds init's backups, beside the files they copy, out of
// the user's own git-clean check (a settings.json.bak beside the file
// would be an untracked file of the project's). The .gitignore
// in it ignores everything there, itself included, so git status shows
// nothing of it and no file of the project's changes.
const backupDir = "donegate.bak"

// backupPath is where the file at path is backed up.
func backupPath(path string) string {
	return filepath.Join(filepath.Dir(path), backupDir, filepath.Base(path))
}

// backupIgnore is the .gitignore of path's backup dir.
func backupIgnore(path string) string {
	return filepath.Join(filepath.Dir(path), backupDir, ".gitignore")
}

const backupIgnoreText = "# closer init's backups: not for git.\n*\n"

// write backs the old file up (donegate.bak/, with the old file's mode),
// then replaces it; all through safewrite, so that a crash leaves either
// file whole and no link is followed.
func (c change) write() error {
	if c.old != nil {
		if err := replaceFile(c.root, backupIgnore(c.path), []byte(backupIgnoreText), 0o644); err != nil {
			return fmt.Errorf("back up %s: %w", c.display, err)
		}
		if err := replaceFile(c.root, backupPath(c.path), c.old, c.mode); err != nil {
			return fmt.Errorf("back up %s: %w", c.display, err)
		}
	}
	if err := replaceFile(c.root, c.path, c.new, c.mode); err != nil {
		return fmt.Errorf("%s: %w", c.display, err)
	}
	return nil
}

// writeAll makes every change or, when one fails, puts back those made
// before it: a config created with no hooks registered would leave a
// half set-up project that says nothing of it. What cannot be put back
// is named.
func writeAll(changes []change) error {
	for i, c := range changes {
		err := c.write()
		if err == nil {
			continue
		}
		var left []string
		for j := i - 1; j >= 0; j-- {
			done := changes[j]
			var uerr error
			if done.old == nil {
				uerr = os.Remove(done.path)
			} else {
				uerr = replaceFile(done.root, done.path, done.old, done.mode)
			}
			if uerr != nil {
				left = append(left, fmt.Sprintf("%s (%v)", done.display, uerr))
			}
		}
		switch {
		case i == 0:
			return fmt.Errorf("%w; nothing was written", err)
		case len(left) > 0:
			return fmt.Errorf("%w; left written, and not put back: %s", err, strings.Join(left, ", "))
		}
		return fmt.Errorf("%w; the files written before it were put back as they were", err)
	}
	return nil
}

// resolveDest returns where a write to path goes, and the root it must
// stay inside. A symbolic link at path is written through when it leads
// to an existing file: anywhere when anywhere is set (the user's own
// settings), else only inside root (a project's links are the
// repository's, not the user's). A dangling link is refused: replacing
// it would lose what the user linked, and creating its target is a
// write to wherever the link says.
func resolveDest(path, root string, anywhere bool) (string, string, error) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		// Not there, or not a link: safewrite.Check judges it.
		return path, root, nil
	}
	link, _ := os.Readlink(path)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", "", fmt.Errorf("%s is a symbolic link to %s, which does not exist: init writes through a link only to an existing file; create that file, or remove the link", path, link)
	}
	if anywhere {
		return real, filepath.Dir(real), nil
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", "", fmt.Errorf("resolve %s: %w", root, err)
	}
	if !safewrite.Inside(realRoot, real) {
		return "", "", fmt.Errorf("%s is a symbolic link to %s, %w %s: init writes nothing outside the project; remove the link", path, real, safewrite.ErrOutside, root)
	}
	return real, root, nil
}

// splitLines splits text into lines that keep their "\n", as difflib
// wants them. difflib.SplitLines adds an empty line after a final "\n",
// which the diff would show as a "+" of nothing.
func splitLines(text []byte) []string {
	lines := strings.SplitAfter(string(text), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	} else {
		lines[len(lines)-1] += "\n"
	}
	return lines
}
