package closer

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/donegate/donegate/internal/cli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The hook files init writes, as each host's test starts from them.
const (
	codexHooks = `{"hooks": {
  "Stop": [{"hooks": [{"type": "command", "command": "stop-hook", "timeout": 600}]}],
  "SubagentStop": [{"hooks": [{"type": "command", "command": "stop-hook", "timeout": 600}]}],
  "PreToolUse": [{"matcher": "Bash|apply_patch", "hooks": [{"type": "command", "command": "posttooluse-hook", "timeout": 600}]}],
  "SessionStart": [{"hooks": [{"type": "command", "command": "stop-hook --criteria", "timeout": 600}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "stop-hook --criteria", "timeout": 600}]}]
}}`
	geminiSettings = `{"hooks": {
  "AfterAgent": [{"hooks": [{"type": "command", "command": "stop-hook", "timeout": 600000}]}],
  "BeforeAgent": [{"hooks": [{"type": "command", "command": "stop-hook --criteria", "timeout": 600000}]}]
}}`
	qwenSettings = `{"hooks": {
  "Stop": [{"hooks": [{"type": "command", "command": "stop-hook", "timeout": 600000}]}]
}}`
	copilotHooks = `{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "stop-hook", "powershell": "stop-hook", "timeoutSec": 600}]}}`
)

// recordedCodexHashes are the hashes Codex 0.169.0 gives init's hooks
// (testdata/codex/hooks-list.json: `codex app-server`'s hooks/list on
// a project init set up), by event label.
func recordedCodexHashes(t *testing.T) map[string]string {
	t.Helper()
	var list struct {
		Data []struct {
			Hooks []struct {
				Key, Command, CurrentHash string
				TimeoutSec                int
			}
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "codex", "hooks-list.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &list))
	out := map[string]string{}
	for _, h := range list.Data[0].Hooks {
		parts := strings.Split(h.Key, ":")
		out[parts[len(parts)-3]] = h.CurrentHash
	}
	require.Len(t, out, 4)
	return out
}

// TestCodexHookHashIsCodexs: donegate's reckoning of the trust hash is
// the one the real Codex 0.169.0 reported for the same hooks.
func TestCodexHookHashIsCodexs(t *testing.T) {
	for label, want := range recordedCodexHashes(t) {
		event := map[string]string{"stop": "Stop", "subagent_stop": "SubagentStop", "session_start": "SessionStart", "user_prompt_submit": "UserPromptSubmit"}[label]
		command := "stop-hook"
		if strings.HasPrefix(event, "Session") || strings.HasPrefix(event, "User") {
			command += " --criteria"
		}
		reg := registration{event: event, command: command, timeout: 600 * time.Second, timeoutSet: true}
		assert.Equal(t, want, codexHookHash(reg), label)
		assert.Equal(t, label, codexEventLabel(event))
	}
}

// trustedCodexConfig is a config.toml that trusts the project and every
// hook of codexHooks in it, and turns the plan tool on.
func trustedCodexConfig(t *testing.T, proj string) string {
	hashes := recordedCodexHashes(t)
	var b strings.Builder
	b.WriteString("model = \"gpt-5\"\n\n[tools.update_plan]\nenabled = true\n\n[projects." + strconv.Quote(proj) + "]\ntrust_level = \"trusted\"\n")
	// The guard's entry came after the recording: its hash is donegate's
	// own reckoning, which e2e TestCodexLoadsWhatInitWrites checks
	// against the real Codex.
	hashes["pre_tool_use"] = codexHookHash(registration{event: "PreToolUse", matcher: "Bash|apply_patch", command: "posttooluse-hook", timeout: 600 * time.Second, timeoutSet: true})
	for _, label := range []string{"stop", "subagent_stop", "pre_tool_use", "session_start", "user_prompt_submit"} {
		b.WriteString("\n[hooks.state." + strconv.Quote(filepath.Join(proj, ".codex", "hooks.json")+":"+label+":0:0") + "]\ntrusted_hash = \"" + hashes[label] + "\"\n")
	}
	return b.String()
}

// TestDoctorHosts: doctor checks each host the project or the user set
// up, and says what is wrong with each broken setup.
func TestDoctorHosts(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, s *doctorSetup)
		want  []string // lines (regular expressions, DIR for the project)
		never []string
		code  int
	}{
		{
			name: "codex trusted, plan tool on",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), codexHooks)
				s.write(t, filepath.Join(s.home, ".codex", "config.toml"), trustedCodexConfig(t, s.proj))
			},
			want: []string{
				`^✓ codex: stop-hook at Stop in Codex CLI project settings DIR/\.codex/hooks\.json$`,
				`^✓ codex: stop-hook --criteria at SessionStart in Codex CLI project settings DIR/\.codex/hooks\.json$`,
				`^✓ codex: stop-hook at Stop in DIR/\.codex/hooks\.json is trusted in Codex$`,
				`^✓ codex: stop-hook --criteria at UserPromptSubmit in DIR/\.codex/hooks\.json is trusted in Codex$`,
				`^✓ codex: Codex's plan tool \(update_plan\) is on$`,
			},
			never: []string{`^[✗!?] codex`},
		},
		{
			name: "codex untrusted, project untrusted, plan tool off",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), codexHooks)
			},
			want: []string{
				`^! codex: stop-hook at Stop in DIR/\.codex/hooks\.json is not trusted: Codex skips it without a word until you review it \(no trusted_hash for "DIR/\.codex/hooks\.json:stop:0:0" in .*/home/\.codex/config\.toml\)$`,
				`^! codex: DIR is not a trusted project in .*: Codex ignores its \.codex/`,
				`^! codex: Codex's plan tool is off`,
			},
		},
		{
			name: "codex hook changed since it was trusted",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), strings.Replace(codexHooks, `"stop-hook", "timeout": 600}]}],
  "SubagentStop"`, `"stop-hook --config x.json", "timeout": 600}]}],
  "SubagentStop"`, 1))
				s.write(t, filepath.Join(s.proj, "x.json"), `{}`) // the config the changed hook names
				s.write(t, filepath.Join(s.home, ".codex", "config.toml"), trustedCodexConfig(t, s.proj))
			},
			want: []string{`^! codex: stop-hook --config x\.json at Stop in DIR/\.codex/hooks\.json: its trusted_hash in .* is not the hash donegate reckons Codex gives it now \(sha256:[0-9a-f]{64}\): the hook changed since you trusted it`},
		},
		{
			name: "codex hook disabled, hooks off",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), codexHooks)
				s.write(t, filepath.Join(s.home, ".codex", "config.toml"), "[features]\nhooks = false\n\n[hooks.state."+strconv.Quote(filepath.Join(s.proj, ".codex", "hooks.json")+":stop:0:0")+"]\nenabled = false\n")
			},
			want: []string{
				`^✗ codex: .*/config\.toml sets \[features\] hooks = false: Codex runs no hooks`,
				`^✗ codex: stop-hook at Stop in DIR/\.codex/hooks\.json is disabled`,
			},
			code: ExitIncomplete,
		},
		{
			name: "codex without Stop",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "stop-hook --criteria"}]}]}}`)
			},
			want: []string{`^✗ codex: stop-hook is not registered at Stop in any file Codex CLI reads \(.*/home/\.codex/hooks\.json, .*/home/\.codex/config\.toml, DIR/\.codex/hooks\.json, DIR/\.codex/config\.toml\): donegate does not hold the agent there$`},
			code: ExitIncomplete,
		},
		{
			name: "codex hooks in config.toml",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.home, ".codex", "config.toml"), "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"stop-hook\"\ntimeout = 30\n\n[hooks.state.\"other:stop:0:0\"]\nenabled = true\n")
			},
			want: []string{`^✗ codex: stop-hook at Stop in Codex CLI user config .*/home/\.codex/config\.toml: its timeout \(30s\) is not above limits\.budget \(9m0s\)`},
			code: ExitIncomplete,
		},
		{
			name: "codex config.toml that is not TOML",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), codexHooks)
				s.write(t, filepath.Join(s.home, ".codex", "config.toml"), "[tools\nx = \n")
			},
			want: []string{`^✗ codex: .*/home/\.codex/config\.toml cannot be read: `, `^✗ codex: .*/home/\.codex/config\.toml: toml: `},
			code: ExitIncomplete,
		},
		{
			name: "qwen with a criteria hook at Stop, todo tool on",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".qwen", "settings.json"), `{"tools": {"todoWrite": {"enabled": true}}, "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook --criteria", "timeout": 600}]}]}}`)
			},
			want: []string{
				`^✗ codex|^✗ qwen: stop-hook --criteria at Stop in Qwen Code project settings DIR/\.qwen/settings\.json: stop-hook --criteria answers only SessionStart and UserPromptSubmit, so it checks nothing here$`,
				`^✗ qwen: stop-hook is not registered at Stop`,
				`^✓ qwen: Qwen Code's todo tool \(todo_write\) is on$`,
			},
			code: ExitIncomplete,
		},
		{
			name: "qwen todo tool off",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".qwen", "settings.json"), qwenSettings)
				s.write(t, filepath.Join(s.home, ".qwen", "settings.json"), `{"tools": {"todoWrite": {"enabled": true}}}`)
				s.write(t, filepath.Join(s.proj, ".qwen", "settings.json"), strings.Replace(qwenSettings, `{"hooks"`, `{"tools": {"todoWrite": {"enabled": false}}, "hooks"`, 1))
			},
			want: []string{`^✓ qwen: stop-hook at Stop in Qwen Code project settings`, `^! qwen: Qwen Code's todo tool is off`,
				// An init before the guard: doctor says what it leaves open.
				`^! qwen: posttooluse-hook is not registered at PreToolUse of run_shell_command, write_file and edit: the agent's calls that would loosen its own gate`,
				`^    fix: register posttooluse-hook at PreToolUse with the matcher "run_shell_command\|write_file\|edit" \(closer init --host qwen does\)$`},
		},
		{
			name: "qwen with the guard",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".qwen", "settings.json"), strings.Replace(qwenSettings, `"Stop"`, `"PreToolUse": [{"matcher": "run_shell_command|write_file|edit", "hooks": [{"type": "command", "command": "posttooluse-hook", "timeout": 600000}]}], "Stop"`, 1))
			},
			want:  []string{`^✓ qwen: posttooluse-hook at PreToolUse \(matcher "run_shell_command\|write_file\|edit"\) in Qwen Code project settings`},
			never: []string{`PreToolUse of run_shell_command`},
		},
		{
			// Qwen Code up to 0.23.1 read 600 as 600 ms; 600000 is 600 s to
			// every version.
			name: "qwen timeout in seconds",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".qwen", "settings.json"), strings.ReplaceAll(qwenSettings, "600000", "600"))
			},
			want: []string{
				`^! qwen: stop-hook at Stop in Qwen Code project settings DIR/\.qwen/settings\.json: its timeout \(600\) is 10m0s to Qwen Code 0\.23\.3 and later but 600 ms to earlier versions`,
				`^    fix: write the timeout in milliseconds, which every version reads: "timeout": 600000$`,
				`^✓ qwen: stop-hook at Stop in Qwen Code project settings`,
			},
		},
		{
			name: "gemini timeout in seconds, untrusted folder",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".gemini", "settings.json"), strings.ReplaceAll(geminiSettings, "600000", "600"))
				s.write(t, filepath.Join(s.home, ".gemini", "trustedFolders.json"), `{"`+jsonText(s.proj)+`": "DO_NOT_TRUST"}`)
			},
			want: []string{
				`^✗ gemini: stop-hook at AfterAgent in Gemini CLI project settings DIR/\.gemini/settings\.json: its timeout \(600ms\) is not above limits\.budget \(9m0s\)`,
				`fix: raise the entry's "timeout" above 540000 \(milliseconds\), or lower limits\.budget below 600ms`,
				`^✗ gemini: DIR is marked DO_NOT_TRUST`,
			},
			code: ExitIncomplete,
		},
		{
			name: "gemini without a timeout, trusted by its parent",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".gemini", "settings.json"), `{"hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "stop-hook"}]}]}}`)
				s.write(t, filepath.Join(s.home, ".gemini", "trustedFolders.json"), `{"`+jsonText(filepath.Dir(s.proj))+`": "TRUST_FOLDER"}`)
			},
			want: []string{
				`^✗ gemini: stop-hook at AfterAgent in .*: its timeout \(1m0s\) is not above limits\.budget`,
				`^✓ gemini: DIR is a trusted folder`,
			},
			code: ExitIncomplete,
		},
		{
			name: "gemini trust unknown",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".gemini", "settings.json"), geminiSettings)
			},
			want: []string{`^✓ gemini: stop-hook at AfterAgent`, `^\? gemini: Gemini CLI runs the project's hooks only in a trusted folder`},
		},
		{
			name: "the Codex plugin, installed and trusted",
			setup: func(t *testing.T, s *doctorSetup) {
				root := filepath.Join(s.home, ".codex", "plugins", "cache", "dglocal", "donegate", "1.2.3")
				buildHostPlugin(t, "codex", root)
				// As Codex records it when the plugin's Stop hook is
				// trusted: the hook's hash, then one of the plugin's
				// (Codex 0.171.0's hooks/list for this plugin, built
				// --no-binaries and added with codex plugin add).
				s.write(t, filepath.Join(s.home, ".codex", "config.toml"), `[plugins."donegate@dglocal"]
enabled = true

[tools.update_plan]
enabled = true

[hooks.state."donegate@dglocal:hooks/hooks.json:stop:0:0"]
trusted_hash = "sha256:466b27a73609f4ec726bf08e29a808d4120ca22823b44cb957aaceda7eef1adc/sha256:b6a4fd463502811194a3379f89302235cd7b939147bafc8ebf8f18b091fc3fec"
`)
			},
			want: []string{
				`^✓ codex: stop-hook at Stop in Codex CLI plugin donegate@dglocal \(.*/1\.2\.3\)$`,
				`^✓ codex: stop-hook at Stop in .*/1\.2\.3/hooks/hooks\.json is trusted in Codex \(the hook as it is; whether the plugin changed since, only /hooks tells\)$`,
				`^! codex: stop-hook at SubagentStop in .*/1\.2\.3/hooks/hooks\.json is not trusted: .*\(no trusted_hash for "donegate@dglocal:hooks/hooks\.json:subagent_stop:0:0"`,
				`^✓ binaries: .*/bin/stop-hook, version`,
			},
			never: []string{`^✗`},
		},
		{
			name: "the Codex plugin enabled but not installed",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), codexHooks)
				s.write(t, filepath.Join(s.home, ".codex", "config.toml"), "[plugins.\"donegate@gone\"]\nenabled = true\n")
			},
			want: []string{`^! codex: Codex plugin donegate@gone is enabled in .* but not installed under .*/plugins/cache/gone/donegate$`},
		},
		{
			name: "the Gemini extension",
			setup: func(t *testing.T, s *doctorSetup) {
				buildHostPlugin(t, "gemini", filepath.Join(s.home, ".gemini", "extensions", "donegate"))
			},
			want: []string{
				`^✓ gemini: stop-hook at AfterAgent in Gemini CLI extension donegate \(.*/\.gemini/extensions/donegate\)$`,
				`^✓ gemini: stop-hook --criteria at BeforeAgent in Gemini CLI extension donegate`,
			},
			never: []string{`^[✗?] gemini`},
		},
		{
			name: "a .gemini dir without donegate's hooks",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".gemini", "settings.json"), `{"theme": "dark"}`)
			},
			want: []string{`^! gemini: the project has \.gemini/, but no file Gemini CLI reads registers donegate \(.*\): donegate does not hold Gemini CLI's agents here$`, `fix: run closer init --host gemini`},
		},
		{
			name: "copilot without timeoutSec",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".github", "hooks", "donegate.json"), `{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "stop-hook", "powershell": "stop-hook"}]}}`)
			},
			want: []string{
				`^! copilot: stop-hook at agentStop in Copilot CLI project hooks DIR/\.github/hooks/donegate\.json: no timeout: Copilot CLI's default applies`,
				`^\? copilot: Copilot CLI runs the repository's hooks`,
			},
		},
		{
			name: "copilot file that is not JSON, and a good one beside it",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".github", "hooks", "a.json"), `{"version": 1,`)
				s.write(t, filepath.Join(s.proj, ".github", "hooks", "donegate.json"), copilotHooks)
				s.vars["COPILOT_ALLOW_ALL"] = "true"
			},
			want: []string{`^✗ copilot: Copilot CLI project hooks DIR/\.github/hooks/a\.json cannot be read: `, `^✓ copilot: stop-hook at agentStop`, `^✓ copilot: COPILOT_ALLOW_ALL=true`},
			code: ExitIncomplete,
		},
		{
			name: "copilot stop-hook registered twice",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".github", "hooks", "donegate.json"), copilotHooks)
				s.write(t, filepath.Join(s.home, ".copilot", "hooks", "mine.json"), strings.NewReplacer(
					`"bash": "stop-hook"`, `"bash": "`+jsonText(cli.ShellQuote(fakeExe(filepath.Join(s.bin, "stop-hook"))))+`"`,
					`"powershell": "stop-hook"`, `"powershell": "& `+jsonText(cli.ShellQuote(fakeExe(filepath.Join(s.bin, "stop-hook"))))+`"`).Replace(copilotHooks))
			},
			want: []string{`^! copilot: stop-hook at agentStop is registered 2 times \(Copilot CLI user hooks .*; Copilot CLI project hooks DIR/\.github/hooks/donegate\.json\)`},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newDoctorSetup(t)
			tt.setup(t, s)
			code, out, errOut := s.run(t)
			assert.Equal(t, tt.code, code, out+errOut)
			text := strings.ReplaceAll(out, filepath.ToSlash(s.proj), "DIR")
			for _, w := range tt.want {
				assert.Regexp(t, regexp.MustCompile("(?m)"+w), text)
			}
			for _, n := range tt.never {
				assert.NotRegexp(t, regexp.MustCompile("(?m)"+n), text)
			}
		})
	}
}

// TestDoctorOtherHostOnly: in a project set up for Codex alone, doctor
// says nothing of Claude Code: neither that its hooks are missing nor
// whether it is installed — with Claude Code on PATH too (issue 29), as a
// person who uses it in other projects has it.
func TestDoctorOtherHostOnly(t *testing.T) {
	for _, installed := range []bool{false, true} {
		s := newDoctorSetup(t)
		require.NoError(t, os.RemoveAll(filepath.Join(s.proj, ".claude")))
		s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), codexHooks)
		s.write(t, filepath.Join(s.home, ".codex", "config.toml"), trustedCodexConfig(t, s.proj))
		if !installed {
			s.claude = filepath.Join(t.TempDir(), "no-claude")
		}
		code, out, _ := s.run(t)
		assert.Equal(t, ExitComplete, code, out)
		assert.NotContains(t, out, "settings:")
		assert.NotContains(t, out, "claude:")
		assert.Contains(t, out, "✓ binaries: "+filepath.ToSlash(filepath.Join(s.bin, "stop-hook")))
		assert.Contains(t, out, "No problems found.")
	}
}

// TestDoctorGeminiOnlyPlanConfig: in a project set up for Gemini CLI
// alone (as closer init --host gemini leaves one without tests: the plan
// checker only), doctor does not warn that the plan holds nothing for
// want of Claude Code's CLAUDE_CODE_ENABLE_TODO_TOOLS: Gemini's models
// have write_todos (the e2e TestGeminiSetUpByCloserInit is held by it).
func TestDoctorGeminiOnlyPlanConfig(t *testing.T) {
	s := newDoctorSetup(t)
	require.NoError(t, os.RemoveAll(filepath.Join(s.proj, ".claude")))
	s.write(t, filepath.Join(s.proj, ".gemini", "settings.json"), geminiSettings)
	s.write(t, filepath.Join(s.proj, ".donegate.json"), `{"checkers": [{"type": "plan"}]}`)
	s.claude = filepath.Join(t.TempDir(), "no-claude")
	code, out, _ := s.run(t)
	assert.Equal(t, ExitComplete, code, out)
	assert.Contains(t, out, "✓ gemini: stop-hook at AfterAgent")
	assert.NotContains(t, out, "CLAUDE_CODE_ENABLE_TODO_TOOLS")
}

func TestTOMLNesting(t *testing.T) {
	for _, tt := range []struct {
		text string
		want int
	}{
		{"a = 1\n", 0},
		{"[tools.update_plan]\nenabled = true\n", 2},
		{"[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ncommand = \"x\"\n", 4},
		{"a.b.c = 1\nd = {e.f = 2}\n", 2},
		{"[\"a.b\".c]\nx = \"1.5.6\"\ny = 1.5\n", 2},
		{"a = [[1, 2], {b = [3]}]\n", 3},
		{"a = \"]]]]{{{{\" # [[[[\nb = [1]\n", 1},
		{"a = '''\n[[[[\n'''\nb = {c = {d = 1}}\n", 2},
		{"a = \"\\\"[[[\"\nb = [[[1]]]\n", 3},
		{"a = \"}}}}}}}}\"\nb = " + strings.Repeat("{c = ", 100), maxTOMLNesting + 1},
		// An escaped quote does not end a multi-line string: the brackets
		// after the string count (issue 29: they passed as a string).
		{"a = \"\"\"x\\\"\"\"y\"\"\"\nb = " + strings.Repeat("[", 100), maxTOMLNesting + 1},
		{"a = '''x''''\nb = [[1]]\n", 2},
		// Dotted names nest a table per segment (200 KB of them exhausted
		// 6 GiB in the decoder).
		{"[" + strings.Repeat("a.", 100) + "a]\n", maxTOMLNesting + 1},
		{strings.Repeat("a.", 100) + "a = 1\n", maxTOMLNesting + 1},
		{"x = {" + strings.Repeat("a.", 100) + "a = 1}\n", maxTOMLNesting + 1},
	} {
		assert.Equal(t, tt.want, tomlNesting([]byte(tt.text)), "%q", tt.text)
	}
}

// TestDoctorRefusesADeeplyNestedConfigTOML: a project's .codex/config.toml
// nested 200,000 levels deep (1 MB) made the TOML parser run for minutes
// (its time grows with the square of the nesting); doctor refuses it as
// a finding and goes on.
func TestDoctorRefusesADeeplyNestedConfigTOML(t *testing.T) {
	s := newDoctorSetup(t)
	s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), codexHooks)
	s.write(t, filepath.Join(s.proj, ".codex", "config.toml"), "a = "+strings.Repeat("{b = ", 200000))
	code, out, _ := s.run(t)
	assert.Equal(t, ExitIncomplete, code)
	assert.Contains(t, out, "✗ codex: Codex CLI project config "+filepath.ToSlash(filepath.Join(s.proj, ".codex", "config.toml"))+" cannot be read: tables, arrays or inline tables nested 65 levels deep or more, over the 64 doctor reads")
	assert.Contains(t, out, "✓ codex: stop-hook at Stop in Codex CLI project settings")

	// Issue 29: a 200 KB dotted header exhausted 6 GiB in the decoder,
	// and an escaped quote in a multi-line string hid the brackets after
	// it from the count.
	for _, config := range []string{
		"[" + strings.Repeat("a.", 100000) + "a]\n",
		"a = \"\"\"x\\\"\"\"y\"\"\"\nb = " + strings.Repeat("{c = ", 200000),
	} {
		s.write(t, filepath.Join(s.proj, ".codex", "config.toml"), config)
		code, out, _ = s.run(t)
		assert.Equal(t, ExitIncomplete, code)
		assert.Contains(t, out, "cannot be read: tables, arrays or inline tables nested 65 levels deep or more, over the 64 doctor reads")
	}
}

// buildHostPlugin builds the Codex plugin or the Gemini extension into
// dir with scripts/build-plugin, as a release archive holds it (no
// binaries: its hooks run the ones on PATH).
func buildHostPlugin(t *testing.T, host, dir string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("scripts/build-plugin is a bash script: releases are built on Linux")
	}
	cmd := exec.Command(filepath.Join("..", "..", "scripts", "build-plugin"), "--host", host, "--no-binaries", dir, "1.2.3")
	// newDoctorSetup's PATH holds the fake hooks alone.
	cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
}

// TestDoctorCodexSandbox: doctor says whether Codex's sandbox keeps the
// agent's shell out of donegate's state dir: its mode from the user's
// config.toml, the project's winning, and under workspace-write the
// roots the agent may write (the project, /tmp and $TMPDIR unless
// excluded, writable_roots) against the state dir.
func TestDoctorCodexSandbox(t *testing.T) {
	// A path outside every root the sandbox lets the agent write: on
	// Windows, on the temporary dir's drive.
	outside := filepath.Join(string(filepath.Separator)+"var", "lib", "donegate-test-state")
	if runtime.GOOS == "windows" {
		outside = filepath.VolumeName(os.TempDir()) + outside
	}
	slash := func(p string) string { return regexp.QuoteMeta(filepath.ToSlash(p)) } // doctor's output as the tests read it (unixView)
	for _, tt := range []struct {
		name, user, project, state string
		want                       string
	}{
		{name: "not set", want: `^✓ codex: Codex's sandbox_mode is not set \(optional; each run's flags choose\): with sandbox_mode = "workspace-write" in .*/home/\.codex/config\.toml, the agent's shell cannot write donegate's state dir or the project's \.codex/$`},
		{name: "no sandbox", user: `sandbox_mode = "danger-full-access"`, want: `^✓ codex: Codex runs the agent's commands with no sandbox \(optional; sandbox_mode = "danger-full-access" in .*/home/\.codex/config\.toml\)`},
		{name: "read-only", user: `sandbox_mode = "read-only"`, want: `^✓ codex: Codex's sandbox is read-only`},
		{name: "workspace-write, the state dir elsewhere", user: `sandbox_mode = "workspace-write"`, state: outside,
			want: `^✓ codex: Codex's workspace-write sandbox \(.*/home/\.codex/config\.toml\) keeps the agent's shell out of donegate's state dir \(` + slash(outside) + `\)`},
		{name: "workspace-write, the state dir under TMPDIR", user: `sandbox_mode = "workspace-write"`, state: "TMPDIR",
			want: `^! codex: Codex's workspace-write sandbox \(.*\) lets the agent's shell write .*tmp-root.*, which holds donegate's state dir`},
		{name: "workspace-write, TMPDIR excluded", user: "sandbox_mode = \"workspace-write\"\n[sandbox_workspace_write]\nexclude_tmpdir_env_var = true\nexclude_slash_tmp = true", state: "TMPDIR",
			want: `^✓ codex: Codex's workspace-write sandbox`},
		{name: "workspace-write, a writable root holding it", user: "sandbox_mode = \"workspace-write\"\n[sandbox_workspace_write]\nwritable_roots = ['" + filepath.Dir(outside) + "']", state: outside,
			want: `^! codex: .* lets the agent's shell write ` + slash(filepath.Dir(outside))},
		{name: "the project's config wins", user: `sandbox_mode = "workspace-write"`, project: `sandbox_mode = "danger-full-access"`, state: outside,
			want: `^✓ codex: Codex runs the agent's commands with no sandbox \(optional; sandbox_mode = "danger-full-access" in DIR/\.codex/config\.toml\)`},
		{name: "an unknown mode", user: `sandbox_mode = "elsewhere"`, want: `^\? codex: Codex's sandbox_mode is "elsewhere"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newDoctorSetup(t)
			s.write(t, filepath.Join(s.proj, ".codex", "hooks.json"), codexHooks)
			s.write(t, filepath.Join(s.home, ".codex", "config.toml"), tt.user+"\n")
			if tt.project != "" {
				s.write(t, filepath.Join(s.proj, ".codex", "config.toml"), tt.project+"\n")
			}
			tmp := filepath.Join(s.home, "tmp-root")
			s.vars["TMPDIR"] = tmp
			switch tt.state {
			case "TMPDIR":
				s.vars["DONEGATE_STATE_DIR"] = filepath.Join(tmp, "state")
			case "":
			default:
				s.vars["DONEGATE_STATE_DIR"] = tt.state
			}
			_, out, _ := s.run(t)
			assert.Regexp(t, "(?m)"+strings.ReplaceAll(tt.want, "DIR", slash(s.proj)), out)
		})
	}
}
