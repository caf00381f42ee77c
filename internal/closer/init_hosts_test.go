package closer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// hostCases are the hook files init writes for each host but Claude
// Code, and where in them donegate's stop-hook is: a gjson path to the
// command and to its timeout, with the value the timeout must have.
var hostCases = []struct {
	host, file       string
	command, timeout string
	timeoutValue     int64
	events           []string // every event init registers, in the file's "hooks"
}{
	{"codex", ".codex/hooks.json", "hooks.Stop.0.hooks.0.command", "hooks.Stop.0.hooks.0.timeout", 600,
		[]string{"Stop", "SubagentStop", "PreToolUse", "SessionStart", "UserPromptSubmit"}},
	// Qwen Code reads 600000 as 600 s in every version (see hostSetups).
	{"qwen", ".qwen/settings.json", "hooks.Stop.0.hooks.0.command", "hooks.Stop.0.hooks.0.timeout", 600000,
		[]string{"Stop", "SubagentStop", "PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit"}},
	// Gemini's timeouts are in milliseconds.
	{"gemini", ".gemini/settings.json", "hooks.AfterAgent.0.hooks.0.command", "hooks.AfterAgent.0.hooks.0.timeout", 600000,
		[]string{"AfterAgent", "BeforeTool", "SessionStart", "BeforeAgent"}},
	{"copilot", ".github/hooks/donegate.json", "hooks.agentStop.0.bash", "hooks.agentStop.0.timeoutSec", 600,
		[]string{"agentStop", "subagentStop", "preToolUse"}},
}

// TestInitWritesEachHostsHookFile: init --host NAME in a fresh project
// writes the host's own hook file, in its shape and its timeout unit,
// and the host-neutral .donegate.json; a second run changes nothing.
func TestInitWritesEachHostsHookFile(t *testing.T) {
	for _, tt := range hostCases {
		t.Run(tt.host, func(t *testing.T) {
			dir := projectWith(t, map[string]string{"go.mod": "module x\n"})
			home := t.TempDir()
			code, out, errOut := initRun(t, home, "", "--dir", dir, "--host", tt.host)
			require.Equal(t, ExitComplete, code, errOut)
			data := mustRead(t, filepath.Join(dir, tt.file))
			assert.Equal(t, "stop-hook", gjson.GetBytes(data, tt.command).Str, "%s", data)
			assert.Equal(t, tt.timeoutValue, gjson.GetBytes(data, tt.timeout).Int(), "%s", data)
			var events []string
			gjson.GetBytes(data, "hooks").ForEach(func(k, _ gjson.Result) bool {
				events = append(events, k.Str)
				return true
			})
			assert.Equal(t, tt.events, events)
			if tt.host == "copilot" {
				assert.Equal(t, int64(1), gjson.GetBytes(data, "version").Int())
			}
			// Not Claude Code: the host-neutral config, and no .claude/.
			parseWritten(t, mustRead(t, filepath.Join(dir, ".donegate.json")))
			assert.NoDirExists(t, filepath.Join(dir, ".claude"))
			assert.Contains(t, out, "Created "+tt.file+".")

			before := snapshot(t, dir)
			code, out, errOut = initRun(t, home, "", "--dir", dir, "--host", tt.host)
			require.Equal(t, ExitComplete, code, errOut)
			assert.Equal(t, before, snapshot(t, dir), "a second run changes nothing")
			assert.Contains(t, out, "the donegate hooks are registered already")
		})
	}
}

// TestInitHostNotes: init tells each host's user what no file can do for
// them, and never writes Codex's trusted_hash.
func TestInitHostNotes(t *testing.T) {
	for _, tt := range []struct{ host, want string }{
		{"codex", "open /hooks in Codex and review donegate's hooks (init never writes Codex's trusted_hash"},
		{"codex", "`codex exec` reads a project's .codex/ only with --trust"},
		{"codex", "[tools.update_plan] enabled = true"},
		{"gemini", "Gemini CLI runs a project's hooks only in a trusted folder"},
		{"copilot", "COPILOT_ALLOW_ALL=true"},
		{"qwen", `"tools": {"todoWrite": {"enabled": true}}`},
	} {
		t.Run(tt.host, func(t *testing.T) {
			dir := projectWith(t, map[string]string{"README": "x\n"})
			home := t.TempDir()
			code, out, errOut := initRun(t, home, "", "--dir", dir, "--host", tt.host)
			require.Equal(t, ExitComplete, code, errOut)
			assert.Contains(t, out, tt.want)
			assert.NoFileExists(t, filepath.Join(home, ".codex", "config.toml"), "init writes nothing of Codex's trust")
		})
	}
}

// TestInitMergesIntoAHostsFile: an existing hook file keeps every other
// key, entry and byte (key order, escapes, CRLF), as Claude Code's
// settings do; the old file is backed up into donegate.bak/ beside it.
func TestInitMergesIntoAHostsFile(t *testing.T) {
	for _, tt := range []struct {
		host, file, content string
		keep                []string
		crlf                bool
	}{
		{host: "codex", file: ".codex/hooks.json",
			content: `{"description": "team hooks", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]}}`,
			keep:    []string{`"description": "team hooks"`, `{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]},`}},
		{host: "qwen", file: ".qwen/settings.json",
			content: "{\r\n  \"model\": {\"name\": \"qwen3-coder\"},\r\n  \"\\u00e9\": 1\r\n}\r\n",
			keep:    []string{"\"model\": {\"name\": \"qwen3-coder\"},\r\n  \"\\u00e9\": 1,\r\n  \"hooks\""}, crlf: true},
		{host: "gemini", file: ".gemini/settings.json",
			content: `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "hooks": {"AfterAgent": [{"hooks": [{"name": "lint", "type": "command", "command": "npm run lint", "timeout": 30000}]}]}}`,
			keep:    []string{`"security": {"auth": {"selectedType": "gemini-api-key"}}`, `{"name": "lint", "type": "command", "command": "npm run lint", "timeout": 30000}`}},
		{host: "copilot", file: ".github/hooks/donegate.json",
			content: `{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "echo hi"}]}}`,
			keep:    []string{`"version": 1,`, `"sessionStart": [{"type": "command", "bash": "echo hi"}]`}},
	} {
		t.Run(tt.host, func(t *testing.T) {
			dir := projectWith(t, map[string]string{tt.file: tt.content})
			code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--host", tt.host)
			require.Equal(t, ExitComplete, code, errOut)
			got := mustRead(t, filepath.Join(dir, tt.file))
			for _, k := range tt.keep {
				assert.Contains(t, string(got), k)
			}
			assert.Contains(t, string(got), "stop-hook")
			if tt.crlf {
				assert.Equal(t, bytes.Count(got, []byte("\n")), bytes.Count(got, []byte("\r\n")), "no bare line feed in %q", got)
			}
			backup := filepath.Join(filepath.Dir(tt.file), "donegate.bak", filepath.Base(tt.file))
			assert.Equal(t, tt.content, string(mustRead(t, filepath.Join(dir, backup))))
			assert.Contains(t, out, "Updated "+tt.file+" (the old one is in "+filepath.ToSlash(backup)+").")
		})
	}
}

// TestInitHostFilesNeverWriteThroughALink: the hostile files of
// TestInitNeverWritesThroughALink, at each host's paths: refused with
// exit 2, and nothing anywhere is written.
func TestInitHostFilesNeverWriteThroughALink(t *testing.T) {
	for _, tc := range hostCases {
		for _, tt := range []struct {
			name  string
			setup func(t *testing.T, dir, file, victim string)
			want  string
		}{
			{
				name: "the file a link to a file outside",
				setup: func(t *testing.T, dir, file, victim string) {
					require.NoError(t, os.WriteFile(victim, []byte("{}\n"), 0o600))
					linktest.Symlink(t, victim, file)
				},
				want: "outside DIR: init writes nothing outside the project",
			},
			{
				name: "a link at its backup",
				setup: func(t *testing.T, dir, file, victim string) {
					require.NoError(t, os.WriteFile(file, []byte("{}\n"), 0o644))
					require.NoError(t, os.MkdirAll(filepath.Join(filepath.Dir(file), "donegate.bak"), 0o755))
					linktest.Symlink(t, victim, backupPath(file))
				},
				want: "not a regular file (a symbolic link)",
			},
			{
				name: "its dir a link to a dir outside",
				setup: func(t *testing.T, dir, file, victim string) {
					require.NoError(t, os.Remove(filepath.Dir(file)))
					linktest.Symlink(t, filepath.Dir(victim), filepath.Dir(file))
				},
				want: "outside",
			},
			{
				name: "a FIFO",
				setup: func(t *testing.T, dir, file, victim string) {
					fifotest.Make(t, file)
				},
				want: "not a regular file",
			},
			{
				name: "a dangling link",
				setup: func(t *testing.T, dir, file, victim string) {
					linktest.Symlink(t, filepath.Join(filepath.Dir(victim), "nothing"), file)
				},
				want: "which does not exist",
			},
		} {
			t.Run(tc.host+"/"+tt.name, func(t *testing.T) {
				dir := t.TempDir()
				file := filepath.Join(dir, tc.file)
				require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
				victim := victimFile(t)
				tt.setup(t, dir, file, victim)
				victimBefore := lsnapshot(t, filepath.Dir(victim))
				before := lsnapshot(t, dir)
				code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--host", tc.host)
				assert.Equal(t, ExitUsage, code, out)
				assert.Contains(t, strings.ReplaceAll(errOut, dir, "DIR"), tt.want)
				assert.Equal(t, victimBefore, lsnapshot(t, filepath.Dir(victim)), "nothing outside is written")
				assert.Equal(t, before, lsnapshot(t, dir), "nothing inside is written")
			})
		}
	}
}

// TestInitHostNeverRegistersTwice: an entry the host already runs from
// its other file (the user's, or Codex's config.toml [hooks]) is not
// registered again: the host would run both, and each run spends
// limits.max_blocks.
func TestInitHostNeverRegistersTwice(t *testing.T) {
	for _, tt := range []struct {
		name, host, file string
		homeFiles        map[string]string
		absent           string // a gjson path init must not have written
		present          string // one it must have
		note             string
	}{
		{name: "codex user hooks.json", host: "codex", file: ".codex/hooks.json",
			homeFiles: map[string]string{".codex/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook", "timeout": 900}]}]}}`},
			absent:    "hooks.Stop", present: "hooks.SubagentStop", note: "stop-hook at Stop already run from Codex CLI user settings"},
		{name: "codex user config.toml", host: "codex", file: ".codex/hooks.json",
			homeFiles: map[string]string{".codex/config.toml": "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"/opt/bin/stop-hook\"\ntimeout = 900\n\n[hooks.state.\"x:stop:0:0\"]\nenabled = true\n"},
			absent:    "hooks.Stop", present: "hooks.SessionStart", note: "stop-hook at Stop already run from Codex CLI user config"},
		{name: "gemini user settings", host: "gemini", file: ".gemini/settings.json",
			homeFiles: map[string]string{".gemini/settings.json": `{"hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "stop-hook", "timeout": 900000}]}]}}`},
			absent:    "hooks.AfterAgent", present: "hooks.BeforeAgent", note: "stop-hook at AfterAgent already run from Gemini CLI user settings"},
		{name: "copilot user hooks", host: "copilot", file: ".github/hooks/donegate.json",
			homeFiles: map[string]string{".copilot/hooks/mine.json": `{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "stop-hook", "powershell": "stop-hook", "timeoutSec": 900}]}}`},
			absent:    "hooks.agentStop", present: "hooks.subagentStop", note: "stop-hook at agentStop already run from Copilot CLI user hooks"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectWith(t, map[string]string{"README": "x\n"})
			home := projectWith(t, tt.homeFiles)
			code, out, errOut := initRun(t, home, "", "--dir", dir, "--host", tt.host)
			require.Equal(t, ExitComplete, code, errOut)
			data := mustRead(t, filepath.Join(dir, tt.file))
			assert.False(t, gjson.GetBytes(data, tt.absent).Exists(), "%s", data)
			assert.True(t, gjson.GetBytes(data, tt.present).Exists(), "%s", data)
			assert.Contains(t, out, tt.note)
		})
	}
}

// TestInitDetectsHosts: without --host, the project's dirs decide, then
// the CLIs on PATH, then Claude Code; init says what it detected. The
// config is .claude/donegate.json with Claude Code, .donegate.json
// without, and an existing one is reused.
func TestInitDetectsHosts(t *testing.T) {
	for _, tt := range []struct {
		name     string
		files    map[string]string
		onPath   []string
		args     []string
		hosts    []string
		config   string
		detected string
	}{
		{name: "nothing: Claude Code", files: map[string]string{"README": "x"}, hosts: []string{"claude"}, config: ".claude/donegate.json", detected: "no host CLI on PATH: the default"},
		{name: "a .codex dir", files: map[string]string{".codex/config.toml": ""}, hosts: []string{"codex"}, config: ".donegate.json", detected: "the project has .codex/"},
		{name: "the project's dir wins over PATH", files: map[string]string{".gemini/x": ""}, onPath: []string{"codex", "claude"}, hosts: []string{"gemini"}, config: ".donegate.json"},
		{name: ".github without hooks is no Copilot", files: map[string]string{".github/workflows/ci.yml": ""}, onPath: []string{"copilot"}, hosts: []string{"copilot"}, config: ".donegate.json", detected: "copilot on PATH"},
		{name: "one CLI on PATH", files: map[string]string{"README": "x"}, onPath: []string{"qwen"}, hosts: []string{"qwen"}, config: ".donegate.json", detected: "qwen on PATH"},
		{name: "two project dirs", files: map[string]string{".claude/x": "", ".github/hooks/other.json": `{"version": 1, "hooks": {}}`}, hosts: []string{"claude", "copilot"}, config: ".claude/donegate.json", detected: "the project has .claude/ and .github/hooks/"},
		{name: "an existing .donegate.json is reused with Claude Code", files: map[string]string{".donegate.json": `{"checkers": [{"type": "plan"}]}`}, args: []string{"--host", "claude"}, hosts: []string{"claude"}, config: ".donegate.json"},
		{name: "an existing .claude/donegate.json is reused by Codex", files: map[string]string{".claude/donegate.json": `{"checkers": [{"type": "plan"}]}`}, args: []string{"--host", "codex"}, hosts: []string{"codex"}, config: ".claude/donegate.json"},
		{name: "a comma list and a repeat", files: map[string]string{"README": "x"}, args: []string{"--host", "codex,qwen", "--host", "codex"}, hosts: []string{"codex", "qwen"}, config: ".donegate.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectWith(t, tt.files)
			bin := t.TempDir()
			for _, b := range tt.onPath {
				writeExecutable(t, filepath.Join(bin, b), "")
			}
			args := append([]string{"--dir", dir, "--json"}, tt.args...)
			code, out, errOut := initRun(t, t.TempDir(), bin, args...)
			require.Equal(t, ExitComplete, code, errOut)
			var hosts []string
			for _, h := range gjson.Get(out, "hosts").Array() {
				hosts = append(hosts, h.Str)
			}
			assert.Equal(t, tt.hosts, hosts)
			assert.FileExists(t, filepath.Join(dir, tt.config))
			other := map[string]string{".donegate.json": ".claude/donegate.json", ".claude/donegate.json": ".donegate.json"}[tt.config]
			assert.NoFileExists(t, filepath.Join(dir, other), "one config only")
			assert.Contains(t, gjson.Get(out, "detected").Str, filepath.FromSlash(tt.detected))
		})
	}
}

func TestInitRefusesAnUnknownHost(t *testing.T) {
	code, _, errOut := initRun(t, t.TempDir(), "", "--dir", t.TempDir(), "--host", "codex,vim")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, `unknown host "vim" (init sets up: claude, codex, qwen, gemini, copilot, opencode, kilo, pi, droid, cline, qoder, amp)`)
}

// TestInitHostUser: --user writes the host's user-level file, never the
// project's: ~/.copilot/hooks/donegate.json, $CODEX_HOME/hooks.json.
func TestInitHostUser(t *testing.T) {
	dir := projectWith(t, map[string]string{"README": "x\n"})
	home := t.TempDir()
	code, _, errOut := initRun(t, home, "", "--dir", dir, "--host", "copilot,gemini,qwen,codex", "--user")
	require.Equal(t, ExitComplete, code, errOut)
	for _, f := range []string{".copilot/hooks/donegate.json", ".gemini/settings.json", ".qwen/settings.json", ".codex/hooks.json"} {
		assert.Contains(t, string(mustRead(t, filepath.Join(home, f))), "stop-hook", f)
	}
	for _, f := range []string{".github", ".gemini", ".qwen", ".codex"} {
		assert.NoDirExists(t, filepath.Join(dir, f))
	}
}

// TestInitHostDryRun: --dry-run prints each host file's diff and writes
// nothing.
func TestInitHostDryRun(t *testing.T) {
	dir := projectWith(t, map[string]string{".gemini/settings.json": "{\n  \"theme\": \"dark\"\n}\n"})
	before := snapshot(t, dir)
	code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--host", "gemini", "--dry-run")
	require.Equal(t, ExitComplete, code, errOut)
	assert.Contains(t, out, "--- a/.gemini/settings.json\n+++ b/.gemini/settings.json\n")
	assert.Contains(t, out, "-  \"theme\": \"dark\"\n+  \"theme\": \"dark\",\n+  \"hooks\": {\n")
	assert.Contains(t, out, "--- /dev/null\n+++ b/.donegate.json\n")
	assert.Equal(t, before, snapshot(t, dir))
}

// TestInitNeutralConfigNeverWritesThroughALink: --force on a
// .donegate.json that a repository made a link to a file outside it is
// refused, as for .claude/donegate.json, and the file outside is left
// as it was.
func TestInitNeutralConfigNeverWritesThroughALink(t *testing.T) {
	dir := projectWith(t, map[string]string{"README": "x\n"})
	victim := victimFile(t)
	require.NoError(t, os.WriteFile(victim, []byte(`{"checkers": [{"type": "plan"}]}`), 0o600))
	linktest.Symlink(t, victim, filepath.Join(dir, ".donegate.json"))
	before := lsnapshot(t, filepath.Dir(victim))
	code, _, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--host", "codex", "--force")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "init writes nothing outside the project")
	assert.Equal(t, before, lsnapshot(t, filepath.Dir(victim)))
	assert.NoDirExists(t, filepath.Join(dir, ".codex"), "nothing is written")
}

// On Windows Copilot CLI runs an entry's "powershell", not its "bash":
// init writes both there, the same command, a quoted path called with &.
func TestMergeCopilotWritesPowerShellOnWindows(t *testing.T) {
	regs := []hookReg{{"agentStop", "", "stop-hook", "", hookio.RoleStop}, {"sessionStart", "", "stop-hook", criteriaFlag, hookio.RoleCriteriaSession}}
	for _, tt := range []struct {
		name     string
		windows  bool
		commands map[string]string
		want     []string
		not      string
	}{
		{"Linux: bash alone", false, map[string]string{"stop-hook": "stop-hook"}, []string{`"bash": "stop-hook"`}, "powershell"},
		{"Windows: a name on PATH", true, map[string]string{"stop-hook": "stop-hook"},
			[]string{`"bash": "stop-hook"`, `"powershell": "stop-hook"`, `"powershell": "stop-hook --criteria"`}, ""},
		{"Windows: a quoted path", true, map[string]string{"stop-hook": `'C:\Program Files\donegate\stop-hook.exe'`},
			[]string{`"powershell": "& 'C:\\Program Files\\donegate\\stop-hook.exe'"`}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := mergeCopilot(nil, regs, 600, tt.commands, nil, tt.windows)
			require.NoError(t, err)
			for _, w := range tt.want {
				assert.Contains(t, string(out), w)
			}
			if tt.not != "" {
				assert.NotContains(t, string(out), tt.not)
			}
			var doc map[string]any
			require.NoError(t, json.Unmarshal(out, &doc), "%s", out)
		})
	}
}

// Doctor reads what Copilot runs: a Windows entry's powershell, as init
// writes it, names the same hook as its bash.
func TestFlatCommandIsWhatCopilotRuns(t *testing.T) {
	out, err := mergeCopilot(nil, []hookReg{{"agentStop", "", "stop-hook", "", hookio.RoleStop}}, 600, map[string]string{"stop-hook": `'C:\d\stop-hook.exe'`}, nil, true)
	require.NoError(t, err)
	var doc struct {
		Hooks map[string][]struct{ Bash, PowerShell string } `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(out, &doc))
	e := doc.Hooks["agentStop"][0]
	assert.Equal(t, e.Bash, flatCommand(e.Bash, e.PowerShell, true), "the same command in either shell")
	assert.Equal(t, "bash only", flatCommand("bash only", "", false))
	assert.Empty(t, flatCommand("bash only", "", true), "on Windows an entry without powershell runs nothing")
}

// A Copilot CLI entry set up on Linux (bash alone) runs nothing on
// Windows, where Copilot runs an entry's powershell: doctor says so
// there, and only there.
func TestDoctorCopilotBashOnlyOnWindows(t *testing.T) {
	assert.Equal(t, []string{"agentStop", "subagentStop"}, bashOnly([]byte(`{"version": 1, "hooks": {
		"subagentStop": [{"type": "command", "bash": "stop-hook"}],
		"agentStop": [{"type": "command", "bash": "/opt/bin/stop-hook"}],
		"sessionStart": [{"type": "command", "bash": "stop-hook --criteria", "powershell": "stop-hook --criteria"}],
		"userPromptSubmitted": [{"type": "command", "bash": "my-own-hook"}]}}`)))
	assert.Empty(t, bashOnly([]byte(`{"hooks": [`)), "a file that is not JSON is reported elsewhere")

	s := newDoctorSetup(t)
	s.write(t, filepath.Join(s.proj, ".github", "hooks", "donegate.json"), `{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "stop-hook", "timeoutSec": 600}]}}`)
	_, out, _ := s.run(t)
	const line = "✗ copilot: stop-hook at agentStop in Copilot CLI project hooks"
	if runtime.GOOS == "windows" {
		assert.Contains(t, out, line+" "+filepath.ToSlash(filepath.Join(s.proj, ".github", "hooks", "donegate.json"))+" has a bash command only: Copilot CLI runs an entry's powershell on Windows, so it runs nothing here")
		assert.Contains(t, out, "fix: run closer init --host copilot on this machine: it adds the powershell command")
	} else {
		assert.NotContains(t, out, "has a bash command only")
	}
}

// init's help names every host it sets up, and the file it writes for
// each, from the host table: OpenCode was missing from the hand-written
// list (issue 45).
func TestInitHelpNamesEveryHost(t *testing.T) {
	summary := strings.Join(strings.Fields(initCommand.summary), " ")
	assert.Contains(t, summary, "(--host "+hostNames()+";")
	for _, s := range hostSetups {
		assert.Contains(t, summary, filepath.ToSlash(s.project), s.host)
	}
	for _, l := range strings.Split(initCommand.summary, "\n") {
		assert.LessOrEqual(t, len(l), helpWidth, l)
	}
}
