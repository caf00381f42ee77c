package closer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/gate"
)

// doctorSetup is a machine for closer doctor: a HOME, a project, a PATH
// holding fake hook binaries, a fake claude and a state dir. As made by
// newDoctorSetup everything is right; each test breaks one thing.
type doctorSetup struct {
	home, proj, bin, state string
	claude                 string
	vars                   map[string]string
	// noConsent leaves the project as nobody allowed it; by default run
	// allows it first, as the person who set it up did.
	noConsent bool
}

const exampleSettings = `{"hooks": {
  "Stop":         [{"hooks": [{"type": "command", "command": "stop-hook", "timeout": 600}]}],
  "SubagentStop": [{"hooks": [{"type": "command", "command": "stop-hook", "timeout": 600}]}],
  "PreToolUse":   [{"matcher": "StructuredOutput|Bash|Write|Edit|MultiEdit|NotebookEdit", "hooks": [{"type": "command", "command": "posttooluse-hook", "timeout": 600}]}],
  "PostToolUse":  [{"matcher": "StructuredOutput", "hooks": [{"type": "command", "command": "posttooluse-hook", "timeout": 600}]}]
}}`

func newDoctorSetup(t *testing.T) *doctorSetup {
	t.Helper()
	root := binRoot(t)
	s := &doctorSetup{
		home: filepath.Join(root, "home"), proj: filepath.Join(root, "proj"),
		bin: filepath.Join(root, "bin"), state: filepath.Join(root, "state"),
	}
	for _, d := range []string{s.home, filepath.Join(s.proj, ".claude"), s.bin} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	s.fakeHook(t, filepath.Join(s.bin, "stop-hook"), "stop-hook "+Version())
	s.fakeHook(t, filepath.Join(s.bin, "posttooluse-hook"), "posttooluse-hook "+Version())
	s.claude = s.fakeHook(t, filepath.Join(root, "claude"), "2.1.330 (Claude Code)")
	s.write(t, filepath.Join(s.proj, ".claude", "settings.json"), exampleSettings)
	// A project with tests: the default chain holds the agent for them.
	s.write(t, filepath.Join(s.proj, "go.mod"), "module example.com/proj\n")
	// The PATH of the process: runProgram and the lookups read it.
	t.Setenv("PATH", s.bin)
	s.vars = map[string]string{"HOME": s.home, "DONEGATE_STATE_DIR": s.state}
	return s
}

// fakeHook writes an executable that prints out for --version, and
// returns its path (writeExecutable's).
func (s *doctorSetup) fakeHook(t *testing.T, path, out string) string {
	t.Helper()
	return writeExecutable(t, path, out)
}

func (s *doctorSetup) write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

// installPlugin installs the repository's plugin/ as Claude Code does from
// a marketplace (hooks and wrapper, no binaries) and enables it in the
// user settings.
func (s *doctorSetup) installPlugin(t *testing.T) string {
	t.Helper()
	root := filepath.Join(s.home, ".claude", "plugins", "cache", "donegate", "donegate", "0.1.0")
	for _, f := range []string{"hooks/hooks.json", "bin/donegate-hook", ".claude-plugin/plugin.json"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "plugin", f))
		require.NoError(t, err)
		s.write(t, filepath.Join(root, f), string(data))
	}
	installed, err := json.Marshal(map[string]any{"version": 2, "plugins": map[string]any{
		"donegate@donegate": []map[string]any{{"scope": "user", "installPath": root, "version": "0.1.0"}},
	}})
	require.NoError(t, err)
	s.write(t, filepath.Join(s.home, ".claude", "plugins", "installed_plugins.json"), string(installed))
	s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"enabledPlugins": {"donegate@donegate": true, "other@market": true}}`)
	return root
}

func (s *doctorSetup) run(t *testing.T, extra ...string) (int, string, string) {
	t.Helper()
	if !s.noConsent {
		// As closer allow would; a config that does not load, or a state
		// dir that cannot be written, stays unallowed, as it would.
		_, _ = gate.Allow(s.state, s.proj, config.Lookup{ProjectDir: s.proj, Env: s.vars["DONEGATE_CONFIG"]}, "test", time.Now())
	}
	var out, errOut bytes.Buffer
	args := append([]string{"doctor", "--dir", s.proj, "--claude", s.claude}, extra...)
	code := Main(context.Background(), args, &out, &errOut, testEnv(s.vars, false))
	return code, unixView(out.String(), args), unixView(errOut.String(), args)
}

func TestDoctor(t *testing.T) {
	settings := func(s *doctorSetup) string { return filepath.Join(s.proj, ".claude", "settings.json") }
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, s *doctorSetup)
		code  int
		want  []string // regular expressions, each matching a line of the output
		not   []string
	}{
		{
			name: "all good",
			code: ExitComplete,
			want: []string{
				`^✓ binaries: .*/bin/stop-hook, version `,
				`^✓ binaries: .*/bin/posttooluse-hook, version `,
				`^✓ settings: stop-hook at Stop in project settings .*/proj/\.claude/settings\.json$`,
				`^✓ settings: posttooluse-hook at PreToolUse \(matcher "StructuredOutput\|Bash\|Write\|Edit\|MultiEdit\|NotebookEdit"\) in project settings .*: the agent's shell and edit calls that would loosen its gate are refused before they run$`,
				`^✓ vscode: VS Code's agent \(GitHub Copilot\) runs the hooks of project settings .*/proj/\.claude/settings\.json too, ignoring matchers and "async": donegate answers its events in VS Code's own shape`,
				`^✓ config: embedded default \(no .*/proj/\.claude/donegate\.json nor .*/proj/\.donegate\.json\) is valid: dialect claude-code, limits\.budget 9m0s, limits\.max_blocks 5; its checkers, not run here \(closer check runs them\):$`,
				`^✓ config: checker 1: plan: every item of the agent's plan is completed$`,
				"^✓ config: checker 2: test: the project's own test command passes .*; here `go test \\./\\.\\.\\.`, from go\\.mod$",
				`^✓ state: state dir .*/state is writable$`,
				`^✓ claude: Claude Code 2\.1\.330$`,
				`^No problems found\.$`,
			},
			not: []string{`^[!✗]`},
		},
		{
			name: "posttooluse-hook at PostToolUse of StructuredOutput and Bash in one group, as init writes it",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), strings.Replace(exampleSettings, `"PostToolUse":  [{"matcher": "StructuredOutput",`,
					`"PostToolUse":  [{"matcher": "StructuredOutput|Bash",`, 1))
			},
			code: ExitComplete,
			want: []string{
				`^✓ settings: posttooluse-hook at PostToolUse \(matcher "StructuredOutput\|Bash"\) in project settings .*: the agent's own passing runs of a checked command stand for the check's run$`,
				`^No problems found\.$`,
			},
			not: []string{`^[!✗]`},
		},
		{
			name: "posttooluse-hook at PostToolUse of Bash too: the agent's own runs, no clash",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), strings.Replace(exampleSettings, `"PostToolUse":  [`,
					`"PostToolUse":  [{"matcher": "Bash", "hooks": [{"type": "command", "command": "posttooluse-hook", "timeout": 600}]}, `, 1))
			},
			code: ExitComplete,
			want: []string{
				`^✓ settings: posttooluse-hook at PostToolUse \(matcher "Bash"\) in project settings .*: the agent's own passing runs of a checked command stand for the check's run$`,
				`^✓ settings: posttooluse-hook at PostToolUse \(matcher "StructuredOutput"\) in project settings `,
				`^No problems found\.$`,
			},
			not: []string{`^[!✗]`},
		},
		{
			name: "stop-hook --start after the edits, in the background: the early start of the checks",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), strings.Replace(exampleSettings, `"PostToolUse":  [`,
					`"PostToolUse":  [{"matcher": "Write|Edit|MultiEdit|NotebookEdit", "hooks": [{"type": "command", "command": "stop-hook --start", "timeout": 600, "async": true}]}, `, 1))
			},
			code: ExitComplete,
			want: []string{
				`^✓ settings: stop-hook --start at PostToolUse \(matcher "Write\|Edit\|MultiEdit\|NotebookEdit"\) in project settings .*: the stop's checks start in the background after the agent's edits, so the stop finds their results$`,
				`^✓ settings: stop-hook at Stop in project settings `,
				`^No problems found\.$`,
			},
			not: []string{`^[!✗]`},
		},
		{
			name: "stop-hook --start where it starts nothing, or in the foreground; a stop-hook in the background",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), `{"hooks": {
				  "Stop": [{"hooks": [{"type": "command", "command": "stop-hook"}]}, {"hooks": [{"type": "command", "command": "stop-hook --start", "async": true}]}],
				  "SubagentStop": [{"hooks": [{"type": "command", "command": "stop-hook", "async": true}]}],
				  "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "stop-hook --start"}]}, {"matcher": "Bash", "hooks": [{"type": "command", "command": "stop-hook --start", "async": true}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{
				`^✗ settings: stop-hook --start at Stop in project settings .*: stop-hook --start answers only PostToolUse, so it starts nothing here$`,
				`^✗ settings: stop-hook at SubagentStop in project settings .*: Claude Code runs it in the background and ignores its answer, so it holds nothing$`,
				`^! settings: stop-hook --start at PostToolUse \(matcher "Write"\) in project settings .*: it runs in the foreground, so each edit waits for the checks it starts$`,
				`^    fix: add "async": true to the entry$`,
				`^! settings: stop-hook --start at PostToolUse \(matcher "Bash"\) in project settings .*: the matcher matches none of the edit tools \(Write, Edit, MultiEdit, NotebookEdit\), so it starts nothing$`,
			},
			not: []string{`registered 2 times`},
		},
		{
			name: "a binary not on PATH",
			setup: func(t *testing.T, s *doctorSetup) {
				require.NoError(t, os.Remove(fakeExe(filepath.Join(s.bin, "stop-hook"))))
			},
			code: ExitIncomplete,
			want: []string{`^✗ binaries: stop-hook is not on PATH$`, `^    fix: install the binaries: ` + regexp.QuoteMeta(installCommand(runtime.GOOS)), `^1 problem\(s\), 0 warning\(s\)\.`},
		},
		{
			name: "a project binary that is not executable",
			setup: func(t *testing.T, s *doctorSetup) {
				// A file a shell would not run: without the execute bit,
				// or on Windows without an extension Windows runs.
				s.write(t, filepath.Join(s.proj, "bin", "stop-hook"), "#!/bin/sh\n")
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/bin/stop-hook"}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ binaries: .*/proj/bin/stop-hook is not executable$`, `^    fix: (chmod \+x .*/proj/bin/stop-hook|name it .*/proj/bin/stop-hook\.exe \(Windows runs a file by its extension, one of PATHEXT's\))$`},
		},
		{
			name: "a project binary that does not exist",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PROJECT_DIR}/bin/stop-hook"}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ binaries: .*/proj/bin/stop-hook does not exist$`},
		},
		{
			name: "a binary of another version",
			setup: func(t *testing.T, s *doctorSetup) {
				s.fakeHook(t, filepath.Join(s.bin, "stop-hook"), "stop-hook 0.0.1")
			},
			code: ExitComplete,
			want: []string{`^! binaries: .*/bin/stop-hook is version 0\.0\.1, closer is ` + regexp.QuoteMeta(Version()) + `$`, `^No problems, 1 warning\(s\)\.$`},
		},
		{
			name: "a binary that is not donegate's",
			setup: func(t *testing.T, s *doctorSetup) {
				s.fakeHook(t, filepath.Join(s.bin, "stop-hook"), "usage: something else entirely")
			},
			code: ExitIncomplete,
			want: []string{`^✗ binaries: .*/bin/stop-hook --version printed "usage: something else entirely`},
		},
		{
			name:  "nothing registered",
			setup: func(t *testing.T, s *doctorSetup) { require.NoError(t, os.Remove(settings(s))) },
			// Maybe a --plugin-dir plugin, which no file records: unknown,
			// with how to check, and no fix that would double the hooks
			// (issue 20).
			code: ExitComplete,
			want: []string{"^\\? settings: not registered in any settings file or installed plugin: if you load donegate with `claude --plugin-dir DIR`, check with `claude --debug", `^✓ binaries: .*/bin/stop-hook, version `, `^No problems, 0 warning\(s\), 1 unknown`},
		},
		{
			name: "settings that are not JSON",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "settings.local.json"), `{"hooks": `)
			},
			code: ExitIncomplete,
			want: []string{`^✗ settings: local settings .*settings\.local\.json is not valid settings JSON: `},
		},
		{
			name: "every hook disabled",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"disableAllHooks": true}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ settings: user settings .*/home/\.claude/settings\.json sets "disableAllHooks": true: Claude Code runs no hooks`},
		},
		{
			name: "hooks disabled for the user, enabled again in the project",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"disableAllHooks": true}`)
				s.write(t, filepath.Join(s.proj, ".claude", "settings.local.json"), `{"disableAllHooks": false}`)
			},
			code: ExitComplete,
			not:  []string{`disableAllHooks`},
		},
		{
			name: "the StructuredOutput gate only at PostToolUse",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), `{"hooks": {
				  "Stop": [{"hooks": [{"type": "command", "command": "stop-hook"}]}],
				  "PostToolUse": [{"matcher": "StructuredOutput", "hooks": [{"type": "command", "command": "posttooluse-hook"}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ settings: the StructuredOutput gate is registered only at PostToolUse: Claude Code accepts the output`, `^    fix: register posttooluse-hook at PreToolUse too`},
		},
		{
			name: "a hook timeout below limits.budget",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook", "timeout": 60}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{
				`^✗ settings: stop-hook at Stop in project settings .*: its timeout \(1m0s\) is not above limits\.budget \(9m0s\): Claude Code kills the hook before donegate decides`,
				`^    fix: raise the entry's "timeout" above 540 \(seconds\), or lower limits\.budget below 1m0s$`,
			},
		},
		{
			name: "a budget above the default hook timeout",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), `{"limits": {"budget": "15m"}}`)
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook"}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ settings: stop-hook at Stop .*: its timeout \(10m0s\) is not above limits\.budget \(15m0s\)`},
		},
		{
			name: "--dialect sdk in a command",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook --dialect=sdk"}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ settings: stop-hook at Stop .*: --dialect sdk: Claude Code ignores the sdk answers`},
		},
		{
			name: "dialect sdk in the config",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), `{"dialect": "sdk"}`)
			},
			code: ExitIncomplete,
			want: []string{`^✓ config: .*/proj/\.claude/donegate\.json is valid: dialect sdk`, `^✗ config: "dialect": "sdk": Claude Code ignores the sdk answers`},
		},
		{
			name: "dialect sdk in the config, overridden by every command",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), `{"dialect": "sdk"}`)
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook --dialect claude-code"}]}]}}`)
			},
			code: ExitComplete,
			not:  []string{`^✗`},
		},
		{
			name: "dialect sdk in the config a command names",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, "sdk.json"), `{"dialect": "sdk"}`)
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook --config sdk.json"}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{
				`^✓ config: .*/proj/sdk\.json, named by --config in project settings .*, is valid: dialect sdk`,
				`^✗ settings: stop-hook at Stop .*: its config .*/proj/sdk\.json says "dialect": "sdk": Claude Code ignores`,
			},
		},
		{
			name: "an invalid config a command names",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook --config=$CLAUDE_PROJECT_DIR/missing.json"}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ config: .*/proj/missing\.json, named by --config in project settings .*, is invalid: `},
		},
		{
			name: "a budget in the config a command names",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, "long.json"), `{"limits": {"budget": "20m"}}`)
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook --config long.json", "timeout": 900}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ settings: stop-hook at Stop .*: its timeout \(15m0s\) is not above limits\.budget \(20m0s\)`},
		},
		{
			name: "stop-hook at an event it does not answer",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook"}]}],
				  "PreToolUse": [{"matcher": "StructuredOutput", "hooks": [{"type": "command", "command": "stop-hook"}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ settings: stop-hook at PreToolUse \(matcher "StructuredOutput"\) .*: the hook does not answer that event$`},
		},
		{
			name: "a gate whose matcher matches no gated tool",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook"}]}],
				  "PreToolUse": [{"matcher": "Glob|Grep", "hooks": [{"type": "command", "command": "posttooluse-hook"}]}]}}`)
			},
			code: ExitComplete,
			want: []string{`^! settings: posttooluse-hook at PreToolUse \(matcher "Glob\|Grep"\) .*: the matcher matches none of the gated tools \(StructuredOutput\)`,
				`^! settings: posttooluse-hook is not registered at PreToolUse of Bash, Write, Edit, MultiEdit and NotebookEdit: the agent's calls that would loosen its own gate`},
		},
		{
			name: "the plugin alone, binaries on PATH",
			setup: func(t *testing.T, s *doctorSetup) {
				s.installPlugin(t)
				require.NoError(t, os.Remove(settings(s)))
			},
			code: ExitComplete,
			want: []string{
				`^✓ settings: stop-hook at Stop in plugin donegate@donegate \(.*/plugins/cache/donegate/donegate/0\.1\.0\)$`,
				`^✓ settings: posttooluse-hook at PreToolUse \(matcher "StructuredOutput\|Bash\|Write\|Edit\|MultiEdit\|NotebookEdit"\) in plugin donegate@donegate `,
				`^✓ binaries: .*/bin/stop-hook, version `,
			},
			not: []string{`^[!✗]`},
		},
		{
			name: "the plugin with its own binaries",
			setup: func(t *testing.T, s *doctorSetup) {
				root := s.installPlugin(t)
				s.fakeHook(t, filepath.Join(root, "bin", "stop-hook"), "stop-hook 9.9.9")
				require.NoError(t, os.Remove(settings(s)))
			},
			code: ExitComplete,
			want: []string{`^! binaries: .*/plugins/cache/donegate/donegate/0\.1\.0/bin/stop-hook is version 9\.9\.9, closer is `},
		},
		{
			// make plugin's and the release archives' hooks.json: exec form.
			name: "the built plugin with its binaries",
			setup: func(t *testing.T, s *doctorSetup) {
				if runtime.GOOS == "windows" {
					t.Skip("scripts/build-plugin is a bash script: releases are built on Linux")
				}
				root := s.installPlugin(t)
				built := filepath.Join(t.TempDir(), "built")
				cmd := exec.Command(filepath.Join("..", "..", "scripts", "build-plugin"), "--no-binaries", built, "0.1.0")
				// The doctor's setup empties PATH; the script needs bash and coreutils.
				cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin")
				out, err := cmd.CombinedOutput()
				require.NoError(t, err, string(out))
				data, err := os.ReadFile(filepath.Join(built, "hooks", "hooks.json"))
				require.NoError(t, err)
				s.write(t, filepath.Join(root, "hooks", "hooks.json"), string(data))
				s.fakeHook(t, filepath.Join(root, "bin", "stop-hook"), "stop-hook 9.9.9")
				s.fakeHook(t, filepath.Join(root, "bin", "posttooluse-hook"), "posttooluse-hook 9.9.9")
				require.NoError(t, os.Remove(settings(s)))
			},
			code: ExitComplete,
			want: []string{
				`^! binaries: .*/plugins/cache/donegate/donegate/0\.1\.0/bin/stop-hook is version 9\.9\.9, closer is `,
				`^! binaries: .*/plugins/cache/donegate/donegate/0\.1\.0/bin/posttooluse-hook is version 9\.9\.9, closer is `,
				`^✓ settings: stop-hook --criteria at SessionStart in plugin donegate@donegate `,
				`^✓ settings: posttooluse-hook at PreToolUse \(matcher "StructuredOutput\|Bash\|Write\|Edit\|MultiEdit\|NotebookEdit"\) in plugin donegate@donegate `,
			},
		},
		{
			// Claude Code runs one command string once, from however many
			// files: the same stop-hook in user and project settings held
			// a scripted agent 5 times (issue 20). No warning.
			name: "the same commands in user and project settings",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.home, ".claude", "settings.json"), exampleSettings)
			},
			code: ExitComplete,
			want: []string{`^✓ settings: stop-hook at Stop in user settings `, `^✓ settings: stop-hook at Stop in project settings `, `^No problems found\.$`},
		},
		{
			// Two command strings for one binary run twice.
			name: "two command strings in user and project settings",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.home, ".claude", "settings.json"), strings.ReplaceAll(exampleSettings, `"stop-hook"`, `"`+jsonText(cli.ShellQuote(fakeExe(filepath.Join(s.bin, "stop-hook"))))+`"`))
			},
			code: ExitComplete,
			want: []string{`^! settings: stop-hook at Stop and stop-hook at SubagentStop are registered 2 times \(user settings .*; project settings .*\)`},
		},
		{
			// --plugin-dir with its binaries in DIR/bin, none on PATH:
			// nothing doctor can see, so nothing is ✗ (issue 20).
			name: "no registration and no binary on PATH",
			setup: func(t *testing.T, s *doctorSetup) {
				require.NoError(t, os.Remove(settings(s)))
				require.NoError(t, os.Remove(fakeExe(filepath.Join(s.bin, "stop-hook"))))
				require.NoError(t, os.Remove(fakeExe(filepath.Join(s.bin, "posttooluse-hook"))))
			},
			code: ExitComplete,
			want: []string{"^\\? binaries: stop-hook is not on PATH: fine if a plugin loaded with `claude --plugin-dir DIR` runs it from DIR/bin$", `^\? settings: not registered in any settings file`},
		},
		{
			name:  "the plugin and the settings both registered",
			setup: func(t *testing.T, s *doctorSetup) { s.installPlugin(t) },
			code:  ExitComplete,
			want: []string{
				`^! settings: stop-hook at Stop, stop-hook at SubagentStop, posttooluse-hook at PreToolUse and posttooluse-hook at PostToolUse are registered 2 times \(project settings .*; plugin donegate@donegate .*\): donegate runs once for each, and each run counts its own block, so limits\.max_blocks is spent 2 times as fast$`,
				`^    fix: keep one registration`,
			},
		},
		{
			name: "a plugin enabled but not installed",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"enabledPlugins": {"donegate@donegate": true}}`)
				require.NoError(t, os.Remove(settings(s)))
			},
			code: ExitComplete,
			want: []string{`^! settings: plugin donegate@donegate is enabled but not in .*installed_plugins\.json: assuming the hooks it registers`, `^✓ settings: stop-hook at Stop in plugin donegate@donegate$`},
		},
		{
			name: "a plugin disabled in the local settings",
			setup: func(t *testing.T, s *doctorSetup) {
				s.installPlugin(t)
				s.write(t, filepath.Join(s.proj, ".claude", "settings.local.json"), `{"enabledPlugins": {"donegate@donegate": false}}`)
			},
			code: ExitComplete,
			not:  []string{`plugin donegate@donegate`},
		},
		{
			name:  "the default, a project without tests, and no plan tools",
			setup: func(t *testing.T, s *doctorSetup) { require.NoError(t, os.Remove(filepath.Join(s.proj, "go.mod"))) },
			code:  ExitComplete,
			want: []string{
				`^! config: the chain holds the agent for nothing in practice: it checks only the agent's plan \(no test command detected in .*/proj: looked for MODULE\.bazel, WORKSPACE\.bazel or WORKSPACE; go\.mod; .*\), and CLAUDE_CODE_ENABLE_TODO_TOOLS is set neither in the environment nor in any settings file's "env"`,
				`^    fix: give the model its plan tools: add "env": \{"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"\} to \.claude/settings\.json .*closer init writes the test command`,
			},
		},
		{
			name: "a plan-only config, and no plan tools",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), `{"checkers": [{"type": "plan"}]}`)
			},
			code: ExitComplete,
			want: []string{`^! config: the chain holds the agent for nothing in practice: it checks only the agent's plan, and CLAUDE_CODE_ENABLE_TODO_TOOLS is set neither`},
		},
		{
			name: "a plan-only config, plan tools in the settings' env",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), `{"checkers": [{"type": "plan"}]}`)
				s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}}`)
			},
			code: ExitComplete,
			not:  []string{`^!`},
		},
		{
			name: "a plan-only config, plan tools turned off by the local settings",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), `{"checkers": [{"type": "plan"}]}`)
				s.write(t, filepath.Join(s.home, ".claude", "settings.json"), `{"env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"}}`)
				s.write(t, filepath.Join(s.proj, ".claude", "settings.local.json"), `{"env": {"CLAUDE_CODE_ENABLE_TODO_TOOLS": "0"}}`)
			},
			code: ExitComplete,
			want: []string{`^! config: the chain holds the agent for nothing in practice`},
		},
		{
			name: "a plan-only config, plan tools in the environment",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), `{"checkers": [{"type": "plan"}]}`)
				s.vars["CLAUDE_CODE_ENABLE_TODO_TOOLS"] = "true"
			},
			code: ExitComplete,
			not:  []string{`^!`},
		},
		{
			name: "an invalid config",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), `{"checkers": [{"type": "command"}]}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ config: .*/proj/\.claude/donegate\.json is invalid: config .*: checkers\[0\]\.command: `},
		},
		{
			name: "a config with several checkers",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), `{"checkers": [{"type": "plan"}, {"type": "test", "name": "unit", "command": "go test ./..."}]}`)
			},
			code: ExitComplete,
			want: []string{`^✓ config: checker 1: plan: `, "^✓ config: checker 2: unit: `go test \\./\\.\\.\\.` passes$"},
		},
		{
			name: "a judge whose claude does not exist, nested in a composite",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), `{"checkers": [{"type": "composite", "checkers": [
					{"type": "judge", "name": "review", "criteria": "- A", "claude": "tools/claude"}]}]}`)
			},
			code: ExitIncomplete,
			want: []string{`^✗ config: review: cannot run .*/proj/tools/claude: .*; the check fails at every stop$`},
		},
		{
			name: "a judge whose timeout outlasts the budget",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.proj, ".claude", "donegate.json"), fmt.Sprintf(`{"limits": {"budget": "90s"}, "checkers": [
					{"type": "judge", "criteria": "- A", "claude": %q}]}`, s.claude))
			},
			code: ExitComplete,
			want: []string{`^! config: judge: its timeout \(2m0s\) is not below limits\.budget \(1m30s\): the budget stops a slow judge first, with no verdict$`},
			not:  []string{`cannot run`},
		},
		{
			name:  "a state dir that cannot be written",
			setup: func(t *testing.T, s *doctorSetup) { s.write(t, s.state, "a file, not a dir") },
			code:  ExitIncomplete,
			want:  []string{`^✗ state: state dir .*/state is not writable \(.*\): the hooks cannot count blocks`},
		},
		{
			name: "a command's own --state-dir",
			setup: func(t *testing.T, s *doctorSetup) {
				s.write(t, filepath.Join(s.home, "blocked"), "a file")
				s.write(t, settings(s), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook --state-dir ~/blocked/x"}]}]}}`)
			},
			code: ExitIncomplete,
			want: []string{`^✓ state: state dir .*/state is writable$`, `^✗ state: state dir .*/home/blocked/x is not writable`},
		},
		{
			name:  "Claude Code older than 2.1.3",
			setup: func(t *testing.T, s *doctorSetup) { s.fakeHook(t, s.claude, "2.0.76 (Claude Code)") },
			code:  ExitComplete,
			want:  []string{`^! claude: Claude Code 2\.0\.76 is older than 2\.1\.3: a hook entry without "timeout" is killed after 60 s`},
		},
		{
			name:  "Claude Code older than 2.1.163",
			setup: func(t *testing.T, s *doctorSetup) { s.fakeHook(t, s.claude, "2.1.100 (Claude Code)") },
			code:  ExitComplete,
			want:  []string{`^! claude: Claude Code 2\.1\.100 is older than 2\.1\.163: a Stop answer carrying hookSpecificOutput is dropped`},
		},
		{
			name:  "Claude Code not installed",
			setup: func(t *testing.T, s *doctorSetup) { require.NoError(t, os.Remove(s.claude)) },
			code:  ExitComplete,
			want:  []string{`^! claude: Claude Code \(.*/claude\) is not installed`},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newDoctorSetup(t)
			if tt.setup != nil {
				tt.setup(t, s)
			}
			code, out, errOut := s.run(t)
			assert.Equal(t, tt.code, code, out)
			assert.Empty(t, errOut)
			for _, w := range tt.want {
				assert.Regexp(t, regexp.MustCompile(`(?m)`+w), out)
			}
			for _, n := range tt.not {
				assert.NotRegexp(t, regexp.MustCompile(`(?m)`+n), out)
			}
		})
	}
}

func TestDoctorJSON(t *testing.T) {
	s := newDoctorSetup(t)
	s.write(t, filepath.Join(s.proj, ".claude", "settings.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook", "timeout": 60}]}]}}`)
	code, out, errOut := s.run(t, "--json")
	require.Equal(t, ExitIncomplete, code, errOut)
	assert.Equal(t, 1, strings.Count(out, "\n"), "one JSON object on one line")

	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	assert.ElementsMatch(t, []string{"ok", "findings"}, keys(raw))

	var rep DoctorReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.False(t, rep.OK)
	var fail *Finding
	for i, f := range rep.Findings {
		assert.Contains(t, []string{statusOK, statusWarn, statusFail}, f.Status)
		assert.Contains(t, []string{"binaries", "settings", "vscode", "config", "consent", "mode", "export", "state", "claude", "sandbox"}, f.Area)
		assert.NotEmpty(t, f.Message)
		if f.Status == statusFail {
			assert.NotEmpty(t, f.Fix, "every fail has its fix: %s", f.Message)
			fail = &rep.Findings[i]
		}
	}
	require.NotNil(t, fail)
	assert.Equal(t, "settings", fail.Area)
	assert.Contains(t, fail.Message, "its timeout (1m0s) is not above limits.budget (9m0s)")

	var first map[string]json.RawMessage
	var findings []json.RawMessage
	require.NoError(t, json.Unmarshal(raw["findings"], &findings))
	require.NoError(t, json.Unmarshal(findings[0], &first))
	assert.ElementsMatch(t, []string{"area", "status", "message"}, keys(first), "fix is left out when there is none")
}

func keys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestResolveCommand(t *testing.T) {
	r := &runCtx{dir: "/proj", env: testEnv(map[string]string{"HOME": "/home/me"}, false)}
	pluginDir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(pluginDir, "bin"), 0o755))
	writeExecutable(t, filepath.Join(pluginDir, "bin", "stop-hook"), "")
	for _, tt := range []struct {
		name, command, root string
		hook, program       string
		flags               []string
		ok                  bool
	}{
		{name: "on PATH", command: "stop-hook", hook: "stop-hook", program: "stop-hook", flags: []string{}, ok: true},
		{name: "with flags", command: "posttooluse-hook --config 'my file.json' --dialect sdk", hook: "posttooluse-hook", program: "posttooluse-hook", flags: []string{"--config", "my file.json", "--dialect", "sdk"}, ok: true},
		{name: "quoted project path", command: `"$CLAUDE_PROJECT_DIR"/bin/stop-hook`, hook: "stop-hook", program: "/proj/bin/stop-hook", flags: []string{}, ok: true},
		{name: "braced project path", command: `${CLAUDE_PROJECT_DIR}/bin/stop-hook`, hook: "stop-hook", program: "/proj/bin/stop-hook", flags: []string{}, ok: true},
		{name: "home", command: `~/go/bin/stop-hook`, hook: "stop-hook", program: filepath.Join("/home/me", "go", "bin", "stop-hook"), flags: []string{}, ok: true},
		{name: "$HOME", command: `$HOME/go/bin/stop-hook`, hook: "stop-hook", program: "/home/me/go/bin/stop-hook", flags: []string{}, ok: true},
		{name: "plugin wrapper, binary beside it", command: `sh "${CLAUDE_PLUGIN_ROOT}/bin/donegate-hook" stop-hook`, root: pluginDir, hook: "stop-hook", program: fakeExe(filepath.Join(pluginDir, "bin", "stop-hook")), flags: []string{}, ok: true},
		{name: "plugin wrapper, binary on PATH", command: `sh "${CLAUDE_PLUGIN_ROOT}/bin/donegate-hook" posttooluse-hook`, root: pluginDir, hook: "posttooluse-hook", program: "posttooluse-hook", flags: []string{}, ok: true},
		{name: "plugin shell command, binary beside it", command: pluginCommand(t, "Stop"), root: pluginDir, hook: "stop-hook", program: fakeExe(filepath.Join(pluginDir, "bin", "stop-hook")), flags: []string{}, ok: true},
		{name: "plugin shell command, binary on PATH", command: pluginCommand(t, "PreToolUse"), root: pluginDir, hook: "posttooluse-hook", program: "posttooluse-hook", flags: []string{}, ok: true},
		{name: "plugin shell command, flags", command: pluginCommand(t, "SessionStart"), root: pluginDir, hook: "stop-hook", program: fakeExe(filepath.Join(pluginDir, "bin", "stop-hook")), flags: []string{"--criteria"}, ok: true},
		{name: "someone else's hook", command: "./scripts/lint.sh --fix", ok: false},
		{name: "wrapper without a name", command: "sh donegate-hook", ok: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hook, program, flags, ok := r.resolveCommand(tt.command, tt.root)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.hook, hook)
			assert.Equal(t, tt.program, program)
			if tt.ok {
				assert.Equal(t, tt.flags, flags)
			}
		})
	}
}

// pluginCommand is the command plugin/hooks/hooks.json registers at event.
func pluginCommand(t *testing.T, event string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "plugin", "hooks", "hooks.json"))
	require.NoError(t, err)
	var s settingsJSON
	require.NoError(t, json.Unmarshal(data, &s))
	require.Len(t, s.Hooks[event], 1)
	require.Len(t, s.Hooks[event][0].Hooks, 1)
	return s.Hooks[event][0].Hooks[0].Command
}

// The built plugin's handlers are exec form: the program and its flags
// are read with no shell, the placeholders replaced as plain strings.
func TestResolveExec(t *testing.T) {
	r := &runCtx{dir: "/my proj", env: testEnv(nil, false)}
	for _, tt := range []struct {
		name, command string
		args          []string
		hook, program string
		flags         []string
		ok            bool
	}{
		{name: "plugin binary", command: "${CLAUDE_PLUGIN_ROOT}/bin/stop-hook", args: []string{}, hook: "stop-hook", program: "/a plugin/bin/stop-hook", flags: []string{}, ok: true},
		{name: "flags", command: "${CLAUDE_PLUGIN_ROOT}/bin/stop-hook", args: []string{"--criteria", "--config", "${CLAUDE_PROJECT_DIR}/d.json"}, hook: "stop-hook", program: "/a plugin/bin/stop-hook", flags: []string{"--criteria", "--config", "/my proj/d.json"}, ok: true},
		{name: "on PATH", command: "posttooluse-hook", args: []string{}, hook: "posttooluse-hook", program: "posttooluse-hook", flags: []string{}, ok: true},
		{name: "someone else's", command: "/usr/bin/echo", args: []string{"stop-hook"}, ok: false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hook, program, flags, ok := r.resolveExec(tt.command, tt.args, "/a plugin")
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.hook, hook)
			assert.Equal(t, tt.program, program)
			if tt.ok {
				assert.Equal(t, tt.flags, flags)
			}
		})
	}
}

func TestMatchesAny(t *testing.T) {
	tools := []string{"StructuredOutput"}
	for _, tt := range []struct {
		matcher string
		want    bool
	}{
		{"", true}, {"*", true}, {"StructuredOutput", true}, {"Write|StructuredOutput", true},
		{"Structured.*", true}, {"Write|Edit", false}, {"Structured", false}, {"structuredoutput", false}, {"(", false},
	} {
		t.Run(tt.matcher, func(t *testing.T) {
			assert.Equal(t, tt.want, matchesAny(tt.matcher, tools))
		})
	}
}

func TestFlagValue(t *testing.T) {
	for _, tt := range []struct {
		name  string
		flags []string
		want  string
		ok    bool
	}{
		{"double dash", []string{"--dialect", "sdk"}, "sdk", true},
		{"single dash", []string{"-dialect", "sdk"}, "sdk", true},
		{"equals", []string{"--dialect=sdk"}, "sdk", true},
		{"missing value", []string{"--dialect"}, "", false},
		{"absent", []string{"--config", "x"}, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := flagValue(tt.flags, "dialect")
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestOlder(t *testing.T) {
	for _, tt := range []struct {
		v, than [3]int
		want    bool
	}{
		{[3]int{2, 1, 2}, [3]int{2, 1, 3}, true},
		{[3]int{2, 1, 3}, [3]int{2, 1, 3}, false},
		{[3]int{2, 0, 999}, [3]int{2, 1, 3}, true},
		{[3]int{2, 1, 330}, [3]int{2, 1, 163}, false},
		{[3]int{3, 0, 0}, [3]int{2, 1, 163}, false},
	} {
		assert.Equal(t, tt.want, older(tt.v, tt.than), "%v < %v", tt.v, tt.than)
	}
}

// TestDoctorSandbox: doctor says whether Claude Code's sandbox keeps the
// agent's Bash out of donegate's state dir and the settings, reading the
// user, project and local settings as Claude Code does (the later file
// winning), and that bubblewrap and socat are on PATH where it runs.
func TestDoctorSandbox(t *testing.T) {
	for _, tt := range []struct {
		name, user, local string
		want              []string
	}{
		{name: "none", want: []string{`^✓ sandbox: Claude Code's sandbox is not on \(optional\): .* add "sandbox": \{"enabled": true, "failIfUnavailable": true, "autoAllowBashIfSandboxed": true, "allowUnsandboxedCommands": false\} to .*/home/\.claude/settings\.json$`}},
		{
			name: "on, with a way out", user: `{"sandbox": {"enabled": true}}`,
			want: []string{`^! sandbox: Claude Code's sandbox is on \(.*/home/\.claude/settings\.json\), but a call with dangerouslyDisableSandbox may leave it`},
		},
		{
			name: "on, no way out, its programs missing", user: `{"sandbox": {"enabled": true, "allowUnsandboxedCommands": false}}`,
			want: []string{`^✓ sandbox: Claude Code's sandbox is on \(.*/home/\.claude/settings\.json\), with no way out`, `^✗ sandbox: bwrap is not on PATH`, `^✗ sandbox: socat is not on PATH`},
		},
		{
			name: "turned off by the local settings", user: `{"sandbox": {"enabled": true, "allowUnsandboxedCommands": false}}`, local: `{"sandbox": {"enabled": false}}`,
			want: []string{`^✓ sandbox: Claude Code's sandbox is not on`},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if runtime.GOOS != "linux" && strings.Contains(tt.name, "missing") {
				t.Skip("bubblewrap and socat are the sandbox's programs on Linux")
			}
			s := newDoctorSetup(t)
			s.write(t, filepath.Join(s.proj, ".claude", "settings.json"), exampleSettings)
			if tt.user != "" {
				s.write(t, filepath.Join(s.home, ".claude", "settings.json"), tt.user)
			}
			if tt.local != "" {
				s.write(t, filepath.Join(s.proj, ".claude", "settings.local.json"), tt.local)
			}
			_, out, _ := s.run(t)
			for _, w := range tt.want {
				assert.Regexp(t, "(?m)"+w, out)
			}
		})
	}
}

// The install command is one a person can type in the system's shell:
// cmd.exe and PowerShell take no VAR=value prefix (issue 45).
func TestInstallCommand(t *testing.T) {
	assert.Equal(t, "CGO_ENABLED=0 go install github.com/donegate/donegate/cmd/...@latest", installCommand("linux"))
	assert.Equal(t, "CGO_ENABLED=0 go install github.com/donegate/donegate/cmd/...@latest", installCommand("darwin"))
	win := installCommand("windows")
	assert.True(t, strings.HasPrefix(win, `$env:CGO_ENABLED="0"; go install github.com/donegate/donegate/cmd/...@latest (PowerShell; in cmd.exe: set "CGO_ENABLED=0" && go install`), win)
	assert.NotContains(t, win, "CGO_ENABLED=0 go install")
}

// With the export on, doctor says where a registered hook has no closer
// beside it to start the exporter with, and says nothing once it has.
func TestDoctorFindsNoExporterBesideTheHooks(t *testing.T) {
	s := newDoctorSetup(t)
	s.vars["DONEGATE_OTLP_ENDPOINT"] = "http://127.0.0.1:9"
	_, out, _ := s.run(t)
	assert.Contains(t, out, "! export: no closer")
	assert.Contains(t, out, " beside "+filepath.ToSlash(filepath.Join(s.bin, "stop-hook"))+" to send the decisions with")
	assert.Contains(t, out, " beside "+filepath.ToSlash(filepath.Join(s.bin, "posttooluse-hook")))

	// The hooks start it as a program; doctor looks for the file.
	closer := filepath.Join(s.bin, "closer")
	if runtime.GOOS == "windows" {
		closer += ".exe"
	}
	s.write(t, closer, "")
	_, out, _ = s.run(t)
	assert.NotContains(t, out, "no closer")
	assert.Contains(t, out, "✓ export: to http://127.0.0.1:9/v1/logs")

	delete(s.vars, "DONEGATE_OTLP_ENDPOINT")
	require.NoError(t, os.Remove(closer))
	_, out, _ = s.run(t)
	assert.NotContains(t, out, "no closer", "the export off: nothing to start")
}
