//go:build !windows

// The end-to-end tests of the Linux binaries (sh, FIFOs, process groups);
// the Windows binaries have their own, under Wine (e2e/windows_test.go).

package donegate_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/donegate/donegate/internal/agentshell"
	"github.com/donegate/donegate/internal/closer"
	"github.com/donegate/donegate/internal/gate"
)

// TestMain lets the test binary act as the hook executables, so the
// scripts run them as real processes through stdin, stdout and exit codes.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"stop-hook": func() {
			os.Exit(gate.StopHook(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, gate.OSEnv()))
		},
		"posttooluse-hook": func() {
			os.Exit(gate.ToolHook(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, gate.OSEnv()))
		},
		"closer": func() {
			// The script's own environment alone says whether closer runs
			// in an agent's shell: a developer may run the tests from one.
			env := closer.OSEnv()
			env.AgentShell = agentshell.OwnOnly
			os.Exit(closer.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr, env))
		},
	})
}

// TestScripts runs testdata/script/*.txtar: recorded events and
// transcripts through the hooks, with the expected answers.
func TestScripts(t *testing.T) {
	// Scripts that run the real go share the build cache of the go that
	// runs the tests: a fresh one compiled the standard library again
	// (go_workspace.txtar took 22 s instead of 3).
	goCache := ""
	if out, err := exec.Command("go", "env", "GOCACHE").Output(); err == nil {
		goCache = strings.TrimSpace(string(out))
	}
	toolBin := ""
	for name, v := range map[string]string{"pnpm": "DONEGATE_PNPM", "yarn": "DONEGATE_YARN", "turbo": "DONEGATE_TURBO", "nx": "DONEGATE_NX", "jest": "DONEGATE_JEST", "vitest": "DONEGATE_VITEST"} {
		if path := os.Getenv(v); path != "" {
			if toolBin == "" {
				toolBin = t.TempDir()
			}
			if err := os.Symlink(path, filepath.Join(toolBin, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Yarn 1 answers to the name yarn too: a dir of its own, which
	// yarn_classic_workspace.txtar puts first on PATH.
	// It is on PATH as yarn1 too, for the script's condition.
	yarn1Bin := ""
	if yarn1 := os.Getenv("DONEGATE_YARN_CLASSIC"); yarn1 != "" {
		yarn1Bin = t.TempDir()
		if toolBin == "" {
			toolBin = t.TempDir()
		}
		for _, link := range []string{filepath.Join(yarn1Bin, "yarn"), filepath.Join(toolBin, "yarn1")} {
			if err := os.Symlink(yarn1, link); err != nil {
				t.Fatal(err)
			}
		}
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			// Under -race every exec'd hook (this test binary) slept 1 s
			// at exit, the race runtime's default atexit_sleep_ms: the
			// scripts took 83 s instead of 3 s.
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("DONEGATE_STATE_DIR", env.WorkDir+"/state")
			if goCache != "" {
				env.Setenv("GOCACHE", goCache)
			}
			// cargo is rustup's proxy, which finds its toolchains under
			// the real home: keep them found with HOME moved.
			for name, dir := range map[string]string{"RUSTUP_HOME": ".rustup", "CARGO_HOME": ".cargo"} {
				if v := os.Getenv(name); v != "" {
					env.Setenv(name, v)
				} else if home, err := os.UserHomeDir(); err == nil {
					env.Setenv(name, filepath.Join(home, dir))
				}
			}
			// The package managers, build systems and test runners the
			// scripts drive that make test installs pinned
			// (scripts/install-pnpm, install-yarn, install-turbo,
			// install-nx, install-jest, install-vitest), on PATH under
			// their names.
			if toolBin != "" {
				env.Setenv("PATH", toolBin+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			if yarn1Bin != "" {
				// Not YARN_…: Yarn berry reads such variables as its
				// config, and refuses one it does not know.
				env.Setenv("CLASSIC_YARN_BIN", yarn1Bin)
			}
			// Nx runs only from a project's node_modules: the scripts
			// link the installed package there (nx_workspace.txtar).
			if nx := os.Getenv("DONEGATE_NX"); nx != "" {
				env.Setenv("NX_PACKAGE", filepath.Dir(filepath.Dir(filepath.Dir(nx))))
			}
			// Jest and Vitest run from a project's node_modules too: the
			// scripts link it to the installed one (tests_ran_jest.txtar,
			// tests_ran_vitest.txtar). DONEGATE_JEST is its bin/jest.js,
			// DONEGATE_VITEST its vitest.mjs.
			if jest := os.Getenv("DONEGATE_JEST"); jest != "" {
				env.Setenv("JEST_MODULES", filepath.Dir(filepath.Dir(filepath.Dir(jest))))
			}
			if vitest := os.Getenv("DONEGATE_VITEST"); vitest != "" {
				env.Setenv("VITEST_MODULES", filepath.Dir(filepath.Dir(vitest)))
			}
			return os.MkdirAll(env.WorkDir+"/home", 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":   cmdExits,
			"expand":  cmdExpand,
			"sleep":   cmdSleep,
			"waitfor": cmdWaitFor,
		},
	})
}

// cmdExits runs a command and checks its exact exit code: `! exec` cannot
// tell 1 (a hook's non-blocking error) from 2 (Claude Code's "block").
//
//	exits CODE PROG [ARGS...]
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROG [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("%s: %v", args[1], err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}

// cmdExpand replaces $WORK and $NOW (RFC 3339) in files, so recorded
// events can name the paths of the script's work dir.
//
//	expand FILE...
func cmdExpand(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: expand FILE...")
	}
	for _, f := range args {
		data := ts.ReadFile(f)
		data = strings.ReplaceAll(data, "$WORK", ts.Getenv("WORK"))
		data = strings.ReplaceAll(data, "$NOW", time.Now().UTC().Format(time.RFC3339))
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(data), 0o644))
	}
}

// cmdSleep waits, for limits measured in wall time.
//
//	sleep DURATION
func cmdSleep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sleep DURATION")
	}
	d, err := time.ParseDuration(args[0])
	ts.Check(err)
	time.Sleep(d)
}

// cmdWaitFor waits until a file exists (up to 60 s): a command started in
// the background has got that far.
func cmdWaitFor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfor FILE")
	}
	path := ts.MkAbs(args[0])
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("%s: still missing after a minute", args[0])
		}
	}
}
