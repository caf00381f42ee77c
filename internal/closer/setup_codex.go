package closer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/safewrite"
)

// Codex CLI's setup: .codex/hooks.json in Claude Code's shape (Codex also
// reads [hooks] tables of its config.toml, and of its managed
// requirements: codex_managed.go), its trust of each hook, and its plan
// tool switch.
var codexSetup = hostSetup{
	// Codex (0.169) lets SessionStart and UserPromptSubmit hooks add
	// context (additionalContext), and has SubagentStop; it has no
	// StructuredOutput tool to gate. An entry with no timeout gets
	// 600 s (its hooks engine: timeout_sec.unwrap_or(600)).
	host: hookio.HostCodex, marker: ".codex", binary: "codex",
	project: filepath.Join(".codex", "hooks.json"),
	regs:    hostRegs(hookio.HostCodex),
	timeout: hookTimeout, unit: time.Second, defaultTimeout: 600 * time.Second,
	userFile: func(r *runCtx) string {
		if dir := r.codexHome(); dir != "" {
			return filepath.Join(dir, "hooks.json")
		}
		return ""
	},
	doctor:  (*runCtx).doctorCodex,
	managed: true,
	change: func(r *runCtx, s hostSetup, o initOptions, commands map[string]string, rep *InitReport) (*change, error) {
		if o.managed {
			return r.codexManagedChange(s, commands, rep)
		}
		return r.hostChange(s, o, commands, rep)
	},
	files:   codexFiles,
	plugins: (*runCtx).codexPlugins,
	notes: func(r *runCtx, o initOptions) []string {
		trust := "Codex runs a hook only once you trust it, and skips an untrusted one silently: open /hooks in Codex and review donegate's hooks (init never writes Codex's trusted_hash: that consent is yours to give); `codex exec` reads a project's .codex/ only with --trust"
		if o.managed {
			trust = "Codex runs the hooks of its managed requirements without review: no /hooks trust, no --trust, for every user of this machine"
		}
		notes := []string{
			trust,
			"Codex gives the model its plan tool (update_plan) only with `[tools.update_plan] enabled = true` in ~/.codex/config.toml; without it the plan checker has no plan to check (closer doctor says)",
			"codex exec shows a hook's systemMessage nowhere (the TUI shows it as a warning): when donegate lets the agent go, `closer explain --last` says why",
		}
		if home := r.codexHome(); home != "" {
			if c, _, err := readCodexConfig(filepath.Join(home, "config.toml")); err == nil && c.SandboxMode != "workspace-write" && c.SandboxMode != "read-only" {
				notes = append(notes, `with sandbox_mode = "workspace-write" in `+filepath.Join(home, "config.toml")+", Codex's sandbox keeps the agent's shell out of donegate's state dir and the project's .codex/, while the hooks, outside it, go on (closer doctor reports it)")
			}
		}
		return notes
	},
}

// codexFiles are the files Codex reads hooks from: the managed
// requirements, the user's hooks.json and config.toml, the project's
// .codex/hooks.json and .codex/config.toml ([hooks] tables in both TOML
// files).
func codexFiles(r *runCtx, s hostSetup) []hostFile {
	files := []hostFile{{what: "managed requirements", path: r.codexRequirements(), toml: true}}
	if u := r.userFile(s); u != "" {
		files = append(files,
			hostFile{what: "user settings", path: u},
			hostFile{what: "user config", path: filepath.Join(filepath.Dir(u), "config.toml"), toml: true})
	}
	return append(files,
		hostFile{what: "project settings", path: filepath.Join(r.dir, s.project)},
		hostFile{what: "project config", path: filepath.Join(r.dir, ".codex", "config.toml"), toml: true})
}

// codexPlugins are the donegate plugins Codex loads hooks from: enabled
// in $CODEX_HOME/config.toml ([plugins."donegate@MARKET"]), as `codex
// plugin add` installs them in plugins/cache/MARKET/donegate/VERSION/.
func (r *runCtx) codexPlugins(rep *DoctorReport) []hostPlugin {
	home := r.codexHome()
	if home == "" {
		return nil
	}
	c, _, err := readCodexConfig(filepath.Join(home, "config.toml"))
	if err != nil {
		return nil // doctorCodex reports it
	}
	var plugins []hostPlugin
	for id, p := range c.Plugins {
		name, market, ok := strings.Cut(id, "@")
		if !ok || name != "donegate" || (p.Enabled != nil && !*p.Enabled) {
			continue
		}
		versions, _ := filepath.Glob(filepath.Join(home, "plugins", "cache", market, name, "*", "hooks", "hooks.json"))
		if len(versions) == 0 {
			rep.add("codex", statusWarn, "reinstall it: codex plugin add "+id, "Codex plugin %s is enabled in %s but not installed under %s", id, filepath.Join(home, "config.toml"), filepath.Join(home, "plugins", "cache", market, name))
			continue
		}
		slices.Sort(versions)
		root := filepath.Dir(filepath.Dir(versions[len(versions)-1]))
		plugins = append(plugins, hostPlugin{source: "Codex CLI plugin " + id + " (" + root + ")", root: root, keySource: id + ":hooks/hooks.json"})
	}
	return plugins
}

// codexHome is Codex's config dir: $CODEX_HOME, else ~/.codex; "" when
// neither is an absolute path.
func (r *runCtx) codexHome() string {
	if d := r.env.Getenv("CODEX_HOME"); filepath.IsAbs(d) {
		return d
	}
	if home := r.home(); filepath.IsAbs(home) {
		return filepath.Join(home, ".codex")
	}
	return ""
}

// codexEventLabel is how Codex names an event in a hook's trust key and
// hash (hook_event_key_label): snake case.
func codexEventLabel(event string) string {
	var b strings.Builder
	for i, c := range event {
		if c >= 'A' && c <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteRune(c)
	}
	return b.String()
}

// codexMatcherEvents are the events whose matcher Codex keeps in a
// hook's identity; for the others it ignores the matcher.
var codexMatcherEvents = []string{"PreToolUse", "PostToolUse", "PermissionRequest", "SessionStart"}

// codexHookHash is what Codex 0.169 hashes to tell whether a hook is the
// one the user trusted (hooks/src/engine/discovery.rs,
// command_hook_hash): the SHA-256 of the compact JSON, keys sorted, of
// the hook's normalised identity — its event's label, the matcher where
// the event has one, and the one handler with its timeout (600 when
// unset) and no Windows command. donegate computes it to tell a hook
// trusted as it is from one changed since; it never writes it.
func codexHookHash(reg registration) string {
	timeout := int64(reg.timeout / time.Second)
	if !reg.timeoutSet {
		timeout = 600
	}
	handler := map[string]any{"type": "command", "command": reg.command, "timeout": max(timeout, 1), "async": reg.async}
	if reg.statusMessage != nil {
		handler["statusMessage"] = *reg.statusMessage
	}
	identity := map[string]any{"event_name": codexEventLabel(reg.event), "hooks": []any{handler}}
	if reg.matcher != "" && slices.Contains(codexMatcherEvents, reg.event) {
		identity["matcher"] = reg.matcher
	}
	// encoding/json sorts map keys and writes no spaces; serde_json
	// escapes neither <, > nor &.
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(identity) // maps of strings, numbers and booleans
	sum := sha256.Sum256([]byte(strings.TrimSuffix(b.String(), "\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// codexConfig is what doctor reads of Codex's config.toml.
type codexConfig struct {
	Features map[string]any `toml:"features"`
	Tools    struct {
		UpdatePlan struct {
			Enabled *bool `toml:"enabled"`
		} `toml:"update_plan"`
	} `toml:"tools"`
	Hooks struct {
		State map[string]struct {
			Enabled     *bool  `toml:"enabled"`
			TrustedHash string `toml:"trusted_hash"`
		} `toml:"state"`
	} `toml:"hooks"`
	Projects map[string]struct {
		TrustLevel string `toml:"trust_level"`
	} `toml:"projects"`
	Plugins map[string]struct {
		Enabled *bool `toml:"enabled"`
	} `toml:"plugins"`
	// AllowManagedHooksOnly, in requirements.toml only: Codex runs no
	// hook of the user's, the project's or a session's config.
	AllowManagedHooksOnly bool `toml:"allow_managed_hooks_only"`
	// SandboxMode and SandboxWorkspaceWrite: the sandbox of the agent's
	// commands (see doctorCodexSandbox).
	SandboxMode           string `toml:"sandbox_mode"`
	SandboxWorkspaceWrite struct {
		WritableRoots       []string `toml:"writable_roots"`
		ExcludeSlashTmp     *bool    `toml:"exclude_slash_tmp"`
		ExcludeTmpdirEnvVar *bool    `toml:"exclude_tmpdir_env_var"`
	} `toml:"sandbox_workspace_write"`
}

// readCodexConfig reads a config.toml; ok is false when it does not
// exist, and err says why one cannot be read.
func readCodexConfig(path string) (c codexConfig, ok bool, err error) {
	data, _, err := readSettings(path)
	if err != nil || data == nil {
		return c, false, err
	}
	if err := decodeTOML(data, &c); err != nil {
		return c, false, fmt.Errorf("%s: %w", path, err)
	}
	return c, true, nil
}

// doctorCodex says what Codex's config.toml does to donegate's hooks:
// hooks turned off, a hook not trusted (Codex skips it without a word),
// a project not trusted (its .codex/ is ignored), and the plan tool off.
func (r *runCtx) doctorCodex(rep *DoctorReport, s hostSetup, regs []registration) {
	home := r.codexHome()
	if home == "" {
		rep.add("codex", statusUnknown, "set HOME or CODEX_HOME", "Codex's config dir is unknown (HOME and CODEX_HOME unset): whether its hooks are trusted cannot be told")
		return
	}
	userPath := filepath.Join(home, "config.toml")
	user, _, err := readCodexConfig(userPath)
	if err != nil {
		rep.add("codex", statusFail, "correct the TOML: Codex does not start with a config it cannot read", "%v", err)
		return
	}
	project, _, err := readCodexConfig(filepath.Join(r.dir, ".codex", "config.toml"))
	if err != nil {
		rep.add("codex", statusFail, "correct the TOML", "%v", err)
	}
	for _, key := range []string{"hooks", "codex_hooks"} {
		if on, ok := user.Features[key].(bool); ok && !on {
			rep.add("codex", statusFail, "remove `"+key+" = false` from [features] in "+userPath,
				"%s sets [features] %s = false: Codex runs no hooks, donegate's included", userPath, key)
		}
	}
	projectHooks := false
	managed, _, err := readCodexConfig(r.codexRequirements())
	if err != nil {
		rep.add("codex", statusFail, "correct the TOML: Codex does not start with requirements it cannot read", "%v", err)
	}
	for _, reg := range regs {
		if filepath.Dir(reg.file) == filepath.Join(r.dir, ".codex") {
			projectHooks = true
		}
		where := fmt.Sprintf("%s at %s in %s", regCommand(reg.hook, strings.Join(reg.flags, " ")), reg.event, reg.file)
		if reg.file == r.codexRequirements() {
			rep.add("codex", statusOK, "", "%s runs without review: Codex trusts its managed requirements", where)
			continue
		}
		if managed.AllowManagedHooksOnly {
			rep.add("codex", statusFail, "register donegate in the managed requirements: closer init --host codex --managed",
				"%s is ignored: %s sets allow_managed_hooks_only = true, and Codex runs only the hooks of its managed layers", where, r.codexRequirements())
			continue
		}
		key := codexTrustKey(reg)
		st, found := user.Hooks.State[key]
		if !found {
			// Codex resolves the project's path; so may the key.
			if real, err := filepath.EvalSymlinks(reg.file); err == nil && real != reg.file {
				alt := reg
				alt.file = real
				st, found = user.Hooks.State[codexTrustKey(alt)]
			}
		}
		switch {
		case found && st.Enabled != nil && !*st.Enabled:
			rep.add("codex", statusFail, "turn it on in Codex's /hooks", "%s is disabled ([hooks.state.%q] enabled = false in %s)", where, key, userPath)
		case !found || st.TrustedHash == "":
			rep.add("codex", statusWarn, "open /hooks in Codex and trust it (a headless run: codex exec --dangerously-bypass-hook-trust); donegate never trusts a hook for you",
				"%s is not trusted: Codex skips it without a word until you review it (no trusted_hash for \"%s\" in %s)", where, key, userPath)
		case st.TrustedHash == codexHookHash(reg):
			rep.add("codex", statusOK, "", "%s is trusted in Codex", where)
		case reg.keySource != "" && strings.HasPrefix(st.TrustedHash, codexHookHash(reg)+"/"):
			// A plugin's hook is trusted as "<the hook's hash>/<one of
			// the plugin's>" (measured on 0.169.0); doctor reckons only
			// the first.
			rep.add("codex", statusOK, "", "%s is trusted in Codex (the hook as it is; whether the plugin changed since, only /hooks tells)", where)
		default:
			rep.add("codex", statusWarn, "open /hooks in Codex and review it again",
				"%s: its trusted_hash in %s is not the hash donegate reckons Codex gives it now (%s): the hook changed since you trusted it, and Codex skips it as modified; or this Codex hashes hooks differently than 0.169 does, and doctor cannot tell",
				where, userPath, codexHookHash(reg))
		}
	}
	if projectHooks && !codexProjectTrusted(user, r.dir) {
		rep.add("codex", statusWarn, "trust the project when Codex asks (codex exec: --trust)",
			"%s is not a trusted project in %s: Codex ignores its .codex/ (donegate's hooks included) until it is", r.dir, userPath)
	}
	r.doctorCodexSandbox(rep, user, project, userPath)
	on := user.Tools.UpdatePlan.Enabled
	if project.Tools.UpdatePlan.Enabled != nil {
		on = project.Tools.UpdatePlan.Enabled
	}
	if on == nil || !*on {
		rep.add("codex", statusWarn, "add [tools.update_plan] enabled = true to "+userPath,
			"Codex's plan tool is off (opt-in since 0.152): the model has no update_plan, so the plan checker has no plan to check")
	} else {
		rep.add("codex", statusOK, "", "Codex's plan tool (update_plan) is on")
	}
}

// codexTrustKey is the key of reg's [hooks.state] entry in Codex's
// config.toml: "<file>:<event label>:<group>:<handler>".
func codexTrustKey(reg registration) string {
	source := reg.file
	if reg.keySource != "" {
		source = reg.keySource
	}
	return fmt.Sprintf("%s:%s:%d:%d", source, codexEventLabel(reg.event), reg.group, reg.handler)
}

// codexProjectTrusted reports whether dir, or a dir above it (a git
// repository's root), has trust_level "trusted" in Codex's config.
func codexProjectTrusted(c codexConfig, dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if p, ok := c.Projects[d]; ok && p.TrustLevel == "trusted" {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// doctorCodexSandbox says whether Codex's sandbox keeps the agent's
// commands out of donegate's state dir and the project's .codex/.
// Measured with Codex 0.171.0 (TestCodexSandboxKeepsTheAgentOut):
// under "workspace-write" the agent's shell can write the project, /tmp
// and $TMPDIR (unless [sandbox_workspace_write] excludes them) and the
// writable_roots, never the project's .codex/ or .git/; the hooks run
// outside it. A flag of the run (--sandbox, --full-auto,
// --dangerously-bypass-approvals-and-sandbox) or a profile overrides
// what the config says, which doctor cannot see.
func (r *runCtx) doctorCodexSandbox(rep *DoctorReport, user, project codexConfig, userPath string) {
	mode, where := user.SandboxMode, userPath
	ww := user.SandboxWorkspaceWrite
	if project.SandboxMode != "" {
		mode, where = project.SandboxMode, filepath.Join(r.dir, ".codex", "config.toml")
		ww = project.SandboxWorkspaceWrite
	}
	// Like Claude Code's, the sandbox is the person's choice: without it
	// the guard and closer's own refusals stand (docs/security.md).
	const offer = `: with sandbox_mode = "workspace-write" in %s, the agent's shell cannot write donegate's state dir or the project's .codex/`
	switch mode {
	case "":
		rep.add("codex", statusOK, "", "Codex's sandbox_mode is not set (optional; each run's flags choose)"+offer, userPath)
	case "danger-full-access":
		rep.add("codex", statusOK, "", "Codex runs the agent's commands with no sandbox (optional; sandbox_mode = \"danger-full-access\" in %s)"+offer, where, where)
	case "read-only":
		rep.add("codex", statusOK, "", "Codex's sandbox is read-only (%s): the agent's shell writes nothing, donegate's state dir included", where)
	case "workspace-write":
		sd := filepath.Clean(r.stateDir())
		var open []string
		roots := append([]string{r.dir}, ww.WritableRoots...)
		if ww.ExcludeSlashTmp == nil || !*ww.ExcludeSlashTmp {
			roots = append(roots, "/tmp")
		}
		if tmp := r.env.Getenv("TMPDIR"); tmp != "" && (ww.ExcludeTmpdirEnvVar == nil || !*ww.ExcludeTmpdirEnvVar) {
			roots = append(roots, tmp)
		}
		for _, root := range roots {
			if root != "" && filepath.IsAbs(root) && safewrite.Inside(filepath.Clean(root), sd) {
				open = append(open, root)
			}
		}
		if len(open) > 0 {
			rep.add("codex", statusWarn, "keep the state dir out of them (DONEGATE_STATE_DIR), or exclude them in [sandbox_workspace_write]",
				"Codex's workspace-write sandbox (%s) lets the agent's shell write %s, which holds donegate's state dir %s", where, andList(open), sd)
			return
		}
		rep.add("codex", statusOK, "", "Codex's workspace-write sandbox (%s) keeps the agent's shell out of donegate's state dir (%s) and the project's .codex/ (unless a run's flags choose another)", where, sd)
	default:
		rep.add("codex", statusUnknown, "", "Codex's sandbox_mode is %q (%s), which doctor does not know", mode, where)
	}
}
