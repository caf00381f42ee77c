package closer

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/hookio"
)

// hookReg is one hook entry donegate registers: program (with flags)
// at a host's event, for matcher. A registration with flags runs
// program with them, and only a command with them counts as that
// registration: stop-hook at SessionStart tells the criteria only with
// --criteria.
type hookReg struct {
	event, matcher, program, flags string
}

// hostSetup is what init writes, and doctor reads, for one agent host:
// its hook file and the entries donegate registers there. The event
// names are the host's own (Gemini's AfterAgent, Copilot's agentStop);
// hookio reads each as the Claude event it stands for.
type hostSetup struct {
	host  hookio.Host
	title string // as its makers name it
	// marker is the project dir whose presence says the project uses
	// the host; binary is the host's CLI, looked up on PATH.
	marker, binary string
	// project is the hook file init writes in DIR (relative to it).
	project string
	regs    []hookReg
	// copilot: Copilot's flat hook file ({"version": 1, "hooks":
	// {"agentStop": [{"type": "command", "bash": ...}]}}), else the
	// matcher groups Claude Code's settings have.
	copilot bool
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
	// for it, which runs stop-hook (OpenCode, see opencode.go).
	plugin bool
}

// hostSetups are the hosts init writes hook files for, in the order it
// names them. Cursor is not among them: it has no client here to check a
// hook file against (issue 22), and it runs .claude/settings.json's.
var hostSetups = []hostSetup{
	{
		host: hookio.HostClaude, title: "Claude Code", marker: ".claude", binary: "claude",
		project: filepath.Join(".claude", "settings.json"), regs: registrations,
		timeout: hookTimeout, unit: time.Second, defaultTimeout: defaultHookTimeout,
	},
	{
		// Codex (0.169) lets SessionStart and UserPromptSubmit hooks add
		// context (additionalContext), and has SubagentStop; it has no
		// StructuredOutput tool to gate. An entry with no timeout gets
		// 600 s (its hooks engine: timeout_sec.unwrap_or(600)).
		host: hookio.HostCodex, title: "Codex CLI", marker: ".codex", binary: "codex",
		project: filepath.Join(".codex", "hooks.json"),
		regs: []hookReg{
			{"Stop", "", "stop-hook", ""},
			{"SubagentStop", "", "stop-hook", ""},
			{"SessionStart", "", "stop-hook", criteriaFlag},
			{"UserPromptSubmit", "", "stop-hook", criteriaFlag},
		},
		timeout: hookTimeout, unit: time.Second, defaultTimeout: 600 * time.Second,
	},
	{
		// Qwen Code reads Claude Code's hook shape. Its command hooks'
		// timeouts were milliseconds until QwenLM/qwen-code#11615 (by
		// release dates, up to 0.23.1) and are seconds since (0.24.4,
		// measured), where a value of 1000 or more is still read as
		// milliseconds: 600000 is 600 s to both, where
		// 600 was 0.6 s to the older ones. Its PostToolUse of
		// run_shell_command tells a passing run, which stands for the
		// check's (see gate's recordAgentRun).
		host: hookio.HostQwen, title: "Qwen Code", marker: ".qwen", binary: "qwen",
		project: filepath.Join(".qwen", "settings.json"),
		regs: []hookReg{
			{"Stop", "", "stop-hook", ""},
			{"SubagentStop", "", "stop-hook", ""},
			{"PostToolUse", hookio.HostQwen.ShellTool(), "posttooluse-hook", ""},
			{"SessionStart", "", "stop-hook", criteriaFlag},
			{"UserPromptSubmit", "", "stop-hook", criteriaFlag},
		},
		timeout: hookTimeout * 1000, unit: time.Second, millisFrom: 1000,
	},
	{
		// Gemini CLI: AfterAgent ends a turn (no subagent event);
		// BeforeAgent (each prompt) and SessionStart can add context.
		// Timeouts are in milliseconds, 60 s when an entry has none.
		host: hookio.HostGemini, title: "Gemini CLI", marker: ".gemini", binary: "gemini",
		project: filepath.Join(".gemini", "settings.json"),
		regs: []hookReg{
			{"AfterAgent", "", "stop-hook", ""},
			{"SessionStart", "", "stop-hook", criteriaFlag},
			{"BeforeAgent", "", "stop-hook", criteriaFlag},
		},
		timeout: hookTimeout * 1000, unit: time.Millisecond, defaultTimeout: 60 * time.Second,
	},
	{
		// Copilot CLI: its own flat shape, timeoutSec in seconds, in a
		// file of donegate's own among .github/hooks/*.json.
		host: hookio.HostCopilot, title: "Copilot CLI", marker: filepath.Join(".github", "hooks"), binary: "copilot",
		project: filepath.Join(".github", "hooks", "donegate.json"),
		regs: []hookReg{
			{"agentStop", "", "stop-hook", ""},
			{"subagentStop", "", "stop-hook", ""},
		},
		copilot: true, timeout: hookTimeout, unit: time.Second,
	},
	{
		// OpenCode: no hooks that can hold an agent; donegate's plugin
		// runs stop-hook at the end of each turn (opencode.go).
		host: hookio.HostOpenCode, title: "OpenCode", marker: ".opencode", binary: "opencode",
		project: filepath.Join(".opencode", "plugin", "donegate.js"), plugin: true,
	},
}

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

// userFile is the user-level hook file of s (init --user): Claude Code's
// settings ($CLAUDE_CONFIG_DIR's), $CODEX_HOME/hooks.json (~/.codex),
// ~/.qwen/settings.json, ~/.gemini/settings.json, or
// ~/.copilot/hooks/donegate.json. "" when HOME is unknown.
func (r *runCtx) userFile(s hostSetup) string {
	if s.host == hookio.HostClaude {
		dir := r.claudeDir("")
		if !filepath.IsAbs(dir) {
			return ""
		}
		return filepath.Join(dir, "settings.json")
	}
	if s.host == hookio.HostCodex {
		if dir := r.codexHome(); dir != "" {
			return filepath.Join(dir, "hooks.json")
		}
		return ""
	}
	home := r.home()
	if !filepath.IsAbs(home) {
		return ""
	}
	switch s.host {
	case hookio.HostQwen:
		return filepath.Join(home, ".qwen", "settings.json")
	case hookio.HostGemini:
		return filepath.Join(home, ".gemini", "settings.json")
	}
	return filepath.Join(home, ".copilot", "hooks", "donegate.json")
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
			whyProject = append(whyProject, s.marker+"/")
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
	return hostList{hookio.HostClaude}, "none of " + markerList() + " in the project, and no host CLI on PATH: the default"
}

func markerList() string {
	var m []string
	for _, s := range hostSetups {
		m = append(m, s.marker+"/")
	}
	return strings.Join(m, ", ")
}
