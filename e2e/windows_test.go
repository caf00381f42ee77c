//go:build e2e && !windows

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// The Windows binaries, run under Wine 8 (scripts/install-wine) on
// recorded events: what the Linux tests prove of the hook, proved of
// stop-hook.exe and closer.exe as Windows runs them (cmd.exe for test
// commands, a Job Object around each, Windows paths, %LOCALAPPDATA%).
// What Wine cannot prove (console handling, Defender, real Job Object
// limits) is said in docs/install.md, Windows.

// wineExec is the go test -exec wrapper that runs a Windows program
// under Wine: $DONEGATE_WINE, else what scripts/install-wine sets up. Where
// the script says Wine cannot be had here (exit 3: not Debian, no root),
// the test is skipped with its reason, unless DONEGATE_REQUIRE_DEBIAN is set.
func wineExec(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("DONEGATE_WINE"); p != "" {
		return p
	}
	var stderr strings.Builder
	cmd := exec.Command(filepath.Join(repoRoot(t), "scripts", "install-wine"))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 && os.Getenv("DONEGATE_REQUIRE_DEBIAN") == "" {
		t.Skipf("Wine cannot be had here: %s", strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		t.Fatalf("scripts/install-wine failed (%v): %s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

var (
	windowsBuild    sync.Once
	windowsBinDir   string
	windowsBuildErr error
)

// windowsBinaries builds the three binaries (windows/amd64)
// once per test run.
func windowsBinaries(t *testing.T) string {
	t.Helper()
	windowsBuild.Do(func() {
		windowsBinDir, windowsBuildErr = os.MkdirTemp("", "donegate-e2e-windows-")
		if windowsBuildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", windowsBinDir+"/", "./cmd/stop-hook", "./cmd/posttooluse-hook", "./cmd/closer")
		cmd.Dir = repoRoot(t)
		cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			windowsBuildErr = errors.New(err.Error() + "\n" + string(out))
		}
	})
	require.NoError(t, windowsBuildErr)
	return windowsBinDir
}

// winPath is the Windows path Wine gives the Unix path p (its Z: drive).
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

// windowsProject is a project dir with the config cfg, allowed by the
// person (closer.exe allow), and the environment the binaries run with:
// no DONEGATE_STATE_DIR, so that the state goes where it goes on Windows
// (%LOCALAPPDATA%\donegate: Wine sets LOCALAPPDATA from its prefix,
// whatever the Linux environment says).
type windowsProject struct {
	t       *testing.T
	dir     string
	session string
	env     []string
	wine    string
	bin     string
}

func newWindowsProject(t *testing.T, cfg string) *windowsProject {
	t.Helper()
	p := &windowsProject{t: t, dir: t.TempDir(), wine: wineExec(t), bin: windowsBinaries(t)}
	p.session = fmt.Sprintf("windows-%d-%s", time.Now().UnixNano(), strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()))
	// No export of the developer's own (a test that wants one sets it).
	p.env = []string{"DONEGATE_STATE_DIR=", "XDG_STATE_HOME=", "DONEGATE_OTLP_ENDPOINT=off"}
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, ".donegate.json"), []byte(cfg), 0o644))
	r := p.run("closer.exe", "", "allow", "--dir", winPath(p.dir))
	require.Equal(t, 0, r.code, "closer allow: %s%s", r.stdout, r.stderr)
	// The state, consent included, is where Windows keeps a user's own.
	found, err := filepath.Glob(filepath.Join(filepath.Dir(p.wine), "prefix", "drive_c", "users", "*", "AppData", "Local", "donegate", "consent"))
	require.NoError(t, err)
	require.NotEmpty(t, found, "closer allow wrote no consent under %%LOCALAPPDATA%%\\donegate")
	return p
}

type wineRun struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

// run runs the Windows program prog of the build with args and stdin,
// under Wine, within two minutes.
func (p *windowsProject) run(prog, stdin string, args ...string) wineRun {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.wine, append([]string{filepath.Join(p.bin, prog)}, args...)...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := wineRun{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		p.t.Fatalf("%s under wine: %v\n%s", prog, err, stderr.String())
	}
	return r
}

// stop runs stop-hook.exe on the recorded Claude Code Stop event
// testdata/events/stop-no-plan.json, in the project.
func (p *windowsProject) stop() wineRun {
	p.t.Helper()
	return p.stopIn(winPath(p.dir))
}

// stopIn is stop with the event's cwd cwd.
func (p *windowsProject) stopIn(cwd string) wineRun {
	p.t.Helper()
	return p.hook("stop-hook.exe", "stop-no-plan.json", cwd)
}

// hook runs the Windows hook prog on the recorded event
// testdata/events/NAME, its session, cwd and transcript the project's.
func (p *windowsProject) hook(prog, name, cwd string) wineRun {
	p.t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(p.t), "testdata", "events", name))
	require.NoError(p.t, err)
	var ev map[string]any
	require.NoError(p.t, json.Unmarshal(data, &ev))
	ev["cwd"] = cwd
	ev["session_id"] = p.session
	ev["transcript_path"] = winPath(filepath.Join(p.dir, "no-transcript.jsonl"))
	data, err = json.Marshal(ev)
	require.NoError(p.t, err)
	return p.run(prog, string(data))
}

func TestWindowsStopHookHoldsForAMissingFileUntilWritten(t *testing.T) {
	p := newWindowsProject(t, `{"checkers": [{"type": "files", "paths": ["dist\\report.txt"]}]}`)
	r := p.stop()
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"decision":"block"`)
	assert.Contains(t, r.stdout, `report.txt`)

	require.NoError(t, os.MkdirAll(filepath.Join(p.dir, "dist"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "dist", "report.txt"), []byte("done\r\n"), 0o644))
	r = p.stop()
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, `"decision":"block"`, "the file is written: the agent may stop")
}

func TestWindowsStopHookHoldsForAFailingTestCommand(t *testing.T) {
	// cmd.exe runs it: exit /b is cmd's, and a .cmd script runs as npm.cmd does.
	p := newWindowsProject(t, `{"checkers": [{"type": "test", "command": "check.cmd", "timeout": "1m"}]}`)
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "check.cmd"), []byte("@echo off\r\necho 2 tests failed: TestExport\r\nexit /b 3\r\n"), 0o644))
	r := p.stop()
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"decision":"block"`)
	assert.Contains(t, r.stdout, "exit code 3")
	assert.Contains(t, r.stdout, "2 tests failed: TestExport", "the failure line reaches the agent")

	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "check.cmd"), []byte("@echo off\r\necho ok\r\n"), 0o644))
	r = p.stop()
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, `"decision":"block"`, "the tests pass: the agent may stop")
}

// TestWindowsTestCommandIsStoppedWithItsTree: ping, a child of cmd.exe,
// outlives the check's timeout (and, in the second case, the hook's
// budget): the hook answers within its bound, and no ping is left
// running.
func TestWindowsTestCommandIsStoppedWithItsTree(t *testing.T) {
	for _, tt := range []struct {
		name, cfg, marker, why string
	}{
		{"at its timeout", `{"checkers": [{"type": "test", "command": "ping -n 60 127.0.0.57", "timeout": "3s"}]}`, "127.0.0.57", "timed out after 3s"},
		{"at the budget", `{"limits": {"budget": "5s"}, "checkers": [{"type": "test", "command": "ping -n 60 127.0.0.58", "timeout": "1m"}]}`, "127.0.0.58", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := newWindowsProject(t, tt.cfg)
			seen := make(chan bool, 1)
			go func() {
				// The ping runs while the hook waits for it: the search below
				// finds it, so that its absence afterwards means something.
				deadline := time.Now().Add(time.Minute)
				for time.Now().Before(deadline) {
					if len(runningWith(tt.marker)) > 0 {
						seen <- true
						return
					}
					time.Sleep(50 * time.Millisecond)
				}
				seen <- false
			}()
			r := p.stop()
			require.Equal(t, 0, r.code, r.stderr)
			assert.Contains(t, r.stdout, `"decision":"block"`)
			if tt.why != "" {
				assert.Contains(t, r.stdout, tt.why)
			}
			assert.Less(t, r.elapsed, 50*time.Second, "the hook waited for ping's 60 s")
			require.True(t, <-seen, "ping never ran under the hook (the search for %s is wrong?)", tt.marker)
			assert.Eventually(t, func() bool { return len(runningWith(tt.marker)) == 0 }, 10*time.Second, 100*time.Millisecond,
				"ping is still running after the hook answered: %v", runningWith(tt.marker))
		})
	}
}

// runningWith lists the processes (pids) whose command line holds s and
// that are not zombies: Wine runs each Windows process as a Linux one.
func runningWith(s string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(s)) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		pids = append(pids, e.Name()+" "+string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
	}
	return pids
}

// TestWindowsProjectPathsIgnoreCase: Windows names one folder in any
// case. The person allows z:\...\proj, the host names Z:\...\PROJ: the
// same project, allowed, its command run.
func TestWindowsProjectPathsIgnoreCase(t *testing.T) {
	p := newWindowsProject(t, `{"checkers": [{"type": "test", "command": "exit /b 5", "timeout": "1m"}]}`)
	// Allowed again, spelled in lower case: one record, not two.
	r := p.run("closer.exe", "", "allow", "--dir", strings.ToLower(winPath(p.dir)))
	require.Equal(t, 0, r.code, "closer allow: %s%s", r.stdout, r.stderr)
	r = p.stopIn(strings.ToUpper(winPath(p.dir)))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "exit code 5", "the command ran: the project is the one allowed")
	assert.NotContains(t, r.stdout+r.stderr, "nobody has allowed")
}

// TestWindowsCloserInitWritesCopilotsPowerShell: closer.exe init on
// Windows gives each Copilot CLI entry the powershell command Copilot runs
// there beside its bash, and closer.exe doctor judges those entries.
func TestWindowsCloserInitWritesCopilotsPowerShell(t *testing.T) {
	p := &windowsProject{t: t, dir: t.TempDir(), wine: wineExec(t), bin: windowsBinaries(t)}
	// No export of the developer's own (a test that wants one sets it).
	p.env = []string{"DONEGATE_STATE_DIR=", "XDG_STATE_HOME=", "DONEGATE_OTLP_ENDPOINT=off"}
	require.NoError(t, os.MkdirAll(filepath.Join(p.dir, ".github", "hooks"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "go.mod"), []byte("module x\n\ngo 1.22\n"), 0o644))
	r := p.run("closer.exe", "", "init", "--dir", winPath(p.dir), "--host", "copilot")
	require.Equal(t, 0, r.code, "closer init: %s%s", r.stdout, r.stderr)
	data, err := os.ReadFile(filepath.Join(p.dir, ".github", "hooks", "donegate.json"))
	require.NoError(t, err)
	var doc struct {
		Hooks map[string][]struct{ Bash, PowerShell string } `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(data, &doc), "%s", data)
	require.NotEmpty(t, doc.Hooks["agentStop"], "%s", data)
	for event, entries := range doc.Hooks {
		hook := "stop-hook"
		if event == "preToolUse" {
			hook = "posttooluse-hook" // the guard
		}
		for _, e := range entries {
			assert.Equal(t, hook, e.Bash, event)
			assert.Equal(t, hook, e.PowerShell, "%s: Copilot runs powershell on Windows", event)
		}
	}
	r = p.run("closer.exe", "", "doctor", "--dir", winPath(p.dir))
	assert.Contains(t, r.stdout, "stop-hook at agentStop in Copilot CLI project hooks", r.stdout+r.stderr)
}

// TestWindowsCloserFindsTheExeBinaries: closer.exe takes stop-hook.exe
// for stop-hook: init --absolute names it by a path every Windows hook
// shell runs (/ for \, unquoted), and doctor finds it there and on PATH,
// runs it and reads its version. Before, doctor judged every .exe "not
// executable" (no execute bit on Windows) and init --absolute found none.
func TestWindowsCloserFindsTheExeBinaries(t *testing.T) {
	p := &windowsProject{t: t, dir: t.TempDir(), wine: wineExec(t), bin: windowsBinaries(t)}
	// Wine builds a program's PATH from the registry and WINEPATH.
	p.env = []string{"DONEGATE_STATE_DIR=", "XDG_STATE_HOME=", "WINEPATH=" + winPath(p.bin)}
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "go.mod"), []byte("module x\n\ngo 1.22\n"), 0o644))
	r := p.run("closer.exe", "", "init", "--dir", winPath(p.dir), "--host", "codex", "--absolute")
	require.Equal(t, 0, r.code, "closer init: %s%s", r.stdout, r.stderr)
	data, err := os.ReadFile(filepath.Join(p.dir, ".codex", "hooks.json"))
	require.NoError(t, err)
	want := "Z:" + filepath.Join(p.bin, "stop-hook.exe")
	assert.Equal(t, want, gjson.GetBytes(data, "hooks.Stop.0.hooks.0.command").Str, "%s", data)

	r = p.run("closer.exe", "", "doctor", "--dir", winPath(p.dir))
	assert.Contains(t, r.stdout, "✓ binaries: "+want+", version", r.stdout+r.stderr)
	assert.NotContains(t, r.stdout, "not executable")
	assert.NotContains(t, r.stdout, "is not on PATH")
}

// TestWindowsPostToolUseHookGatesStructuredOutput: posttooluse-hook.exe
// lets a tool it does not gate through and denies the final
// StructuredOutput while work is open, on Claude Code's recorded
// PreToolUse events.
func TestWindowsPostToolUseHookGatesStructuredOutput(t *testing.T) {
	p := newWindowsProject(t, `{"checkers": [{"type": "files", "paths": ["dist/report.txt"]}]}`)
	r := p.hook("posttooluse-hook.exe", "pretooluse-bash.json", winPath(p.dir))
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "deny", "Bash is not gated")

	r = p.hook("posttooluse-hook.exe", "pretooluse-structuredoutput-open.json", winPath(p.dir))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"permissionDecision":"deny"`)
	assert.Contains(t, r.stdout, "report.txt")

	require.NoError(t, os.MkdirAll(filepath.Join(p.dir, "dist"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(p.dir, "dist", "report.txt"), []byte("done\r\n"), 0o644))
	r = p.hook("posttooluse-hook.exe", "pretooluse-structuredoutput-open.json", winPath(p.dir))
	require.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "deny", "the work is done: the output is accepted")
}

// The export on Windows: stop-hook.exe starts closer.exe detached (no
// console, none of the hook's handles) and answers at once; the decision
// reaches the collector. The collector here is a stand-in that takes
// OTLP/HTTP requests; the real one is e2e/export_test.go's.
func TestWindowsDecisionsReachTheCollector(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, r.URL.Path+" "+string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()
	p := newWindowsProject(t, `{"checkers": [{"type": "files", "paths": ["report.txt"]}]}`)
	p.env = append(p.env, "DONEGATE_OTLP_ENDPOINT="+srv.URL)
	t.Cleanup(func() {
		// The exporter lingers after its last send: end it with the test.
		_ = exec.Command(p.wine, "taskkill", "/F", "/IM", "closer.exe").Run()
	})
	r := p.stop()
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"decision":"block"`)
	require.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bodies {
			if strings.HasPrefix(b, "/v1/logs ") && strings.Contains(b, p.session) {
				return true
			}
		}
		return false
	}, 90*time.Second, 100*time.Millisecond, "the decision of session %s reaches the collector", p.session)
}
