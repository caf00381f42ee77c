package treecache_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/treecache"
)

// TestNeverAStaleResult changes a tree at random, step after step, the
// way agents and tools do — sources written (sometimes with the same
// bytes), deleted, made executable, linked; a check's by-products
// written; packages installed and removed; files git ignores written;
// commits — and after each step compares what a result cache keyed on
// the state would answer with a fresh run. The run's answer depends on
// everything a result may depend on: each source's path, mode and
// content, and what is installed (the packages' names and the package
// manager's record). Whenever the state is one seen before, the answer
// remembered for it must be the fresh one: a reused result is never
// stale. And by-products must not keep a result from being reused: the
// test fails if no step reused one.
func TestNeverAStaleResult(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, inGit := range []bool{true, false} {
		name := "outside git"
		if inGit {
			name = "in git"
		}
		t.Run(name, func(t *testing.T) {
			seed := uint64(time.Now().UnixNano())
			t.Logf("seed %d", seed)
			rng := rand.New(rand.NewPCG(seed, seed>>7))
			tr := &randomTree{t: t, dir: t.TempDir(), rng: rng, git: inGit}
			tr.init()
			cache := treecache.Cache{Dir: t.TempDir()}
			if !inGit {
				// Outside git a file counts by its metadata once it has
				// been still for 2 s; each step gives what it wrote a
				// time of its own (see touch), as a clock moving on
				// would.
				treecache.PretendLater(t, time.Hour)
			}
			seen := map[string]string{}
			reused := 0
			for step := range 150 {
				what := tr.change(step)
				s, err := cache.State(context.Background(), tr.dir)
				require.NoError(t, err, "step %d (%s)", step, what)
				fresh := tr.run()
				if old, ok := seen[s]; ok {
					require.Equal(t, old, fresh, "step %d (%s): the state is one seen before, but a fresh run answers otherwise: a reused result would be stale (seed %d)", step, what, seed)
					reused++
				}
				seen[s] = fresh
			}
			require.Positive(t, reused, "no step reused a result: by-products voided every one (seed %d)", seed)
			t.Logf("%d of 150 steps would reuse a result", reused)
		})
	}
}

// randomTree is a project changed at random.
type randomTree struct {
	t     *testing.T
	dir   string
	rng   *rand.Rand
	git   bool
	clock time.Time // the time each step gives what it writes (outside git)
	pkgs  []string  // installed packages
}

var (
	sources    = []string{"a.txt", "b.txt", "src/c.txt", "src/deep/d.txt", "e.sh"}
	byproducts = []string{"__pycache__/m.cpython-312.pyc", "src/__pycache__/n.pyc", ".pytest_cache/v/cache/lastfailed",
		"target/debug/app", "node_modules/.cache/babel/x.json", ".coverage", "src/x.pyc", ".mypy_cache/3.12/a.json"}
	packages = []string{"left-pad", "@scope/util", "lodash"}
)

func (tr *randomTree) init() {
	tr.clock = time.Now().Add(-48 * time.Hour)
	write(tr.t, tr.dir, "Cargo.toml", "[package]\nname = \"app\"\n")
	write(tr.t, tr.dir, "a.txt", "1")
	tr.touch("Cargo.toml", "a.txt")
	if tr.git {
		write(tr.t, tr.dir, ".gitignore", "ignored/\nnode_modules/\n")
		run(tr.t, tr.dir, "git", "init", "-q")
		tr.commit()
	}
}

func (tr *randomTree) commit() {
	run(tr.t, tr.dir, "git", "add", "-A")
	run(tr.t, tr.dir, "git", "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "--allow-empty", "-m", "step")
}

// touch gives the files at rels this step's time, a second after the
// last step's (outside git, where metadata stands for content).
func (tr *randomTree) touch(rels ...string) {
	tr.clock = tr.clock.Add(time.Second)
	for _, rel := range rels {
		_ = os.Chtimes(filepath.Join(tr.dir, rel), tr.clock, tr.clock)
	}
}

// change makes one random change and says what it was.
func (tr *randomTree) change(step int) string {
	content := func() string { return fmt.Sprint(tr.rng.IntN(3)) } // often the same bytes again
	pick := func(list []string) string { return list[tr.rng.IntN(len(list))] }
	switch n := tr.rng.IntN(10); {
	case n < 3:
		f := pick(sources)
		write(tr.t, tr.dir, f, content())
		tr.touch(f)
		return "write " + f
	case n == 3:
		f := pick(sources)
		_ = os.Remove(filepath.Join(tr.dir, f))
		return "delete " + f
	case n == 4:
		f := pick(sources)
		p := filepath.Join(tr.dir, f)
		if fi, err := os.Stat(p); err == nil {
			require.NoError(tr.t, os.Chmod(p, fi.Mode().Perm()^0o100))
			tr.touch(f)
			return "chmod " + f
		}
		return "chmod of a missing file"
	case n == 5:
		f := pick(byproducts)
		write(tr.t, tr.dir, f, fmt.Sprint(step)) // new bytes every time
		tr.touch(f)
		return "by-product " + f
	case n == 6:
		p := pick(packages)
		if slices.Contains(tr.pkgs, p) {
			require.NoError(tr.t, os.RemoveAll(filepath.Join(tr.dir, "node_modules", p)))
			tr.pkgs = slices.DeleteFunc(tr.pkgs, func(s string) bool { return s == p })
		} else {
			write(tr.t, tr.dir, filepath.Join("node_modules", p, "index.js"), "module.exports = 1\n")
			tr.pkgs = append(tr.pkgs, p)
		}
		sort.Strings(tr.pkgs)
		write(tr.t, tr.dir, "node_modules/.package-lock.json", fmt.Sprintf(`{"packages":%q}`, tr.pkgs))
		tr.touch("node_modules/.package-lock.json", filepath.Join("node_modules", p, "index.js"))
		return "install or remove " + p
	case n == 7:
		write(tr.t, tr.dir, "ignored/out.log", fmt.Sprint(step))
		tr.touch("ignored/out.log")
		return "write ignored/out.log"
	case n == 8:
		link := filepath.Join(tr.dir, "src", "link")
		_ = os.Remove(link)
		require.NoError(tr.t, os.MkdirAll(filepath.Dir(link), 0o755))
		target := pick([]string{"../a.txt", "../b.txt"})
		require.NoError(tr.t, os.Symlink(target, link))
		return "link src/link to " + target
	default:
		if tr.git {
			tr.commit()
			return "commit"
		}
		return "nothing"
	}
}

// run is what a fresh run of the check answers: a digest of everything
// a result may depend on.
func (tr *randomTree) run() string {
	h := sha256.New()
	err := filepath.WalkDir(tr.dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(tr.t, err)
		rel, _ := filepath.Rel(tr.dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".git", rel == "node_modules", tr.git && rel == "ignored":
			return filepath.SkipDir
		case isByproduct(rel):
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		case d.IsDir():
			return nil
		}
		fi, err := os.Lstat(p)
		require.NoError(tr.t, err)
		fmt.Fprintf(h, "%s\x00%v\x00", rel, fi.Mode())
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			require.NoError(tr.t, err)
			fmt.Fprintf(h, "%s\x00", target)
		} else {
			data, err := os.ReadFile(p)
			require.NoError(tr.t, err)
			h.Write(data)
		}
		return nil
	})
	require.NoError(tr.t, err)
	lock, _ := os.ReadFile(filepath.Join(tr.dir, "node_modules", ".package-lock.json"))
	fmt.Fprintf(h, "installed %q %s", tr.pkgs, lock)
	return hex.EncodeToString(h.Sum(nil))
}

// isByproduct is the test's own list of what a check writes: written
// apart from the package's, so that the two can disagree.
func isByproduct(rel string) bool {
	for _, b := range []string{"__pycache__", ".pytest_cache", "target", ".mypy_cache"} {
		if rel == b || strings.HasPrefix(rel, b+"/") || strings.Contains(rel, "/"+b+"/") || strings.HasSuffix(rel, "/"+b) {
			return true
		}
	}
	return strings.HasSuffix(rel, ".pyc") || rel == ".coverage"
}
