package closer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/donegate/donegate/plugin"
)

// Hosts with no hook file that can hold an agent load a plugin of
// donegate's instead, which runs the hooks: OpenCode and the Kilo CLI,
// its fork, donegate's OpenCode plugin (plugin/opencode/donegate.js); pi,
// donegate's extension for pi (plugin/pi/donegate.js). init writes it
// where the host loads plugins from; doctor finds where it is loaded
// from. A pluginDirs says where that is for one host, and which file.
type pluginDirs struct {
	// project are the dirs of a project the host loads plugins from, the
	// first the one init writes into (".opencode").
	project []string
	// subdirs are the dirs of each of those the plugins are in, the first
	// the one init writes into.
	subdirs []string
	// user is the host's own dir of the user's ("" when it is unknown),
	// and userHint how docs spell it ("~/.config/opencode").
	user     func(r *runCtx) string
	userHint string
	// source is the file; stopHookLine its line that names stop-hook
	// (init --absolute puts this machine's path in its quotes); marker is
	// in every version of it (a file that has it is donegate's to
	// update); what names it ("OpenCode plugin").
	source               []byte
	stopHookLine, marker string
	what                 string
	// file is the plugin's file name there; "" for donegate.js.
	file string
}

// fileName is the name of the plugin's file in a plugin dir.
func (d pluginDirs) fileName() string {
	if d.file == "" {
		return "donegate.js"
	}
	return d.file
}

// openCodePlugin is what OpenCode and Kilo load: the subdirs they read
// (OpenCode 1.18.33 and Kilo 7.7.7 read both spellings) under
// $XDG_CONFIG_HOME/<name> (else ~/.config/<name>) and the project's dirs.
func openCodePlugin(name string, project ...string) pluginDirs {
	return pluginDirs{
		project: project, subdirs: []string{"plugin", "plugins"},
		user:     func(r *runCtx) string { return r.xdgConfigDir(name) },
		userHint: filepath.Join("~", ".config", name),
		source:   plugin.OpenCode, stopHookLine: plugin.OpenCodeStopHook, marker: "donegate for OpenCode", what: "OpenCode plugin",
	}
}

// pluginSetup is the hostSetup of a host that loads the plugin, its other
// fields (host, marker, binary, notes) the host's own.
func pluginSetup(s hostSetup, d pluginDirs) hostSetup {
	s.project = filepath.Join(d.project[0], d.subdirs[0], d.fileName())
	s.plugin = true
	s.installed = func(r *runCtx) bool { return len(r.pluginFiles(d)) > 0 }
	s.change = func(r *runCtx, s hostSetup, o initOptions, _ map[string]string, rep *InitReport) (*change, error) {
		return r.pluginChange(d, s, o, rep)
	}
	s.doctor = func(r *runCtx, rep *DoctorReport, s hostSetup, _ []registration) { r.doctorPlugin(d, rep, s) }
	return s
}

// xdgConfigDir is $XDG_CONFIG_HOME/name, else ~/.config/name; "" when
// neither is an absolute path.
func (r *runCtx) xdgConfigDir(name string) string {
	if dir := r.env.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, name)
	}
	if home := r.home(); filepath.IsAbs(home) {
		return filepath.Join(home, ".config", name)
	}
	return ""
}

// pluginFiles lists the files of donegate's plugin the host would load in
// the project and for the user: a file of the plugin's name in one of its
// plugin dirs.
func (r *runCtx) pluginFiles(d pluginDirs) []string {
	var found, roots []string
	for _, dir := range d.project {
		roots = append(roots, filepath.Join(r.dir, dir))
	}
	if dir := d.user(r); dir != "" {
		roots = append(roots, dir)
	}
	for _, root := range roots {
		for _, sub := range d.subdirs {
			path := filepath.Join(root, sub, d.fileName())
			if st, err := os.Lstat(path); err == nil && !st.IsDir() {
				found = append(found, path)
			}
		}
	}
	return found
}

// pluginSource is the plugin as init writes it: with --absolute, naming
// this machine's stop-hook.
func (r *runCtx) pluginSource(d pluginDirs, absolute bool) ([]byte, error) {
	if !absolute {
		return d.source, nil
	}
	path, err := r.findHook("stop-hook")
	if err != nil {
		return nil, err
	}
	quoted, _ := json.Marshal(path)
	line := strings.Replace(d.stopHookLine, `"stop-hook"`, string(quoted), 1)
	return bytes.Replace(d.source, []byte(d.stopHookLine), []byte(line), 1), nil
}

// pluginChange works out the plugin file init writes: in the project's
// first plugin dir (--user: the user's), or where the project already
// has it; nil when it is there as init would write it.
func (r *runCtx) pluginChange(d pluginDirs, s hostSetup, o initOptions, rep *InitReport) (*change, error) {
	root := filepath.Join(r.dir, d.project[0])
	if o.user {
		if root = d.user(r); root == "" {
			return nil, errorf(ErrEnv, "--user: the user's %s dir is unknown (HOME is unset, and no variable names it as an absolute path): set HOME, and run init again", s.title())
		}
	}
	target := filepath.Join(root, d.subdirs[0], d.fileName())
	for _, sub := range d.subdirs[1:] {
		if _, err := os.Lstat(filepath.Join(root, sub, d.fileName())); err == nil {
			// Two copies would hold the agent twice at each stop.
			target = filepath.Join(root, sub, d.fileName())
		}
	}
	for _, other := range r.pluginFiles(d) {
		if !sameFile(other, target) {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s also loads %s: remove one of the two, or each stop is checked twice (and spends limits.max_blocks twice)", s.title(), r.display(other)))
		}
	}
	src, err := r.pluginSource(d, o.absolute)
	if err != nil {
		return nil, err
	}
	home := r.dir
	if o.user {
		home = root
	}
	path, base, err := resolveDest(target, home, o.user)
	if err != nil {
		return nil, errorf(ErrEnv, "%w", err)
	}
	old, mode, err := readSettings(path)
	if err != nil {
		return nil, errorf(ErrEnv, "%w", err)
	}
	if bytes.Equal(old, src) {
		rep.Files = append(rep.Files, InitFile{Path: r.display(path), Action: "unchanged", hooks: true})
		rep.Notes = append(rep.Notes, r.display(path)+": donegate's "+d.what+" is there already")
		return nil, nil
	}
	if old != nil && !bytes.Contains(old, []byte(d.marker)) {
		return nil, errorf(ErrConfig, "%s is not donegate's %s: it is left as it is; move it, or see docs/install.md, Set up %s", r.display(path), d.what, s.title())
	}
	return &change{path: path, root: base, display: r.display(path), old: old, new: src, mode: mode, hooks: true}, nil
}

// doctorPlugin says where the host loads donegate's plugin from, and what
// keeps it from holding the agent.
func (r *runCtx) doctorPlugin(d pluginDirs, rep *DoctorReport, s hostSetup) {
	area := string(s.host)
	title := s.title()
	fix := "run closer init --host " + string(s.host) + " (docs/install.md, Set up " + title + ")"
	found := r.pluginFiles(d)
	if len(found) == 0 {
		rep.add(area, statusFail, fix, "%s is used here (%s) but loads no donegate %s (%s, or %s): nothing holds its agent", title, s.markerDir(), strings.TrimPrefix(d.what, "OpenCode "), filepath.Join(d.project[0], d.subdirs[0], d.fileName()), filepath.Join(d.userHint, d.subdirs[0], d.fileName()))
		return
	}
	if len(found) > 1 {
		var names []string
		for _, f := range found {
			names = append(names, r.display(f))
		}
		rep.add(area, statusFail, "keep one of them", "%s loads donegate's plugin %d times (%s): each stop is checked as often, and spends limits.max_blocks as often", title, len(found), andList(names))
	}
	for _, f := range found {
		data, _, err := readSettings(f)
		switch {
		case err != nil:
			rep.add(area, statusFail, "make it a regular file", "%v", err)
		case !bytes.Contains(data, []byte(d.marker)):
			rep.add(area, statusWarn, "rename it, or replace it: "+fix, "%s is not donegate's %s, though %s loads it by that name", r.display(f), d.what, title)
		case bytes.Equal(data, d.source):
			rep.add(area, statusOK, "", "%s loads donegate's %s from %s (this closer's version); it runs stop-hook from PATH or $DONEGATE_STOP_HOOK", title, strings.TrimPrefix(d.what, "OpenCode "), r.display(f))
		case bytes.Contains(data, []byte(d.stopHookLine)):
			rep.add(area, statusWarn, fix, "%s is another version of donegate's %s than this closer's", r.display(f), d.what)
		default:
			rep.add(area, statusOK, "", "%s loads donegate's %s from %s, naming its own stop-hook (init --absolute, or edited)", title, strings.TrimPrefix(d.what, "OpenCode "), r.display(f))
		}
	}
}
