package closer

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// registrations are Claude Code's hook entries: those of
// settings.example.json and of the plugin's hooks.json, which doctor
// assumes when it cannot read them. A registration with flags runs
// program with them, and only a command with them counts as that
// registration: stop-hook at SessionStart tells the criteria only with
// --criteria.
var registrations = hostRegs(hookio.HostClaude)

// Claude Code's setup: its settings' hook entries (registrations), and
// doctor's checks of them, of its plugins and of its version.
var claudeSetup = hostSetup{
	host: hookio.HostClaude, marker: ".claude", binary: "claude",
	project: filepath.Join(".claude", "settings.json"), regs: registrations,
	timeout: hookTimeout, unit: time.Second, defaultTimeout: defaultHookTimeout,
	change:          (*runCtx).settingsChange,
	registrationsOf: (*runCtx).doctorSettings,
	doctorArea:      "settings",
	readsFrom:       "the user, project or local settings nor in an enabled plugin",
	unregistered:    claudeUnregistered,
	judgeEntry:      claudeEntry,
	judgeAll:        claudeAll,
	client: func(ctx context.Context, r *runCtx, rep *DoctorReport, claude string) {
		r.doctorSandbox(rep)
		r.doctorClaude(ctx, rep, claude)
	},
	notes: func(r *runCtx, _ initOptions) []string {
		if r.sandboxOf().enabled {
			return nil
		}
		return []string{"Claude Code's sandbox is not on: with it, the agent's Bash cannot write donegate's state dir or the settings, which closes what a command hiding what it runs could still do; to turn it on, add " + sandboxJSON + " to " + filepath.Join(r.claudeDir(""), "settings.json") + " (closer doctor reports it)"}
	},
	userFile: func(r *runCtx) string {
		// $CLAUDE_CONFIG_DIR's settings, else ~/.claude's.
		dir := r.claudeDir("")
		if !filepath.IsAbs(dir) {
			return ""
		}
		return filepath.Join(dir, "settings.json")
	},
}

// doctorSettings reads the user, project and local settings and the
// donegate plugins they enable, and returns donegate's registrations.
func (r *runCtx) doctorSettings(rep *DoctorReport) []registration {
	claudeDir := r.claudeDir("")
	files := []struct{ what, path string }{
		{"user settings", filepath.Join(claudeDir, "settings.json")},
		{"project settings", filepath.Join(r.dir, ".claude", "settings.json")},
		{"local settings", filepath.Join(r.dir, ".claude", "settings.local.json")},
	}
	var regs []registration
	disabledBy := "" // the most specific file that sets disableAllHooks true
	plugins := map[string]bool{}
	var pluginOrder []string
	for _, f := range files {
		data, _, err := readSettings(f.path)
		if err == nil && data == nil {
			continue // no such file
		}
		source := f.what + " " + f.path
		if err != nil {
			rep.add("settings", statusFail, "make the file readable", "%s: %v", source, err)
			continue
		}
		s, err := parseSettings(data)
		if err != nil {
			rep.add("settings", statusFail, "correct the JSON: Claude Code does not use a settings file it cannot read", "%s is not valid settings JSON: %v", source, err)
			continue
		}
		for _, reg := range r.registrations(source, s.Hooks, "") {
			reg.file = f.path
			regs = append(regs, reg)
		}
		if s.DisableAllHooks != nil {
			disabledBy = ""
			if *s.DisableAllHooks {
				disabledBy = source
			}
		}
		for name, v := range s.EnabledPlugins {
			var on bool
			if json.Unmarshal(v, &on) != nil || strings.SplitN(name, "@", 2)[0] != "donegate" {
				continue
			}
			// A later (more specific) file overrides an earlier one.
			if _, seen := plugins[name]; !seen {
				pluginOrder = append(pluginOrder, name)
			}
			plugins[name] = on
		}
	}
	if disabledBy != "" {
		rep.add("settings", statusFail, `remove "disableAllHooks": true`, `%s sets "disableAllHooks": true: Claude Code runs no hooks, donegate's included`, disabledBy)
	}
	slices.Sort(pluginOrder)
	for _, name := range pluginOrder {
		if plugins[name] {
			regs = append(regs, r.pluginRegistrations(rep, claudeDir, name)...)
		}
	}
	return regs
}

// pluginRegistrations are the hooks of the enabled plugin name, read from
// its hooks/hooks.json where Claude Code installed it.
func (r *runCtx) pluginRegistrations(rep *DoctorReport, claudeDir, name string) []registration {
	source := "plugin " + name
	root := installPath(filepath.Join(claudeDir, "plugins", "installed_plugins.json"), name)
	if root != "" {
		data, _, err := readSettings(filepath.Join(root, "hooks", "hooks.json"))
		if err == nil && data == nil {
			err = fs.ErrNotExist
		}
		var s settingsJSON
		if err == nil {
			s, err = parseSettings(data)
		}
		if err == nil {
			return r.registrations(source+" ("+root+")", s.Hooks, root)
		}
		rep.add("settings", statusWarn, "reinstall it: /plugin install "+name, "%s is enabled, but its hooks cannot be read: %v", source, err)
	} else {
		rep.add("settings", statusWarn, "", "%s is enabled but not in %s: assuming the hooks it registers, with the binaries on PATH", source, filepath.Join(claudeDir, "plugins", "installed_plugins.json"))
	}
	// What plugin/hooks/hooks.json registers: init's entries.
	var regs []registration
	for _, e := range registrations {
		regs = append(regs, registration{source: source, event: e.event, matcher: e.matcher,
			command: `sh "${CLAUDE_PLUGIN_ROOT}/bin/donegate-hook" ` + regCommand(e.program, e.flags), timeout: defaultHookTimeout,
			hook: e.program, program: e.program, flags: strings.Fields(e.flags), async: e.background()})
	}
	return regs
}

// installPath is where Claude Code installed plugin name, from its
// installed_plugins.json ({"plugins": {"name@market": [{"installPath":
// ...}]}}; older files hold one object instead of the array); "" when
// it is not there.
func installPath(file, name string) string {
	data, _, err := readSettings(file)
	if err != nil || data == nil {
		return ""
	}
	var f struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if json.Unmarshal(data, &f) != nil {
		return ""
	}
	type entry struct {
		InstallPath string `json:"installPath"`
	}
	var list []entry
	if json.Unmarshal(f.Plugins[name], &list) != nil {
		var one entry
		if json.Unmarshal(f.Plugins[name], &one) != nil {
			return ""
		}
		list = []entry{one}
	}
	for _, e := range list {
		if e.InstallPath != "" {
			return e.InstallPath
		}
	}
	return ""
}

// claudeEntry is Claude Code's own check of a registration: the dialect
// it answers in, which Claude Code reads only as its own.
func claudeEntry(_ *runCtx, rep *DoctorReport, reg registration, where string, c, found *config.Config) bool {
	if regFlag(reg) != "" {
		return false // --criteria and --start answer the same in either dialect
	}
	dialect, set := flagValue(reg.flags, "dialect")
	switch {
	case set && dialect == "sdk":
		rep.add("settings", statusFail, "remove --dialect sdk from the command", "%s: --dialect sdk: Claude Code ignores the sdk answers and lets the agent stop", where)
		return true
	case !set && c != nil && c.Dialect == "sdk" && c != found:
		rep.add("settings", statusFail, `set "dialect": "claude-code" in `+c.Source+` (or leave it out)`, "%s: its config %s says \"dialect\": \"sdk\": Claude Code ignores the sdk answers and lets the agent stop", where, c.Source)
		return true
	}
	return false
}

// claudeAll is Claude Code's own checks of its registrations: whether
// the chain can hold its models at all, VS Code's agent reading the same
// files, the found config's dialect, and the gate of StructuredOutput,
// which only PreToolUse can deny.
func claudeAll(r *runCtx, rep *DoctorReport, regs []registration, cfg *config.Config, served map[hookio.Role]int) {
	r.doctorPlanOnly(rep, cfg)
	// VS Code's agent loads the same files (its docs: .claude/settings.json,
	// .claude/settings.local.json, ~/.claude/settings.json).
	var vscode []string
	for _, reg := range regs {
		if reg.file != "" && (filepath.Base(reg.file) == "settings.json" || filepath.Base(reg.file) == "settings.local.json") &&
			filepath.Base(filepath.Dir(reg.file)) == ".claude" && !slices.Contains(vscode, reg.source) {
			vscode = append(vscode, reg.source)
		}
	}
	if len(vscode) > 0 {
		rep.add("vscode", statusOK, "", "VS Code's agent (GitHub Copilot) runs the hooks of %s too, ignoring matchers and \"async\": donegate answers its events in VS Code's own shape, gates none of its tools, and starts no checks early there (docs/hosts.md, VS Code)",
			andList(vscode))
	}
	// The found config's "dialect": "sdk" matters unless every hook
	// overrides it (--dialect claude-code, or a --config of its own).
	sdkConfigUsed := cfg != nil && cfg.Dialect == "sdk" && (len(regs) == 0 || slices.ContainsFunc(regs, func(reg registration) bool {
		_, dialect := flagValue(reg.flags, "dialect")
		_, own := flagValue(reg.flags, "config")
		return !dialect && !own
	}))
	if sdkConfigUsed {
		rep.add("config", statusFail, `set "dialect": "claude-code" (or leave it out); keep "sdk" only for an Agent SDK host that reads its answers`,
			`"dialect": "sdk": Claude Code ignores the sdk answers and lets the agent stop`)
	}
	if served[hookio.RoleGatePost] > 0 && served[hookio.RoleGatePre] == 0 {
		rep.add("settings", statusFail, `register posttooluse-hook at PreToolUse too, with "matcher": "StructuredOutput"`,
			"the StructuredOutput gate is registered only at PostToolUse: Claude Code accepts the output whatever a PostToolUse hook answers; only PreToolUse can deny it")
	}
}

// claudeUnregistered reports a project where no settings file nor
// installed plugin registers donegate: `claude --plugin-dir DIR`
// (docs/install.md) loads a plugin no file records, which doctor cannot
// tell from no setup at all.
func claudeUnregistered(_ *runCtx, rep *DoctorReport) {
	rep.add("settings", statusUnknown, "without --plugin-dir: install the plugin (/plugin install donegate@donegate) or run closer init; never both",
		"not registered in any settings file or installed plugin: if you load donegate with `claude --plugin-dir DIR`, check with `claude --debug --plugin-dir DIR` that its hooks run (the log names stop-hook at each Stop); otherwise donegate does not hold the agent")
}

var versionRE = regexp.MustCompile(`\b(\d+)\.(\d+)\.(\d+)\b`)

// doctorClaude reports the Claude Code version, when it is installed.
func (r *runCtx) doctorClaude(ctx context.Context, rep *DoctorReport, bin string) {
	res, err := runProgram(ctx, r.dir, versionTimeout, nil, bin, "--version")
	switch {
	case errors.Is(err, errNotFound):
		rep.add("claude", statusWarn, "install Claude Code (npm install -g @anthropic-ai/claude-code), or name it with --claude PATH",
			"Claude Code (%s) is not installed: the versions it needs could not be checked", bin)
		return
	case err != nil:
		rep.add("claude", statusWarn, "", "Claude Code (%s) cannot run: %v", bin, err)
		return
	case res.TimedOut || res.Interrupted || res.ExitCode != 0:
		rep.add("claude", statusWarn, "", "%s --version gave no version (exit code %d, timed out %t)", bin, res.ExitCode, res.TimedOut)
		return
	}
	m := versionRE.FindStringSubmatch(string(res.Stdout))
	if m == nil {
		rep.add("claude", statusWarn, "", "%s --version printed %q: no version in it", bin, preview(string(res.Stdout)))
		return
	}
	var v [3]int
	for i := range v {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	ver := m[0]
	switch {
	case older(v, claudeLongTimeouts):
		rep.add("claude", statusWarn, "upgrade Claude Code, or set \"timeout\" (seconds, above limits.budget) on every donegate hook entry",
			"Claude Code %s is older than 2.1.3: a hook entry without \"timeout\" is killed after 60 s, before limits.budget (540s by default) ends, and the agent stops; it is also older than 2.1.163, whose hook input donegate relies on", ver)
	case older(v, claudeHookInput):
		rep.add("claude", statusWarn, "upgrade Claude Code to 2.1.163 or newer",
			"Claude Code %s is older than 2.1.163: a Stop answer carrying hookSpecificOutput is dropped whole there, and donegate's reading of the hook input (last_assistant_message, prompt_id, background_tasks) was measured on 2.1.330", ver)
	default:
		rep.add("claude", statusOK, "", "Claude Code %s", ver)
	}
}

func older(v, than [3]int) bool {
	for i := range v {
		if v[i] != than[i] {
			return v[i] < than[i]
		}
	}
	return false
}

// planToolsVar is the variable that gives Claude Code's models their plan
// tools. Measured on 2.1.330 and 2.1.331 (2026-11-24): with the default
// model, --model opus and --model haiku, the model gets no TodoWrite and
// no Task tools at all unless it is set; a chain of the plan checker alone
// then holds nobody.
const planToolsVar = "CLAUDE_CODE_ENABLE_TODO_TOOLS"

// doctorPlanOnly warns when the chain can hold the agent for nothing in
// practice: it checks only the agent's plan (a test checker
// without a command counts for nothing when the project names no test
// command), and the model has no plan tool, as neither the environment
// nor any settings file's "env" sets CLAUDE_CODE_ENABLE_TODO_TOOLS.
func (r *runCtx) doctorPlanOnly(rep *DoctorReport, c *config.Config) {
	if c == nil {
		return
	}
	var noTests string
	for _, s := range c.Checkers {
		switch {
		case s.Type == "plan":
			continue
		case s.Type == "test" && s.Options.(*checkers.TestOptions).Command == "":
			if d, err := checkers.DetectTestCommand(r.dir); err == nil && d.Command == "" {
				noTests = " (no test command detected in " + r.dir + ": looked for " + checkers.TestSigns() + ")"
				continue
			}
		}
		return // another checker holds the agent for something
	}
	if r.planToolsEnabled() {
		return
	}
	rep.add("config", statusWarn,
		`give the model its plan tools: add "env": {"`+planToolsVar+`": "1"} to .claude/settings.json (or export `+planToolsVar+`=1 before claude); or add checks the project can fail: closer init writes the test command and the type-check, lint and format presets it has tools for`,
		"the chain holds the agent for nothing in practice: it checks only the agent's plan%s, and %s is set neither in the environment nor in any settings file's \"env\"; without it Claude Code (2.1.330, 2.1.331) gives the default models no TodoWrite and no Task tools, so there is never a plan to check",
		noTests, planToolsVar)
}

// planToolsEnabled reports whether CLAUDE_CODE_ENABLE_TODO_TOOLS is on for
// a session started here: as the "env" of the most specific settings file
// that sets it says (local, project, user), else the process environment.
func (r *runCtx) planToolsEnabled() bool {
	files := []string{
		filepath.Join(r.dir, ".claude", "settings.local.json"),
		filepath.Join(r.dir, ".claude", "settings.json"),
		filepath.Join(r.claudeDir(""), "settings.json"),
	}
	for _, f := range files {
		data, _, err := readSettings(f)
		if err != nil || data == nil || !gjson.ValidBytes(data) {
			continue // doctorSettings reports files it cannot read
		}
		if v := gjson.GetBytes(data, "env."+planToolsVar); v.Exists() {
			return truthy(v.String())
		}
	}
	if v := r.env.Getenv(planToolsVar); v != "" {
		return truthy(v)
	}
	return false
}

// truthy is how Claude Code reads a boolean variable: 1, true, yes or on.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// settingsChange works out the settings file init merges its hooks into,
// and the change to it: nil when the hooks are registered already.
func (r *runCtx) settingsChange(claude hostSetup, o initOptions, commands map[string]string, rep *InitReport) (*change, error) {
	settingsPath, root := filepath.Join(r.dir, ".claude", "settings.json"), r.dir
	target := settingsPath
	if o.user {
		dir := r.claudeDir("")
		if !filepath.IsAbs(dir) {
			// paths.ClaudeDir gives ".claude" with HOME unset: the
			// project's own settings, when cwd is the project.
			return nil, errorf(ErrEnv, "--user: the user's settings dir is unknown (HOME is unset and CLAUDE_CONFIG_DIR is not an absolute path): set HOME, or CLAUDE_CONFIG_DIR, and run init again")
		}
		settingsPath, root = filepath.Join(dir, "settings.json"), dir
		target = settingsPath
	}
	return r.mergeChange(claude, target, root, o.user, r.registeredElsewhere(claude, target, rep), commands, "merge settings.example.json into it by hand", rep)
}

// Versions of Claude Code whose behaviour donegate relies on, from its
// changelog (docs/hosts.md, Timeouts; the Stop answers donegate writes).
var (
	// Before 2.1.3 a hook without "timeout" was killed after 60 s, below
	// the default limits.budget (540s).
	claudeLongTimeouts = [3]int{2, 1, 3}
	// Before 2.1.163 hookSpecificOutput on Stop was refused, and with it
	// the whole answer; the hook input donegate reads was measured on
	// 2.1.330 and is not known to hold that far back.
	claudeHookInput = [3]int{2, 1, 163}
)

// registeredElsewhere returns the entries of registrations (by index)
// that already run from a settings file other than target or from an
// enabled plugin, read as doctor reads them, and notes each. Claude Code
// runs one command string once across files, but init's command is
// rarely the other's string: registering it again would run the hook
// twice, each run spending limits.max_blocks.
func (r *runCtx) registeredElsewhere(claude hostSetup, target string, rep *InitReport) map[int]bool {
	var scratch DoctorReport // what is wrong with those files is doctor's to say
	found := claude.registrationsOf(r, &scratch)
	return r.notAgain(claude, found, func(file string) bool { return file == target }, target, rep)
}
