package gate

import (
	"bytes"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/otlp"
	"github.com/donegate/donegate/internal/paths"
)

// The agent's tool calls that would loosen its own gate are refused
// before they run, where the host lets a PreToolUse hook refuse a call
// (hookio.Host.GuardsTools): posttooluse-hook, registered at PreToolUse
// of the shell and edit tools too, looks at the command or the path and
// nothing else — no config, no record, no consent — so that the call it
// lets pass costs what any ungated call costs. It catches the plain
// forms: a shell command can be written in ways no look at its text
// sees (a script it wrote, a variable, an encoding), and what stops a
// determined agent is closer's own refusal inside the agent's shell and,
// for what remains, the host's sandbox (docs/security.md).

// refuse answers the event when the guard stops it (refused true): the
// agent's call would loosen its own gate, and is denied or asked of the
// person before anything else is read. The refusal is logged.
func (r *run) refuse() (rep Report, refused bool, err error) {
	g, ok := r.guard()
	if !ok {
		return Report{}, false, nil
	}
	rep = Report{Hook: r.name, Event: r.event, ProjectDir: r.projectDir(), StateDir: r.stateDir(), Dialect: r.dialect(nil),
		Verdict: hookio.Verdict{Block: true, Ask: g.ask, Reason: g.reason}, Decision: Decision{Kind: KindRefused, Why: "denied"}}
	if g.ask {
		rep.Decision.Why = "asked of the person"
	}
	if err := rep.write(); err != nil {
		return rep, true, err
	}
	r.logDecision(&rep)
	return rep, true, nil
}

// guardOnly is the guard alone, for posttooluse-hook's answer to a
// guarded call in a project with no config file, which nothing else
// gates: refused false lets it pass.
func guardOnly(name string, opts Options, env Env, raw []byte, stderr io.Writer) (Report, bool, error) {
	ev, err := hookio.Parse(raw, detectHost(opts, env, raw))
	if err != nil {
		return Report{}, true, err
	}
	r := newRun(name, opts, env, ev, stderr)
	if r.modeEnv == config.ModeOff {
		return Report{}, false, nil
	}
	return r.refuse()
}

// guardMayStop reports whether the guard could stop the call in raw, the
// event as read, of host: whether it holds any word a rule of the guard
// looks for, or the name of one of the host's settings files (a path in
// an edit call names it). Most calls hold none, and pass without the
// event being decoded (0.1 ms of every shell and edit call, measured
// against the build before the guard).
func guardMayStop(raw []byte, env Env, host hookio.Host) bool {
	for _, w := range guardWords {
		if bytes.Contains(raw, []byte(w)) {
			return true
		}
	}
	inProject, user := host.SettingsFiles("", env.Getenv, "")
	for _, f := range slices.Concat(inProject, user, hookio.ProjectEnvFiles(), host.PluginDirs("", env.Getenv)) {
		if bytes.Contains(raw, []byte(path.Base(filepath.ToSlash(f)))) {
			return true
		}
	}
	sd := filepath.Clean(paths.StateDir(env.Getenv))
	return sd != "." && bytes.Contains(raw, []byte(filepath.ToSlash(sd)))
}

// guardWords are the words the guard's rules look for: closer's name,
// the snapshots' dir, the variables' prefix, the settings files, the
// state dir's default and its variable, the export's user settings.
var guardWords = []string{"closer", "shell-snapshots", "DONEGATE_", "settings", "state/donegate", "XDG_STATE_HOME", otlp.UserFileName}

// exportSettingsRef is how a shell command names the user's export
// settings (otlp.UserFile), whatever its dir is spelled as; the refusal
// says why they are not the agent's.
const (
	exportSettingsRef     = "donegate/" + otlp.UserFileName
	exportSettingsRefusal = "donegate refuses this call: the export's settings (" + otlp.UserFileName + ") are the person's; where your decisions go, or whether they go, is not yours to change."
)

// guardVerdict is what the guard answers a call it stops: denied, or
// asked of the person (Verdict.Ask), with the reason.
type guardVerdict struct {
	ask    bool
	reason string
}

// guard looks at a PreToolUse of the agent's shell or edit tools; ok is
// false for a call it lets pass.
func (r *run) guard() (guardVerdict, bool) {
	ev := r.event
	if ev.HookEventName != hookio.EventPreToolUse || !ev.Host.GuardsTools() {
		return guardVerdict{}, false
	}
	if cmd := ev.ShellCommand(); cmd != "" {
		return r.guardCommand(cmd)
	}
	// A patch of several files stops at the first the guard stops.
	for _, p := range ev.EditedPaths() {
		if !filepath.IsAbs(p) {
			p = filepath.Join(ev.Cwd, p)
		}
		if v, ok := r.guardPath(filepath.Clean(p)); ok {
			return v, true
		}
	}
	return guardVerdict{}, false
}

// personsCommands are closer's commands that are the person's alone
// (export: the agent's, sent to an endpoint of its choosing, would mark
// the decisions sent).
var personsCommands = []string{"release", "allow", "init", "export"}

// guardCommand looks at a shell command's text.
func (r *run) guardCommand(cmd string) (guardVerdict, bool) {
	if what := closerPersonsCommand(cmd); what != "" {
		return guardVerdict{reason: "donegate refuses this call: `closer " + what + "` is the person's command, not yours, and closer refuses it from your shell. If your work is done, say so and stop; if something blocks you, say what it is, and the person decides."}, true
	}
	if strings.Contains(cmd, "shell-snapshots") {
		return guardVerdict{reason: "donegate refuses this call: your shell's snapshot (shell-snapshots) is not yours to change; a function or alias there would make a command print what it did not do."}, true
	}
	if strings.Contains(cmd, exportSettingsRef) {
		return guardVerdict{reason: exportSettingsRefusal}, true
	}
	if strings.Contains(cmd, "DONEGATE_") && strings.Contains(cmd, "settings") {
		return guardVerdict{reason: "donegate refuses this call: a DONEGATE_ variable in the host's settings is the person's to set, not yours."}, true
	}
	for _, dir := range r.stateDirForms() {
		if strings.Contains(cmd, dir) {
			return guardVerdict{ask: true, reason: "This command names donegate's state dir (" + dir + "), where the person's consent and donegate's records are kept: the person confirms it."}, true
		}
	}
	for _, dir := range r.pluginDirForms() {
		if strings.Contains(cmd, dir) {
			return guardVerdict{ask: true, reason: "This command names a dir the host loads plugins or hooks from (" + dir + "): a file there runs inside the host beside donegate's, and could change what it sees or answers: the person confirms it."}, true
		}
	}
	return guardVerdict{}, false
}

// pluginDirForms are the ways a command may name a dir the host loads
// plugins or hooks from (see hookio.Host.PluginDirs): its path, and
// relative to the project or the home dir, slash-separated.
func (r *run) pluginDirForms() []string {
	project := r.projectDir()
	home := paths.Home(r.env.Getenv)
	var forms []string
	for _, dir := range r.event.Host.PluginDirs(project, r.env.Getenv) {
		forms = append(forms, filepath.Clean(dir))
		for _, root := range []string{project, home} {
			if rel, err := filepath.Rel(root, dir); root != "" && err == nil && filepath.IsLocal(rel) {
				forms = append(forms, filepath.ToSlash(rel))
			}
		}
	}
	return forms
}

// closerPersonsCommand returns the person's command a shell command runs
// closer with ("release"), "" for none: a simple command (split at ; & |
// newlines, parentheses, backquotes and $() whose program's base name
// is closer, past variable assignments and the wrappers that run their
// arguments (env and its flags, sudo, exec, command, nohup, time), and
// whose first argument that is no flag is one of personsCommands. Words
// in quotes are arguments of another program (git commit -m "closer
// release"), and not looked into.
func closerPersonsCommand(cmd string) string {
	segments := strings.FieldsFunc(cmd, func(c rune) bool {
		return c == ';' || c == '&' || c == '|' || c == '\n' || c == '(' || c == ')' || c == '`'
	})
	for _, seg := range segments {
		words := strings.Fields(strings.ReplaceAll(seg, "$", " "))
		i := programAt(words)
		if i < 0 || (filepath.Base(words[i]) != "closer" && filepath.Base(words[i]) != "closer.exe") {
			continue
		}
		for _, arg := range words[i+1:] {
			if strings.HasPrefix(arg, "-") {
				continue
			}
			if slices.Contains(personsCommands, arg) {
				return arg
			}
			break
		}
	}
	return ""
}

// wrappers are the programs that run the command in their arguments.
var wrappers = []string{"env", "sudo", "exec", "command", "nohup", "time"}

// programAt is the index of the program a simple command's words run:
// past variable assignments, wrappers and their flags (env -u takes a
// name); -1 for none.
func programAt(words []string) int {
	for i := 0; i < len(words); i++ {
		w := words[i]
		name, _, assigns := strings.Cut(w, "=")
		switch {
		case assigns && name != "" && !strings.ContainsAny(name, "/\"'"):
		case slices.Contains(wrappers, w):
		case strings.HasPrefix(w, "-") && i > 0:
			if w == "-u" || w == "--unset" {
				i++
			}
		default:
			return i
		}
	}
	return -1
}

// guardPath looks at the file an edit tool would write.
func (r *run) guardPath(p string) (guardVerdict, bool) {
	for _, dir := range r.stateDirForms() {
		if filepath.IsAbs(dir) && inside(p, dir) {
			return guardVerdict{reason: "donegate refuses this call: " + p + " is in donegate's state dir, where the person's consent and donegate's records are kept; it is not yours to write."}, true
		}
	}
	if sameFile(p, otlp.UserFile(r.env.Getenv)) {
		return guardVerdict{reason: exportSettingsRefusal}, true
	}
	claudeDir := paths.ClaudeDir(r.env.Getenv, r.event.TranscriptPath)
	if inside(p, filepath.Join(claudeDir, "shell-snapshots")) {
		return guardVerdict{reason: "donegate refuses this call: your shell's snapshot is not yours to change; a function or alias there would make a command print what it did not do."}, true
	}
	// donegate's own config is not guarded: an edit of it is not used
	// until the person allows it (consent keeps the allowed one in
	// force), and a broken one asks the agent to fix it.
	project := r.projectDir()
	inProject, user := r.event.Host.SettingsFiles(project, r.env.Getenv, r.event.TranscriptPath)
	if slices.ContainsFunc(user, func(f string) bool { return sameFile(p, f) }) {
		return guardVerdict{ask: true, reason: "This call changes the host's user settings (" + p + "), where donegate's hooks and the sandbox are registered: the person confirms it."}, true
	}
	for _, f := range hookio.ProjectEnvFiles() {
		inProject = append(inProject, filepath.Join(project, filepath.FromSlash(f)))
	}
	if slices.ContainsFunc(inProject, func(f string) bool { return sameFile(p, f) }) {
		return guardVerdict{ask: true, reason: "This call changes the project's host settings (" + p + "), where donegate's hooks are registered and an \"env\" may reach the hooks: the person confirms it."}, true
	}
	if slices.ContainsFunc(r.event.Host.PluginDirs(project, r.env.Getenv), func(d string) bool { return inside(p, d) }) {
		return guardVerdict{ask: true, reason: "This call writes in a dir the host loads plugins from (" + p + "): a plugin runs inside the host, beside donegate's, and could change what it sees or runs: the person confirms it."}, true
	}
	return guardVerdict{}, false
}

// stateDirForms are the ways a command may name donegate's state dir:
// as the hooks resolve it, and its default's common spellings.
func (r *run) stateDirForms() []string {
	forms := []string{filepath.Clean(r.stateDir()), ".local/state/donegate", "DONEGATE_STATE_DIR"}
	if x := r.env.Getenv("XDG_STATE_HOME"); x != "" {
		forms = append(forms, filepath.Join(x, "donegate"))
	}
	return forms
}

// inside reports whether path is dir or inside it, as given or with the
// links in both followed: an agent that linked cfg to .codex writes
// .codex/hooks.json through cfg/hooks.json.
func inside(path, dir string) bool {
	return within(path, dir) || within(resolved(path), resolved(dir))
}

// sameFile reports whether a and b name one file, as given or with the
// links in both followed (see inside).
func sameFile(a, b string) bool { return a == b || resolved(a) == resolved(b) }

// resolved is path with the links of its longest existing prefix
// followed; path where none can be read.
func resolved(path string) string {
	rest := ""
	for p := path; ; p = filepath.Dir(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(p) == p {
			return path
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
