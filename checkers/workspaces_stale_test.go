package checkers_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
)

// TestNeverAStaleWorkspaceResult changes a workspace at random, step after
// step: a package's value made good or bad, its declared dependencies
// changed, and edges its manifest does not name added or dropped in each
// form a test reaches another package — in an npm workspace a relative
// require, an import by the package's name, path.join with '..' pieces,
// a tsconfig alias; in a uv workspace an import of the member's module,
// a from-import, importlib's import_module, os.path.join with '..'
// pieces. A package's test (a fake npm or pytest) fails when a package
// it reads holds a bad value (its own does not count: its own change
// reruns it anyway). After each step the test check, run package by
// package through the result cache, must answer what a run of every
// package answers: a reused result is never stale.
func TestNeverAStaleWorkspaceResult(t *testing.T) {
	for _, kind := range staleKinds {
		t.Run(kind.name, func(t *testing.T) { neverAStaleResult(t, kind) })
	}
}

// A staleKind is a workspace kind TestNeverAStaleWorkspaceResult runs:
// its root files; its fake test program, whose script reads the names of
// the packages one reads from TRUTH/NAME, and the pattern of its command
// in a failure; the forms of an undeclared edge; and the files of package
// name that declare deps and read hidden (package name → form).
type staleKind struct {
	name            string
	root            map[string]string
	program, script string
	failing         *regexp.Regexp
	forms           []string
	write           func(t *testing.T, pkg, name string, deps []string, hidden map[string]string)
}

var staleKinds = []staleKind{
	{
		name:    "npm",
		root:    map[string]string{"package.json": `{"private":true,"workspaces":["packages/*"],"scripts":{"test":"npm test --workspaces --if-present"}}`},
		program: "npm",
		// `npm test --workspace=NAME --if-present`
		script: `#!/bin/sh
for a; do case $a in --workspace=*) name=${a#--workspace=};; esac; done
[ -n "$name" ] || { echo "whole run: not expected here" >&2; exit 2; }
for p in $(cat "TRUTH/$name"); do
	grep -q bad "packages/$p/value" && { echo "$name: $p is bad"; exit 1; }
done
exit 0
`,
		failing: regexp.MustCompile(`--workspace=(p\d)`),
		forms:   []string{"require", "name", "pieces", "alias"},
		write: func(t *testing.T, pkg, name string, deps []string, hidden map[string]string) {
			var declared, body, tsPaths []string
			for _, d := range deps {
				declared = append(declared, fmt.Sprintf("%q: \"*\"", d))
			}
			for _, j := range slices.Sorted(maps.Keys(hidden)) {
				switch hidden[j] {
				case "require":
					body = append(body, fmt.Sprintf("require('../%s/value')", j))
				case "name":
					body = append(body, fmt.Sprintf("require(%q)", j))
				case "pieces":
					body = append(body, fmt.Sprintf("fs.readFileSync(path.join(__dirname, '..', %q, 'value'))", j))
				case "alias":
					tsPaths = append(tsPaths, fmt.Sprintf(`"~%s/*": ["../%s/*"]`, j, j))
					body = append(body, fmt.Sprintf("import v from '~%s/value'", j))
				}
			}
			require.NoError(t, os.WriteFile(filepath.Join(pkg, "package.json"), fmt.Appendf(nil, `{"name":%q,"dependencies":{%s},"scripts":{"test":"x"}}`, name, strings.Join(declared, ",")), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(pkg, "test.js"), []byte(strings.Join(body, "\n")+"\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(pkg, "tsconfig.json"), fmt.Appendf(nil, `{"compilerOptions": {"paths": {%s}}}`, strings.Join(tsPaths, ",")), 0o644))
		},
	},
	{
		name:    "uv",
		root:    map[string]string{"pyproject.toml": "[tool.uv.workspace]\nmembers = [\"packages/*\"]\n"},
		program: "pytest",
		// `pytest --rootdir=. -c pyproject.toml packages/NAME`
		script: `#!/bin/sh
for a; do case $a in packages/*) name=${a#packages/};; esac; done
[ -n "$name" ] || { echo "whole run: not expected here" >&2; exit 2; }
for p in $(cat "TRUTH/$name"); do
	grep -q bad "packages/$p/value" && { echo "$name: $p is bad"; exit 1; }
done
exit 0
`,
		failing: regexp.MustCompile(`-c pyproject\.toml packages/(p\d)`),
		forms:   []string{"import", "from", "import_module", "pieces"},
		write: func(t *testing.T, pkg, name string, deps []string, hidden map[string]string) {
			var declared, body []string
			for _, d := range deps {
				declared = append(declared, fmt.Sprintf("%q", d))
			}
			for _, j := range slices.Sorted(maps.Keys(hidden)) {
				switch hidden[j] {
				case "import":
					body = append(body, "import "+j)
				case "from":
					body = append(body, fmt.Sprintf("from %s import value", j))
				case "import_module":
					body = append(body, fmt.Sprintf("m = importlib.import_module(%q)", j))
				case "pieces":
					body = append(body, fmt.Sprintf("open(os.path.join(os.path.dirname(__file__), '..', '..', %q, 'value'))", j))
				}
			}
			require.NoError(t, os.WriteFile(filepath.Join(pkg, "pyproject.toml"), fmt.Appendf(nil, "[project]\nname = %q\ndependencies = [%s]\n", name, strings.Join(declared, ", ")), 0o644))
			require.NoError(t, os.MkdirAll(filepath.Join(pkg, "tests"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(pkg, "tests", "test_"+name+".py"), []byte(strings.Join(body, "\n")+"\n"), 0o644))
			require.NoError(t, os.MkdirAll(filepath.Join(pkg, "src", name), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(pkg, "src", name, "__init__.py"), []byte("value = 1\n"), 0o644))
		},
	},
}

func neverAStaleResult(t *testing.T, kind staleKind) {
	needSh(t)
	const n = 5
	files := maps.Clone(kind.root)
	name := func(i int) string { return fmt.Sprintf("p%d", i) }
	for i := range n {
		files["packages/"+name(i)+"/value"] = "good"
	}
	dir := gitRepo(t, files)
	// reads[i] are the packages i's test reads: declared and not.
	declared := make([]map[int]bool, n)
	hidden := make([]map[int]string, n) // the form of each edge not declared
	for i := range n {
		declared[i], hidden[i] = map[int]bool{}, map[int]string{}
	}
	truth := t.TempDir()
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, kind.program), []byte(strings.ReplaceAll(kind.script, "TRUTH", truth)), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	forms := kind.forms
	write := func(i int) {
		var deps []string
		reads := map[string]string{}
		for j := range n {
			if declared[i][j] {
				deps = append(deps, name(j))
			}
			if hidden[i][j] != "" {
				reads[name(j)] = hidden[i][j]
			}
		}
		kind.write(t, filepath.Join(dir, "packages", name(i)), name(i), deps, reads)
		var all []string
		for j := range n {
			if declared[i][j] || hidden[i][j] != "" {
				all = append(all, name(j))
			}
		}
		require.NoError(t, os.WriteFile(filepath.Join(truth, name(i)), []byte(strings.Join(all, " ")), 0o644))
	}
	for i := range n {
		write(i)
	}
	// fails says whether package i's test fails now.
	fails := func(i int) bool {
		for j := range n {
			if !declared[i][j] && hidden[i][j] == "" {
				continue
			}
			data, err := os.ReadFile(filepath.Join(dir, "packages", name(j), "value"))
			require.NoError(t, err)
			if strings.Contains(string(data), "bad") {
				return true
			}
		}
		return false
	}
	failing := kind.failing
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>9))
	cache := t.TempDir()
	reused := 0
	// Sessions begin now and then (inSession): a stop then answers for
	// the packages the session touched and those that read them; touched
	// is what the steps since its start wrote.
	var session *checkers.SessionStart
	sessions := 0
	touched := map[int]bool{}
	for step := range 120 {
		if rng.IntN(12) == 0 {
			sessions++
			session = &checkers.SessionStart{At: time.Now(), Head: gitIn(t, dir, "rev-parse", "HEAD")}
			touched = map[int]bool{}
			time.Sleep(20 * time.Millisecond) // what follows is after the start, by the file system's clock
		}
		i, j := rng.IntN(n), rng.IntN(n)
		var what string
		switch k := rng.IntN(6); {
		case k < 2:
			v := []string{"good", "bad", "good\n", "good "}[rng.IntN(4)]
			require.NoError(t, os.WriteFile(filepath.Join(dir, "packages", name(j), "value"), []byte(v), 0o644))
			what = fmt.Sprintf("%s's value: %q", name(j), v)
			touched[j] = true
		case k == 2 && i != j:
			declared[i][j] = !declared[i][j]
			write(i)
			what = fmt.Sprintf("%s declares %s: %v", name(i), name(j), declared[i][j])
			touched[i] = true
		case i != j:
			if hidden[i][j] != "" {
				hidden[i][j] = ""
			} else {
				hidden[i][j] = forms[rng.IntN(len(forms))]
			}
			write(i)
			what = fmt.Sprintf("%s reads %s by %q", name(i), name(j), hidden[i][j])
			touched[i] = true
		default:
			what = "nothing"
		}
		c := &checkers.Context{Event: &hookio.Event{SessionID: fmt.Sprint("s", sessions)}, ProjectDir: dir, CacheDir: cache, Budget: time.Minute, Since: session}
		r, err := checkers.Test{Cache: true}.Check(context.Background(), c)
		require.NoError(t, err)
		// mine says whether package i is the session's work: it touched
		// i, or a package i reads. Without a session, every one is.
		mine := func(i int) bool {
			if session == nil || touched[i] {
				return true
			}
			for j := range n {
				if touched[j] && (declared[i][j] || hidden[i][j] != "") {
					return true
				}
			}
			return false
		}
		// A pass: no package of the session's work fails. A failure: the
		// package it names fails now (the check stops at the first).
		if r.Complete {
			for i := range n {
				require.False(t, mine(i) && fails(i), "step %d (%s), seed %d: %s passed, but %s fails now", step, what, seed, r.Feedback, name(i))
			}
		} else {
			m := failing.FindStringSubmatch(r.Feedback)
			require.NotNil(t, m, r.Feedback)
			var i int
			_, err := fmt.Sscanf(m[1], "p%d", &i)
			require.NoError(t, err)
			require.True(t, fails(i), "step %d (%s), seed %d: %s failed, but %s passes now", step, what, seed, r.Feedback, name(i))
		}
		if strings.Contains(r.Feedback, "reused") {
			reused++
		}
		if step%10 == 9 && rng.IntN(2) == 0 {
			gitIn(t, dir, "add", "-A")
			gitIn(t, dir, "commit", "-q", "-m", "step")
		}
	}
	require.Positive(t, reused, "no step reused a result (seed %d)", seed)
}
