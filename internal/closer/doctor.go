package closer

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/gate"
	"github.com/donegate/donegate/internal/judge"
	"github.com/donegate/donegate/internal/paths"
)

var doctorCommand = command{
	name: "doctor",
	summary: `Check that donegate is set up to hold the agent in DIR: the hook binaries
and their versions, the hooks registered in the Claude Code settings (user,
project, local) and enabled plugins, hooks Claude Code ignores, those of
every other host the project or the user set up (Codex CLI, with whether
it trusts each hook and has its plan tool on; Qwen Code and its todo tool;
Gemini CLI and folder trust; Copilot CLI), the config and its checkers,
the state dir, and the Claude Code version. Prints one
✓ (fine), ! (works, but look), ? (cannot be seen from here: a plugin
loaded with claude --plugin-dir, say how to check) or ✗ (broken, with its
fix) line each; exits 1 when a line is ✗, 0 otherwise.`,
	bind: func(fs *flag.FlagSet, _ *options) runFunc {
		var claude string
		claudeFlag(fs, &claude)
		return func(ctx context.Context, r *runCtx) (verdict, error) { return runDoctor(ctx, r, claude) }
	},
}

// Statuses of a finding.
const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "fail"
	// statusUnknown is what doctor cannot see: a plugin loaded with
	// `claude --plugin-dir DIR` is in no file doctor reads. It exits as a
	// warning does: a ✗ there offered fixes that doubled the hooks.
	statusUnknown = "unknown"
)

// Finding is one line of doctor's report.
type Finding struct {
	// Area groups findings: binaries, settings, config, state, claude.
	Area    string `json:"area"`
	Status  string `json:"status"` // ok, warn, unknown or fail
	Message string `json:"message"`
	// Fix says what to do; set on every fail, and on warnings that have one.
	Fix string `json:"fix,omitempty"`
}

// DoctorReport is doctor's answer, and its --json output.
type DoctorReport struct {
	// OK is false when a finding is a fail (exit 1).
	OK       bool      `json:"ok"`
	Findings []Finding `json:"findings"`
}

func (d *DoctorReport) add(area, status, fix, format string, args ...any) {
	d.Findings = append(d.Findings, Finding{Area: area, Status: status, Message: fmt.Sprintf(format, args...), Fix: fix})
	if status == statusFail {
		d.OK = false
	}
}

// defaultHookTimeout is what Claude Code 2.1.x gives a command hook whose
// entry sets no "timeout".
const defaultHookTimeout = 600 * time.Second

// versionTimeout bounds each `--version` run: a binary that hangs there
// would hang a hook too, and is reported, not waited for.
const versionTimeout = 5 * time.Second

// installFix says how to install the binaries, in the words of this
// system's shell: cmd.exe and PowerShell take no VAR=value prefix.
var installFix = "install the binaries: " + installCommand(runtime.GOOS) + " (or copy a release archive's plugin/bin/ to a directory on PATH)"

// installCommand is the go install of the three binaries, static, as a
// person types it on goos.
func installCommand(goos string) string {
	const install = "go install github.com/donegate/donegate/cmd/...@latest"
	if goos == "windows" {
		return `$env:CGO_ENABLED="0"; ` + install + " (PowerShell; in cmd.exe: set \"CGO_ENABLED=0\" && " + install + ")"
	}
	return "CGO_ENABLED=0 " + install
}

// runDoctor runs doctor; claude is --claude, the Claude Code CLI.
func runDoctor(ctx context.Context, r *runCtx, claude string) (verdict, error) {
	rep := r.doctor(ctx, claude)
	if r.opts.json {
		return verdict(rep.OK), writeJSON(r.stdout, rep)
	}
	p := r.printer()
	fails, warns, unknown := 0, 0, 0
	for _, f := range rep.Findings {
		mark := p.green("✓")
		switch f.Status {
		case statusFail:
			mark = p.red("✗")
			fails++
		case statusWarn:
			mark = p.paint("33", "!")
			warns++
		case statusUnknown:
			mark = p.paint("33", "?")
			unknown++
		}
		p.line(mark + " " + f.Area + ": " + f.Message)
		if f.Fix != "" {
			p.line(p.dim("    fix: " + f.Fix))
		}
	}
	switch {
	case fails > 0:
		p.line(p.red(fmt.Sprintf("%d problem(s), %d warning(s).", fails, warns)) + " Fix the ✗ lines, then run closer doctor again.")
	case warns > 0 || unknown > 0:
		tail := fmt.Sprintf(", %d warning(s)", warns)
		if unknown > 0 {
			tail += fmt.Sprintf(", %d unknown (?: check those yourself)", unknown)
		}
		p.line(p.green("No problems") + tail + ".")
	default:
		p.line(p.green("No problems found."))
	}
	return verdict(rep.OK), p.err
}

// doctor runs every check. Nothing here is an error of closer's: what
// cannot be checked is itself a finding.
func (r *runCtx) doctor(ctx context.Context, claude string) DoctorReport {
	rep := DoctorReport{OK: true, Findings: []Finding{}}
	cfg := r.doctorConfig(&rep)
	if cfg != nil {
		r.doctorConsent(&rep)
	}
	r.doctorMode(&rep, cfg)
	r.doctorExport(&rep)
	main := defaultSetup()
	regs := main.registrationsOf(r, &rep)
	hostRegs, othersOnly := r.doctorHosts(&rep, cfg)
	if !othersOnly || len(regs) > 0 {
		// Where only other hosts are set up, their own checks say what
		// holds there (whether the model has a plan tool, say).
		r.judgeRegistrations(&rep, main, regs, cfg)
	}
	r.doctorBinaries(ctx, &rep, slices.Concat(regs, hostRegs))
	r.doctorStateDirs(&rep, slices.Concat(regs, hostRegs))
	if !othersOnly {
		main.client(ctx, r, &rep, claude)
	}
	// Config first to have the budget at hand; shown in the order a person
	// installs: binaries, registrations (the default host's settings, and
	// what other hosts make of them, then each other host's), config,
	// state, the default host's client.
	order := map[string]int{"binaries": 0, "settings": 1}
	for _, h := range hookio.Hosts {
		if _, setUp := setupOf(h); !setUp {
			order[string(h)] = len(order) // reads the default host's settings
		}
	}
	for _, s := range otherSetups() {
		order[string(s.host)] = len(order)
	}
	for _, area := range []string{"config", "consent", "mode", "state", "export", string(main.host)} {
		order[area] = len(order)
	}
	slices.SortStableFunc(rep.Findings, func(a, b Finding) int { return order[a.Area] - order[b.Area] })
	return rep
}

// doctorConfig reports the config the hooks would pick for --dir, and
// returns it (nil when it is broken).
func (r *runCtx) doctorConfig(rep *DoctorReport) *config.Config {
	l := config.Lookup{Flag: r.opts.configPath, Env: r.env.Getenv("DONEGATE_CONFIG"), ProjectDir: r.dir}
	path, err := config.Find(l)
	if err != nil {
		rep.add("config", statusFail, "create the file, or unset what names it", "%v", err)
		return nil
	}
	source := path
	if path == "" {
		files := config.ProjectFiles(r.dir)
		source = config.DefaultSource + " (no " + files[0] + " nor " + files[1] + ")"
	}
	c, err := config.Resolve(l)
	if err != nil {
		rep.add("config", statusFail, "correct the config (every problem is listed above); until then the hooks let the agent stop with a message, or block if it asks for on_error \"block\"", "%s is invalid: %s", source, oneLine(err.Error()))
		return nil
	}
	rep.add("config", statusOK, "", "%s is valid: dialect %s, limits.budget %s, limits.max_blocks %d; its checkers, not run here (closer check runs them):", source, c.Dialect, c.Limits.Budget, c.Limits.MaxBlocks)
	for _, w := range c.Warnings {
		rep.add("config", statusWarn, "correct the template, or remove it to keep the built-in wording", "%s", w)
	}
	for i, s := range c.Checkers {
		rep.add("config", statusOK, "", "checker %d: %s%s", i+1, checkers.Describe(s), r.detectedTest(s))
	}
	r.doctorJudges(rep, c)
	return c
}

// doctorJudges checks what a judge checker needs beyond a valid config:
// a claude to run, and time to run it in. A judge whose claude is missing
// cannot run at any stop (a checker error, on_error decides), and one
// whose timeout outlasts the budget is cut off by it with no verdict.
func (r *runCtx) doctorJudges(rep *DoctorReport, c *config.Config) {
	budget := c.Limits.Budget.D()
	config.EachChecker(c.Checkers, func(_ string, spec config.Checker) {
		o, ok := spec.Options.(*checkers.JudgeOptions)
		if !ok {
			return
		}
		bin := o.Claude
		if bin == "" {
			bin = "claude"
		}
		if paths.HasDir(bin) && !filepath.IsAbs(bin) {
			bin = filepath.Join(r.dir, bin) // as the checker resolves it
		}
		if _, err := exec.LookPath(bin); err != nil {
			rep.add("config", statusFail, `install Claude Code, or set the judge's "claude" to its executable`,
				"%s: cannot run %s: %v; the check fails at every stop", spec.Label(), bin, err)
		}
		timeout := o.Timeout.D()
		if timeout <= 0 {
			timeout = judge.DefaultTimeout
		}
		if timeout >= budget {
			rep.add("config", statusWarn, fmt.Sprintf(`lower the judge's "timeout" below %s, or raise limits.budget`, budget),
				"%s: its timeout (%s) is not below limits.budget (%s): the budget stops a slow judge first, with no verdict", spec.Label(), timeout, budget)
		}
	})
}

// regConfig is the config a registered hook runs with: the file its own
// --config names (relative to the project dir, where Claude Code runs
// hooks), else the one doctor found. nil when it is broken; the
// problem is reported once per file.
func (r *runCtx) regConfig(rep *DoctorReport, reg registration, found *config.Config, loaded map[string]*config.Config) *config.Config {
	path, ok := flagValue(reg.flags, "config")
	if !ok {
		return found
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.dir, path)
	}
	if c, seen := loaded[path]; seen {
		return c
	}
	c, err := config.Load(path)
	if err != nil {
		rep.add("config", statusFail, "correct the file, or the command's --config", "%s, named by --config in %s, is invalid: %s", path, reg.source, oneLine(err.Error()))
		c = nil
	} else {
		rep.add("config", statusOK, "", "%s, named by --config in %s, is valid: dialect %s, limits.budget %s", path, reg.source, c.Dialect, c.Limits.Budget)
	}
	loaded[path] = c
	return c
}

// registration is one donegate hook handler found in a settings file or
// a plugin.
type registration struct {
	source  string // "project settings .claude/settings.json", "plugin donegate@donegate"
	event   string // Stop, SubagentStop, PreToolUse, PostToolUse
	matcher string
	command string
	timeout time.Duration // the entry's, else defaultHookTimeout

	// file is the settings file that holds it, "" for a plugin's.
	file string
	// args are an exec-form handler's arguments, nil for a shell command.
	args []string

	hook    string   // stop-hook or posttooluse-hook
	program string   // the executable Claude Code ends up running: a path, or a name on PATH
	flags   []string // the hook's own flags

	// group and handler are the entry's place in the event's list (its
	// matcher group, and its handler there): Codex keys a hook's trust
	// by them. timeoutSet: the entry names its timeout.
	group, handler int
	timeoutSet     bool
	// keySource names the file in Codex's trust key when it is not the
	// file's path: a plugin's "donegate@market:hooks/hooks.json".
	keySource     string
	async         bool
	statusMessage *string
}

// dedupKey is what Claude Code compares to run a handler once: the
// command string (with an exec form's arguments).
func (reg registration) dedupKey() string {
	if reg.args == nil {
		return reg.command
	}
	return reg.command + "\x00" + strings.Join(reg.args, "\x00")
}

// settingsJSON is what doctor reads of a Claude Code settings file.
type settingsJSON struct {
	Hooks          map[string][]hookMatcher   `json:"hooks"`
	EnabledPlugins map[string]json.RawMessage `json:"enabledPlugins"`
	// DisableAllHooks turns every hook off, donegate's included.
	DisableAllHooks *bool `json:"disableAllHooks"`
}

// parseSettings decodes a settings file as Claude Code reads it: of a
// key repeated in an object, the last one alone counts (JSON.parse),
// where json.Unmarshal into the struct would merge two "hooks" objects
// (it fills the map a first key made). Below the top level, every repeated key
// already replaces the value before it: json.Unmarshal zeroes a map's
// element before decoding it and resets a slice.
func parseSettings(data []byte) (settingsJSON, error) {
	var s settingsJSON
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return s, err
	}
	// top holds each key once, with its last value.
	unique, err := json.Marshal(top)
	if err != nil {
		return s, err
	}
	err = json.Unmarshal(unique, &s)
	return s, err
}

type hookMatcher struct {
	Matcher string        `json:"matcher"`
	Hooks   []hookHandler `json:"hooks"`
}

// hookHandler is one handler of a matcher group.
type hookHandler struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	// Args, when present (even empty), makes the handler exec form:
	// Command is the program, spawned with no shell.
	Args    []string `json:"args"`
	Timeout *float64 `json:"timeout"` // seconds (Gemini: milliseconds)
	// What Codex hashes besides, to tell a hook trusted as it is.
	Async         bool    `json:"async"`
	StatusMessage *string `json:"statusMessage"`
}

// registrations picks donegate's handlers out of a hooks object;
// pluginRoot is ${CLAUDE_PLUGIN_ROOT} for a plugin's.
func (r *runCtx) registrations(source string, hooks map[string][]hookMatcher, pluginRoot string) []registration {
	events := make([]string, 0, len(hooks))
	for ev := range hooks {
		events = append(events, ev)
	}
	// In the order of the settings in docs/hosts.md, then any other event by name.
	rank := func(ev string) int {
		order := []string{"Stop", "SubagentStop", "AfterAgent", "agentStop", "subagentStop", "PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "BeforeAgent"}
		if i := slices.Index(order, ev); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortFunc(events, func(a, b string) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	var regs []registration
	for _, ev := range events {
		for gi, m := range hooks[ev] {
			for hi, h := range m.Hooks {
				if h.Type != "command" && h.Type != "" {
					continue
				}
				var hook, program string
				var flags []string
				var ok bool
				if h.Args != nil {
					hook, program, flags, ok = r.resolveExec(h.Command, h.Args, pluginRoot)
				} else {
					hook, program, flags, ok = r.resolveCommand(h.Command, pluginRoot)
				}
				if !ok {
					continue
				}
				timeout := defaultHookTimeout
				if h.Timeout != nil {
					timeout = time.Duration(*h.Timeout * float64(time.Second))
				}
				regs = append(regs, registration{source: source, event: ev, matcher: m.Matcher, command: h.Command, args: h.Args,
					timeout: timeout, hook: hook, program: program, flags: flags, group: gi, handler: hi, timeoutSet: h.Timeout != nil,
					async: h.Async, statusMessage: h.StatusMessage})
			}
		}
	}
	return regs
}

// resolveCommand reads a handler's command the way `sh -c` runs it, for
// the forms donegate's docs give: `stop-hook [flags]`, a quoted path
// with $CLAUDE_PROJECT_DIR, and the plugin's shell command, which ends in
// `sh ".../donegate-hook" stop-hook`. ok is false for a command that is
// not donegate's.
func (r *runCtx) resolveCommand(command, pluginRoot string) (hook, program string, flags []string, ok bool) {
	words := r.shellWords(command, pluginRoot)
	// The Codex plugin's and the Gemini extension's command:
	// `if [ -x "DIR/bin/stop-hook" ]; then exec "DIR/bin/stop-hook" FLAGS; fi; exec stop-hook FLAGS`.
	if len(words) > 4 && words[0] == "if" && words[1] == "[" && words[2] == "-x" {
		if last := slices.Index(words, "fi;"); last > 0 && last+2 < len(words) && words[last+1] == "exec" {
			hook = words[last+2]
			program = hook
			if isExecutable(words[3]) && programName(words[3]) == hook {
				program = words[3]
			}
			switch hook {
			case "stop-hook", "posttooluse-hook":
				return hook, program, words[last+3:], true
			}
			return "", "", nil, false
		}
	}
	// The plugin's shell command looks for the binary in its bin/ and on
	// PATH before it runs the wrapper, and names it in each place: the
	// wrapper's words say what it runs.
	for i, w := range words {
		if filepath.Base(w) != "donegate-hook" {
			continue
		}
		if i+1 >= len(words) {
			return "", "", nil, false
		}
		hook = words[i+1]
		// The wrapper runs the binary beside it, else the one on PATH.
		program = hook
		if beside, ok := executableIn(filepath.Dir(w), hook); ok {
			program = beside
		}
		return hook, program, words[i+2:], true
	}
	for i, w := range words {
		switch programName(w) {
		case "stop-hook", "posttooluse-hook":
			return programName(w), w, words[i+1:], true
		}
	}
	return "", "", nil, false
}

// resolveExec reads an exec-form handler (the built plugin's): command is
// the program, args its flags, each with Claude Code's path placeholders
// replaced as plain strings. ok is false for a program that is not
// donegate's.
func (r *runCtx) resolveExec(command string, args []string, pluginRoot string) (hook, program string, flags []string, ok bool) {
	expand := strings.NewReplacer("${CLAUDE_PLUGIN_ROOT}", pluginRoot, "${CLAUDE_PROJECT_DIR}", r.dir).Replace
	program = expand(command)
	switch hook = programName(program); hook {
	case "stop-hook", "posttooluse-hook":
	default:
		return "", "", nil, false
	}
	flags = []string{}
	for _, a := range args {
		flags = append(flags, expand(a))
	}
	return hook, program, flags, true
}

// shellWords splits a command into words as sh does for the simple
// commands hooks are: quotes, backslashes and $VAR / ${VAR} expansion of
// the variables Claude Code sets. It is not a shell: pipes, globs and
// substitutions are left as they are.
func (r *runCtx) shellWords(s, pluginRoot string) []string {
	vars := func(name string) string {
		switch name {
		case "CLAUDE_PROJECT_DIR":
			return r.dir
		case "CLAUDE_PLUGIN_ROOT", "PLUGIN_ROOT", "extensionPath":
			// Claude Code's, Codex's and Gemini CLI's names of a
			// plugin's dir (Gemini replaces its own before the shell
			// runs the command).
			return pluginRoot
		case "HOME":
			return r.home()
		}
		return r.env.Getenv(name)
	}
	var words []string
	var cur strings.Builder
	inWord, single, double := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case single:
			if c == '\'' {
				single = false
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' && !double:
			single, inWord = true, true
		case c == '"':
			double, inWord = !double, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == '$':
			name, n := varName(s[i+1:])
			if n == 0 {
				cur.WriteByte(c)
			} else {
				cur.WriteString(vars(name))
				i += n
			}
			inWord = true
		case !double && (c == ' ' || c == '\t' || c == '\n'):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	// sh expands a leading ~ of any word (quoted ones aside, which this
	// does not tell apart).
	for i, w := range words {
		words[i] = paths.Expand(r.env.Getenv, w)
	}
	return words
}

// varName reads the name after a $: NAME or {NAME}; n is how many bytes
// it took (0: not a variable).
func varName(s string) (name string, n int) {
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", 0
		}
		return s[1:end], end + 1
	}
	for n < len(s) && (s[n] == '_' || s[n] >= 'A' && s[n] <= 'Z' || s[n] >= 'a' && s[n] <= 'z' || n > 0 && s[n] >= '0' && s[n] <= '9') {
		n++
	}
	return s[:n], n
}

// flagValue returns the value of --name (or -name) in flags, as the flag
// package reads it.
func flagValue(flags []string, name string) (string, bool) {
	for i, f := range flags {
		f = strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-")
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v, true
		}
		if f == name && i+1 < len(flags) {
			return flags[i+1], true
		}
	}
	return "", false
}

// andList joins "a", "b", "c" as "a, b and c".
func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// matchesAny reports whether a hook matcher selects one of tools, as
// Claude Code reads matchers: empty or "*" is every tool, a plain
// name list (Write|Edit) is exact names, anything else a regular
// expression.
// matchesEvery reports whether a hook entry's matcher matches each of
// tools.
func matchesEvery(matcher string, tools []string) bool {
	for _, t := range tools {
		if !matchesAny(matcher, []string{t}) {
			return false
		}
	}
	return true
}

func matchesAny(matcher string, tools []string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	plain := regexp.MustCompile(`^[A-Za-z0-9_|]+$`).MatchString(matcher)
	re, err := regexp.Compile(matcher)
	for _, t := range tools {
		switch {
		case plain && slices.Contains(strings.Split(matcher, "|"), t):
			return true
		case !plain && err == nil && re.MatchString(t):
			return true
		}
	}
	return false
}

// doctorBinaries checks each program the registrations run (or, with
// none, the hooks on PATH): there, executable, and of closer's version.
func (r *runCtx) doctorBinaries(ctx context.Context, rep *DoctorReport, regs []registration) {
	programs := []string{}
	for _, reg := range regs {
		if !slices.Contains(programs, reg.program) {
			programs = append(programs, reg.program)
		}
	}
	// With no registration, a --plugin-dir plugin may run the binaries
	// from its own bin/: one missing from PATH is unknown then, not ✗.
	missing := statusFail
	if len(programs) == 0 {
		programs = []string{"stop-hook", "posttooluse-hook"}
		missing = statusUnknown
	}
	for _, prog := range programs {
		path := prog
		if !paths.HasDir(prog) {
			p, err := exec.LookPath(prog)
			if err != nil {
				msg := "%s is not on PATH"
				if missing == statusUnknown {
					msg += ": fine if a plugin loaded with `claude --plugin-dir DIR` runs it from DIR/bin"
				}
				rep.add("binaries", missing, installFix, msg, prog)
				continue
			}
			path = p
		}
		if st, err := os.Stat(path); err != nil || st.IsDir() {
			rep.add("binaries", statusFail, installFix+", or correct the command's path", "%s does not exist", path)
			continue
		}
		if !isExecutable(path) {
			rep.add("binaries", statusFail, makeRunnable(path), "%s is not executable", path)
			continue
		}
		res, err := runProgram(ctx, r.dir, versionTimeout, nil, path, "--version")
		switch {
		case err != nil:
			rep.add("binaries", statusFail, installFix, "%s cannot run: %v", path, err)
			continue
		case res.TimedOut || res.Interrupted:
			rep.add("binaries", statusFail, installFix, "%s --version did not answer within %s", path, versionTimeout)
			continue
		case res.ExitCode != 0:
			rep.add("binaries", statusFail, installFix, "%s --version exited with code %d: %s", path, res.ExitCode, oneLine(tailText(res.Stderr, 3)))
			continue
		}
		// "stop-hook 1.2.3"
		fields := strings.Fields(string(res.Stdout))
		if len(fields) != 2 || fields[0] != programName(path) {
			rep.add("binaries", statusFail, installFix, "%s --version printed %q, not %q: is it donegate's?", path, preview(string(res.Stdout)), programName(path)+" VERSION")
			continue
		}
		if v := fields[1]; v != Version() {
			rep.add("binaries", statusWarn, "install the hooks and closer from the same release", "%s is version %s, closer is %s", path, v, Version())
			continue
		}
		rep.add("binaries", statusOK, "", "%s, version %s", path, fields[1])
		r.doctorExporterBeside(rep, path)
	}
}

// doctorStateDirs checks that each state dir the hooks would use is
// writable: the one the environment gives and any --state-dir of a
// registered command. A hook that cannot keep its count lets the agent
// stop.
func (r *runCtx) doctorStateDirs(rep *DoctorReport, regs []registration) {
	dirs := []string{r.stateDir()}
	for _, reg := range regs {
		if d, ok := flagValue(reg.flags, "state-dir"); ok && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		if err := writable(d); err != nil {
			rep.add("state", statusFail, "make it writable, or point DONEGATE_STATE_DIR (or --state-dir) elsewhere",
				"state dir %s is not writable (%v): the hooks cannot count blocks and let the agent stop", d, err)
			continue
		}
		rep.add("state", statusOK, "", "state dir %s is writable", d)
	}
}

// writable reports whether the hooks could keep state in dir. An
// existing dir must take a file (created exclusively, then removed). A
// missing one is not created: doctor only looks (a --state-dir in a
// repository's settings may name any place); the hooks create it, so its nearest existing ancestor must
// be a directory the user may write in.
func writable(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case err == nil && !st.IsDir():
		return &fs.PathError{Op: "stat", Path: dir, Err: syscall.ENOTDIR}
	case err == nil:
		return createIn(dir)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	for parent := filepath.Dir(dir); ; parent = filepath.Dir(parent) {
		st, err := os.Stat(parent)
		switch {
		case err == nil && !st.IsDir():
			return &fs.PathError{Op: "stat", Path: parent, Err: syscall.ENOTDIR}
		case err == nil:
			return canWrite(parent)
		case !errors.Is(err, fs.ErrNotExist) || parent == filepath.Dir(parent):
			return err
		}
	}
}

// createIn creates a file in dir and removes it: the one sure answer to
// whether the user may write there.
func createIn(dir string) error {
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		return err
	}
	name := f.Name()
	err = f.Close()
	if rmErr := os.Remove(name); err == nil {
		err = rmErr
	}
	return err
}

// doctorMode says in which mode the hooks run, from the sources a stop
// reads (see gate's envMode and settleMode), and how the person lets the
// agent go.
func (r *runCtx) doctorMode(rep *DoctorReport, cfg *config.Config) {
	mode, from := config.ModeEnforce, "the default"
	if cfg != nil && cfg.Mode != "" {
		mode, from = cfg.Mode, `the config's "mode"`
		if st, err := r.consentStatus(); mode != config.ModeEnforce && err == nil && !st.ConfigAllowed {
			rep.add("mode", statusWarn, r.allowFix(), `the config's "mode": %q is ignored: nobody allowed this config, and an agent could have written it`, mode)
			mode, from = config.ModeEnforce, "the default"
		}
	}
	if file, names := gate.ProjectSetsVars(r.dir); file != "" && len(slices.DeleteFunc(names, isExportVar)) > 0 {
		rep.add("mode", statusFail, "remove "+strings.Join(names, ", ")+" from the project's settings' \"env\"; set it where you start the host", "%s sets %s in the hooks' environment: the hooks ignore it, since the agent can write the project's settings", r.display(file), strings.Join(names, ", "))
	}
	switch env := r.env.Getenv(gate.ModeEnv); env {
	case "":
	case config.ModeEnforce, config.ModeObserve, config.ModeOff:
		mode, from = env, gate.ModeEnv+" here (the hooks see the host's environment, not this shell's)"
	default:
		rep.add("mode", statusWarn, "set it to enforce, observe or off, or unset it", "%s=%q is no mode: the hooks ignore it", gate.ModeEnv, env)
	}
	status := statusOK
	if mode != config.ModeEnforce {
		status = statusWarn
	}
	rep.add("mode", status, "", "%s (%s): enforce holds the agent while work is open, observe reports without holding, off checks nothing; %s=observe|off where the host starts overrides the config", mode, from, gate.ModeEnv)
	rep.add("mode", statusOK, "", "to let the agent go now: in Claude Code, Codex's TUI or pi's type %q as a message, even while the agent works; elsewhere run closer release in a terminal of your own (closer refuses it inside the agent's shell); closer release --undo takes it back", gate.ReleasePhrase)
}

// detectedTest says, for a test checker without a command, what it runs in
// this project, so that the first stop holds no surprise: "; here `go test
// ./...`, from go.mod".
func (r *runCtx) detectedTest(s config.Checker) string {
	o, ok := s.Options.(*checkers.TestOptions)
	if !ok || o.Command != "" {
		return ""
	}
	d, err := checkers.DetectTestCommand(r.dir)
	switch {
	case err != nil:
		return "; here it cannot be detected: " + err.Error()
	case d.Command == "":
		return "; here none is detected"
	}
	return "; here `" + d.Command + "`, from " + d.From
}
