package checkers_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
)

const (
	goCalc     = "package calc\n\nfunc Add(a, b int) int { return a + b }\n\nfunc Sub(a, b int) int { return a - b }\n"
	goCalcTest = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\nfunc TestSub(t *testing.T) {\n\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n"
	goEnvTest  = "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestNeedsDocker(t *testing.T) {\n\tif os.Getenv(\"DOCKER_HOST\") == \"\" {\n\t\tt.Skip(\"no docker\")\n\t}\n}\n"
)

// TestGoDodgesHeld: the ways to make a Go test not run while go test
// passes, each tried on a detected `go test ./...` (judged by the
// runner's report, see checkers/gotests.go) and on the same command named
// by a config (the diff rules alone): held says what the detected command
// does, diffRules what the diff rules alone do. The ones no rule holds
// are in docs/security.md.
func TestGoDodgesHeld(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs go")
	}
	base := map[string]string{"go.mod": "module example.com/calc\n\ngo 1.21\n", "calc.go": goCalc, "calc_test.go": goCalcTest, "env_test.go": goEnvTest}
	cases := []struct {
		name      string
		change    func(t *testing.T, dir string)
		env       []string
		held      bool
		diffRules bool
		want      string
	}{
		{name: "nothing changed", change: func(*testing.T, string) {}},
		{name: "a new test", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "more_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestMore(t *testing.T) {}\n")
		}},
		{name: "a test moved to a package of its own", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", swap(goCalcTest, "\nfunc TestSub(t *testing.T) {\n\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n", ""))
			writeFile(t, dir, "sub/sub_test.go", "package sub\n\nimport (\n\t\"testing\"\n\n\t\"example.com/calc\"\n)\n\nfunc TestSub(t *testing.T) {\n\tif calc.Sub(5, 3) != 2 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n")
		}},
		{name: "t.Skip", held: true, diffRules: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", swap(goCalcTest, "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\tt.Skip(\"later\")\n"))
		}, want: "(TestSub): adds t.Skip"},
		{name: "a skip through a method value", held: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", swap(goCalcTest, "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\tlater := t.SkipNow\n\tlater()\n"))
		}, want: "calc_test.go:11 (TestSub): is skipped now; at the session's start it ran and passed"},
		{name: "a skip in a helper of a non-test file", held: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", swap(goCalcTest, "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\tpending(t)\n"))
			writeFile(t, dir, "helpers.go", "package calc\n\nimport \"testing\"\n\nfunc pending(tb testing.TB) { tb.SkipNow() }\n")
		}, want: "(TestSub): is skipped now"},
		{name: "a skip through testing.TB", held: true, diffRules: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", swap(goCalcTest, "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\tvar tb testing.TB = t\n\ttb.Skip()\n"))
		}, want: "(TestSub)"},
		{name: "a TestMain that exits 0", held: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "main_test.go", "package calc\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n")
		}, want: "calc_test.go:11 (TestSub): no longer runs: `go test -json` reports no result for it in example.com/calc"},
		{name: "an init that exits 0", held: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "init_test.go", "package calc\n\nimport \"os\"\n\nfunc init() { os.Exit(0) }\n")
		}, want: "(TestAdd): no longer runs"},
		{name: "a build tag", held: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", "//go:build never\n\n"+goCalcTest)
		}, want: "(TestSub): no longer runs"},
		{name: "renamed for another GOOS", held: true, change: func(t *testing.T, dir string) {
			gitIn(t, dir, "mv", "calc_test.go", "calc_plan9_test.go")
		}, want: "calc_test.go:11 (TestSub): no longer runs"},
		{name: "renamed to a non-test name", held: true, diffRules: true, change: func(t *testing.T, dir string) {
			gitIn(t, dir, "mv", "calc_test.go", "calc_cases.go")
		}, want: "(TestSub): no longer runs"},
		{name: "moved into testdata", held: true, change: func(t *testing.T, dir string) {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "testdata"), 0o755))
			gitIn(t, dir, "mv", "calc_test.go", "testdata/calc_test.go")
		}, want: "(TestSub): no longer runs"},
		{name: "renamed to a name go test does not run", held: true, diffRules: true, change: func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", swap(goCalcTest, "func TestSub(", "func testSub("))
		}, want: "(TestSub): deletes the test"},
		{name: "a -run flag from the environment and Sub broken", held: true, env: []string{"GOFLAGS=-run=^TestAdd$"}, change: func(t *testing.T, dir string) {
			// go env -w GOFLAGS=... from the agent's shell reaches the hook
			writeFile(t, dir, "calc.go", swap(goCalc, "a - b", "a + b"))
		}, want: "(TestSub): no longer runs"},
		// Not held: what ran passed. The report says which tests ran, not
		// what they asserted.
		{name: "an early return", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", swap(goCalcTest, "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\tif true {\n\t\treturn\n\t}\n"))
		}},
		{name: "a skipped subtest", change: func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", swap(goCalcTest, "\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(\"sub\")\n\t}\n", "\tt.Run(\"five\", func(t *testing.T) {\n\t\tlater := t.SkipNow\n\t\tlater()\n\t})\n"))
		}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			dir := gitRepo(t, base)
			state := t.TempDir()
			// The baseline is recorded at the session's first check, before
			// the change and before the environment's flag.
			require.True(t, checkWith(t, dir, state, nil, "").Complete)
			tt.change(t, dir)
			r := checkWith(t, dir, state, tt.env, "")
			assert.Equal(t, tt.held, !r.Complete, r.Feedback)
			if tt.held {
				assert.Equal(t, "tests-weakened", r.Pattern)
				assert.Contains(t, r.Feedback, tt.want)
			}
			// A config's own command, not the one detected (which a
			// config that names it runs as detected): the diff rules alone.
			diff := checkWith(t, dir, state, tt.env, "go test -count=1 ./...")
			assert.Equal(t, tt.diffRules, !diff.Complete, "the diff rules alone: %s", diff.Feedback)
		})
	}
}

// checkWith runs a test checker of command ("" detected) in dir for
// session s1.
func checkWith(t *testing.T, dir, state string, env []string, command string) checkers.Result {
	t.Helper()
	c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, StateDir: state, CacheDir: filepath.Join(state, "results"), Budget: time.Minute,
		Env: append([]string{"GOFLAGS=", "GOTOOLCHAIN=local"}, env...)}
	r, err := checkers.Test{Command: command, Cache: true}.Check(context.Background(), c)
	require.NoError(t, err)
	return r
}
