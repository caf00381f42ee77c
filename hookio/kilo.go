package hookio

import (
	"path/filepath"

	"github.com/donegate/donegate/internal/paths"
)

// The Kilo CLI (@kilocode/cli), a fork of OpenCode, has no hook that can
// hold an agent either: it loads donegate's OpenCode plugin (written by
// closer init --host kilo into .kilo/plugin/), which sends the OpenCode
// plugin's events with Kilo's names for its own fields:
//
//	{"hook_event_name": "Stop", "kilo_version": "7.7.7",
//	 "kilo_mode": "run" | "serve", "session_id": "ses_...", ...}
//
// and reads Claude Code's Stop answer back, as under OpenCode (see
// opencode.go). Measured with Kilo 7.7.7: it loads plugins from .kilo/
// and .kilocode/ in the project and ~/.config/kilo/ (not .opencode/), and
// reads kilo.json, kilo.jsonc and opencode.json there.

// kiloSpec: OpenCode's, but for its names, its event's field and its
// files.
var kiloSpec = func() hostSpec {
	s := openCodeSpec
	s.title = "Kilo CLI"
	// Measured on the pinned Kilo (bash): it sets OPENCODE=1 too.
	s.shellMarkers = []string{"KILO=1"}
	s.names = EventNames{"the end of a turn (donegate's plugin for Kilo)", "nothing (the plugin sends stops only)", "a shell or edit call, before it runs (donegate's plugin for Kilo)"}
	s.read = readPluginEvent(kiloKey, "donegate's plugin for Kilo", false)
	s.settingsFiles = kiloSettingsFiles
	s.pluginDirs = pluginDirsOf("kilo", KiloProjectDirs...)
	return s
}()

// kiloSettingsFiles are Kilo's config files and donegate's plugin in
// each of its dirs, the project's and the user's.
func kiloSettingsFiles(project string, getenv paths.Getenv, _ string) ([]string, []string) {
	config := configHome(getenv)
	var inProject, user []string
	for _, name := range kiloConfigFiles {
		inProject = append(inProject, filepath.Join(project, name))
		user = append(user, filepath.Join(config, "kilo", name))
	}
	for _, dir := range KiloProjectDirs {
		for _, name := range kiloConfigFiles {
			inProject = append(inProject, filepath.Join(project, dir, name))
		}
		for _, plugins := range []string{"plugin", "plugins"} {
			inProject = append(inProject, filepath.Join(project, dir, plugins, "donegate.js"))
		}
	}
	for _, plugins := range []string{"plugin", "plugins"} {
		user = append(user, filepath.Join(config, "kilo", plugins, "donegate.js"))
	}
	return inProject, user
}

// kiloKey is the field only the plugin's events under Kilo carry.
const kiloKey = "kilo_version"

// KiloProjectDirs are the dirs of a project Kilo loads plugins and config
// from (7.7.7).
var KiloProjectDirs = []string{".kilo", ".kilocode"}

// kiloConfigFiles are the config files Kilo reads in each of its dirs.
var kiloConfigFiles = []string{"kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc"}
