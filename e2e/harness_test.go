//go:build e2e && !windows

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// repoRoot is the module root (this file is in e2e/).
func repoRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// claudeBinary is the pinned Claude Code CLI (see pinned).
func claudeBinary(t *testing.T) string {
	return pinned(t, "DONEGATE_CLAUDE", "claude", "the Claude Code CLI")
}

// pinned finds a pinned tool the tests drive: $envVar, else what
// scripts/install-<script> installed (its last line of output). A missing
// tool fails the test loudly: these tests are the proof against the real
// clients and are never skipped.
func pinned(t *testing.T, envVar, script, what string) string {
	t.Helper()
	if p := os.Getenv(envVar); p != "" {
		return p
	}
	out, err := exec.Command(filepath.Join(repoRoot(t), "scripts", "install-"+script)).Output()
	if err != nil {
		t.Fatalf("%s is not installed and scripts/install-%s failed (%v); run make test, or set %s", what, script, err, envVar)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// hookBinaries builds stop-hook, posttooluse-hook and closer once per
// test run, side by side as an install puts them (the hooks start the
// exporter, closer export, from their own dir).
func hookBinaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "donegate-e2e-bin-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+"/", "./cmd/stop-hook", "./cmd/posttooluse-hook", "./cmd/closer")
		cmd.Dir = repoRoot(t)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = err
			binDir = string(out)
		}
	})
	require.NoError(t, buildErr, binDir)
	return binDir
}

// session is one scripted run of the real CLI.
type session struct {
	t       *testing.T
	API     *fakeapi.Server
	Home    string // the throwaway HOME; the CLI's config dir is Home/.claude
	Project string // the project dir the CLI runs in
	Env     []string
	Args    []string
	// Hooks are settings.json hook entries by event name.
	Hooks map[string][]hookEntry
	// NoConsent leaves the project as nobody allowed it: by default each
	// run starts with the person's consent (see allowProject).
	NoConsent bool
	// Sandbox turns on Claude Code's sandbox for the agent's Bash calls,
	// with no way out of it (see sandboxSettings).
	Sandbox bool
}

// sandboxSettings are the sandbox settings docs/security.md proposes:
// every Bash call sandboxed, none let out, and no run without it.
var sandboxSettings = map[string]any{"enabled": true, "failIfUnavailable": true, "autoAllowBashIfSandboxed": true, "allowUnsandboxedCommands": false}

// consent allows the project before a run, unless NoConsent is set.
func (s *session) consent() {
	s.t.Helper()
	if !s.NoConsent {
		allowProject(s.t, s.Home, filepath.Join(s.Home, "donegate-state"), s.Project)
	}
}

type hookEntry struct {
	Matcher string
	Command string
	// Async: Claude Code runs it in the background (`"async": true`).
	Async bool
}

func newSession(t *testing.T, api *fakeapi.Server) *session {
	t.Helper()
	t.Cleanup(api.Close)
	s := &session{t: t, API: api, Home: t.TempDir(), Project: t.TempDir(), Hooks: map[string][]hookEntry{}}
	return s
}

// useDonegate registers the donegate hooks as settings.example.json does.
func (s *session) useDonegate(flags ...string) {
	bin := hookBinaries(s.t)
	extra := ""
	for _, f := range flags {
		extra += " " + f
	}
	stop := filepath.Join(bin, "stop-hook") + extra
	tool := filepath.Join(bin, "posttooluse-hook") + extra
	s.Hooks["Stop"] = append(s.Hooks["Stop"], hookEntry{Command: stop})
	s.Hooks["SubagentStop"] = append(s.Hooks["SubagentStop"], hookEntry{Command: stop})
	s.Hooks["PreToolUse"] = append(s.Hooks["PreToolUse"], hookEntry{Matcher: "StructuredOutput", Command: tool})
	s.Hooks["PostToolUse"] = append(s.Hooks["PostToolUse"], hookEntry{Matcher: "StructuredOutput|Bash", Command: tool})
}

// guardTools widens posttooluse-hook's PreToolUse entry to Bash and the
// edit tools, as closer init registers it: the agent's calls that would
// loosen its gate are refused before they run.
func (s *session) guardTools() {
	for i, e := range s.Hooks["PreToolUse"] {
		if e.Matcher == "StructuredOutput" {
			s.Hooks["PreToolUse"][i].Matcher = "StructuredOutput|Bash|Write|Edit|MultiEdit|NotebookEdit"
		}
	}
}

// startChecksEarly registers stop-hook --start at PostToolUse of the edit
// tools, in the background, as settings.example.json does. useDonegate
// leaves it out: with it every edit of a scenario would start its checks,
// and the scenarios count their runs.
func (s *session) startChecksEarly(flags ...string) {
	command := filepath.Join(hookBinaries(s.t), "stop-hook") + " --start"
	for _, f := range flags {
		command += " " + f
	}
	s.Hooks["PostToolUse"] = append(s.Hooks["PostToolUse"], hookEntry{Matcher: "Write|Edit|MultiEdit|NotebookEdit", Command: command, Async: true})
}

// config writes the project's .claude/donegate.json.
func (s *session) config(cfg string) {
	dir := filepath.Join(s.Project, ".claude")
	require.NoError(s.t, os.MkdirAll(dir, 0o755))
	require.NoError(s.t, os.WriteFile(filepath.Join(dir, "donegate.json"), []byte(cfg), 0o644))
}

func (s *session) settingsFile() string {
	hooks := map[string]any{}
	for event, entries := range s.Hooks {
		var list []any
		for _, e := range entries {
			hook := map[string]any{"type": "command", "command": e.Command, "timeout": 60}
			if e.Async {
				hook["async"] = true
			}
			entry := map[string]any{"hooks": []any{hook}}
			if e.Matcher != "" {
				entry["matcher"] = e.Matcher
			}
			list = append(list, entry)
		}
		hooks[event] = list
	}
	settings := map[string]any{"hooks": hooks}
	if s.Sandbox {
		settings["sandbox"] = sandboxSettings
	}
	data, err := json.MarshalIndent(settings, "", "  ")
	require.NoError(s.t, err)
	path := filepath.Join(s.t.TempDir(), "settings.json")
	require.NoError(s.t, os.WriteFile(path, data, 0o644))
	return path
}

// result is the CLI's --output-format json answer and what surrounds it.
type result struct {
	Result           string          `json:"result"`
	IsError          bool            `json:"is_error"`
	NumTurns         int             `json:"num_turns"`
	SessionID        string          `json:"session_id"`
	Subtype          string          `json:"subtype"`
	StructuredOutput json.RawMessage `json:"structured_output"`
	Stdout, Stderr   string          `json:"-"`
	ExitCode         int             `json:"-"`
}

// run runs `claude -p PROMPT` against the stand-in, in its own process
// group, killed with it if the run takes too long.
func (s *session) run(prompt string) result {
	s.t.Helper()
	claude := claudeBinary(s.t)
	s.consent()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"-p", prompt, "--output-format", "json"}
	if len(s.Hooks) > 0 { // none when a plugin brings the hooks
		args = append(args, "--settings", s.settingsFile())
	}
	args = append(args, s.Args...)
	cmd := exec.CommandContext(ctx, claude, args...)
	cmd.Dir = s.Project
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	// Nothing of the developer's own environment may leak in: no real
	// HOME, no CLAUDE_* or ANTHROPIC_* settings, no donegate config.
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.Home,
		"TMPDIR=" + s.t.TempDir(),
		"LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + s.API.URL(),
		"ANTHROPIC_API_KEY=sk-ant-fake-key-for-tests",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state"),
	}, s.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{Stdout: stdout.String(), Stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.ExitCode = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("run claude: %v\nstderr: %s", err, stderr.String())
	}
	if ctx.Err() != nil {
		s.t.Fatalf("claude did not finish within 90s\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
	}
	if json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &r) != nil {
		// Some versions print a JSON array of messages; take the result line.
		var msgs []json.RawMessage
		if json.Unmarshal(stdout.Bytes(), &msgs) == nil && len(msgs) > 0 {
			_ = json.Unmarshal(msgs[len(msgs)-1], &r)
		}
	}
	return r
}

// transcriptPath is where the CLI keeps the session's transcript.
func (s *session) transcriptPath(sessionID string) string {
	matches, _ := filepath.Glob(filepath.Join(s.Home, ".claude", "projects", "*", sessionID+".jsonl"))
	if len(matches) == 0 {
		return ""
	}
	return matches[0]
}

// TestEveryTestRunsInParallel: every test of the package but the Windows
// ones (doc.go says why) starts with t.Parallel(), so that a new scenario
// does not make the package run one client after another again.
func TestEveryTestRunsInParallel(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil {
				continue
			}
			parallel := false
			if len(fn.Body.List) > 0 {
				if call, ok := fn.Body.List[0].(*ast.ExprStmt); ok {
					if c, ok := call.X.(*ast.CallExpr); ok {
						if sel, ok := c.Fun.(*ast.SelectorExpr); ok {
							x, _ := sel.X.(*ast.Ident)
							parallel = sel.Sel.Name == "Parallel" && x != nil && x.Name == "t"
						}
					}
				}
			}
			if name == "windows_test.go" {
				assert.False(t, parallel, "%s: %s runs Wine side by side with the other Windows tests", name, fn.Name.Name)
				continue
			}
			assert.True(t, parallel, "%s: %s does not start with t.Parallel()", name, fn.Name.Name)
		}
	}
}
