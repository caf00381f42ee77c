package closer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/plugin"
)

// OpenCode has no hook file: donegate's OpenCode plugin holds the agent
// (plugin/opencode/donegate.js). init writes it where OpenCode loads
// plugins from; doctor finds where it is loaded from.
var openCodeSetup = hostSetup{
	// OpenCode: no hooks that can hold an agent; donegate's plugin
	// runs stop-hook at the end of each turn (this file).
	host: hookio.HostOpenCode, marker: ".opencode", binary: "opencode",
	project: filepath.Join(".opencode", "plugin", "donegate.js"), plugin: true,
	installed: func(r *runCtx) bool { return len(r.openCodePlugins()) > 0 },
	change: func(r *runCtx, s hostSetup, o initOptions, _ map[string]string, rep *InitReport) (*change, error) {
		return r.openCodeChange(s, o, rep)
	},
	doctor: (*runCtx).doctorOpenCode,
	notes: func(*runCtx, initOptions) []string {
		return []string{"OpenCode loads donegate's plugin when it starts; under `opencode run` the checks run while OpenCode waits, elsewhere (the TUI, `opencode serve`) in the background once the agent is idle (docs/hosts.md, OpenCode)"}
	},
}

// openCodePluginDirs are the dirs OpenCode loads plugins from, under a
// project's .opencode/ or the user's config dir (1.18.33 reads both
// spellings).
var openCodePluginDirs = []string{"plugin", "plugins"}

// openCodeMarker is in every version of donegate's OpenCode plugin: a
// file that has it is donegate's to update.
const openCodeMarker = "donegate for OpenCode"

// openCodeConfigDir is OpenCode's user config dir: $XDG_CONFIG_HOME/opencode,
// else ~/.config/opencode; "" when neither is an absolute path.
func (r *runCtx) openCodeConfigDir() string {
	if d := r.env.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "opencode")
	}
	if home := r.home(); filepath.IsAbs(home) {
		return filepath.Join(home, ".config", "opencode")
	}
	return ""
}

// openCodePlugins lists the files of donegate's plugin OpenCode would
// load in the project and for the user: a file named donegate.js in one
// of its plugin dirs.
func (r *runCtx) openCodePlugins() []string {
	var found []string
	roots := []string{filepath.Join(r.dir, ".opencode")}
	if d := r.openCodeConfigDir(); d != "" {
		roots = append(roots, d)
	}
	for _, root := range roots {
		for _, dir := range openCodePluginDirs {
			path := filepath.Join(root, dir, "donegate.js")
			if st, err := os.Lstat(path); err == nil && !st.IsDir() {
				found = append(found, path)
			}
		}
	}
	return found
}

// openCodePluginSource is the plugin as init writes it: with --absolute,
// naming this machine's stop-hook.
func (r *runCtx) openCodePluginSource(absolute bool) ([]byte, error) {
	if !absolute {
		return plugin.OpenCode, nil
	}
	path, err := r.findHook("stop-hook")
	if err != nil {
		return nil, err
	}
	quoted, _ := json.Marshal(path)
	line := strings.Replace(plugin.OpenCodeStopHook, `"stop-hook"`, string(quoted), 1)
	return bytes.Replace(plugin.OpenCode, []byte(plugin.OpenCodeStopHook), []byte(line), 1), nil
}

// openCodeChange works out the plugin file init writes: the project's
// .opencode/plugin/donegate.js (--user: the user's), or where the project
// already has it; nil when it is there as init would write it.
func (r *runCtx) openCodeChange(s hostSetup, o initOptions, rep *InitReport) (*change, error) {
	root := filepath.Join(r.dir, ".opencode")
	if o.user {
		if root = r.openCodeConfigDir(); root == "" {
			return nil, errorf(ErrEnv, "--user: the user's OpenCode config dir is unknown (HOME is unset and XDG_CONFIG_HOME is not an absolute path): set HOME, and run init again")
		}
	}
	target := filepath.Join(root, openCodePluginDirs[0], "donegate.js")
	if _, err := os.Lstat(filepath.Join(root, openCodePluginDirs[1], "donegate.js")); err == nil {
		// Two copies would hold the agent twice at each stop.
		target = filepath.Join(root, openCodePluginDirs[1], "donegate.js")
	}
	for _, other := range r.openCodePlugins() {
		if !sameFile(other, target) {
			rep.Notes = append(rep.Notes, fmt.Sprintf("OpenCode also loads %s: remove one of the two, or each stop is checked twice (and spends limits.max_blocks twice)", r.display(other)))
		}
	}
	src, err := r.openCodePluginSource(o.absolute)
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
		rep.Notes = append(rep.Notes, r.display(path)+": donegate's OpenCode plugin is there already")
		return nil, nil
	}
	if old != nil && !bytes.Contains(old, []byte(openCodeMarker)) {
		return nil, errorf(ErrConfig, "%s is not donegate's OpenCode plugin: it is left as it is; move it, or see docs/install.md, Set up %s", r.display(path), s.title())
	}
	return &change{path: path, root: base, display: r.display(path), old: old, new: src, mode: mode, hooks: true}, nil
}

// doctorOpenCode says where OpenCode loads donegate's plugin from, and
// what keeps it from holding the agent.
func (r *runCtx) doctorOpenCode(rep *DoctorReport, s hostSetup, _ []registration) {
	const area = "opencode"
	fix := "run closer init --host " + string(s.host) + " (docs/install.md, Set up " + s.title() + ")"
	found := r.openCodePlugins()
	if len(found) == 0 {
		rep.add(area, statusFail, fix, "OpenCode is used here (%s) but loads no donegate plugin (%s, or %s): nothing holds its agent", s.markerDir(), filepath.Join(".opencode", "plugin", "donegate.js"), filepath.Join("~", ".config", "opencode", "plugin", "donegate.js"))
		return
	}
	if len(found) > 1 {
		var names []string
		for _, f := range found {
			names = append(names, r.display(f))
		}
		rep.add(area, statusFail, "keep one of them", "OpenCode loads donegate's plugin %d times (%s): each stop is checked as often, and spends limits.max_blocks as often", len(found), andList(names))
	}
	for _, f := range found {
		data, _, err := readSettings(f)
		switch {
		case err != nil:
			rep.add(area, statusFail, "make it a regular file", "%v", err)
		case !bytes.Contains(data, []byte(openCodeMarker)):
			rep.add(area, statusWarn, "rename it, or replace it: "+fix, "%s is not donegate's OpenCode plugin, though OpenCode loads it by that name", r.display(f))
		case bytes.Equal(data, plugin.OpenCode):
			rep.add(area, statusOK, "", "OpenCode loads donegate's plugin from %s (this closer's version); it runs stop-hook from PATH or $DONEGATE_STOP_HOOK", r.display(f))
		case bytes.Contains(data, []byte(plugin.OpenCodeStopHook)):
			rep.add(area, statusWarn, fix, "%s is another version of donegate's OpenCode plugin than this closer's", r.display(f))
		default:
			rep.add(area, statusOK, "", "OpenCode loads donegate's plugin from %s, naming its own stop-hook (init --absolute, or edited)", r.display(f))
		}
	}
}
