package treecache_test

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/treecache"
)

// tick is longer than the file system clock's tick (4 ms at HZ=250, 10
// ms at HZ=100): a change after it has a change time of its own. The
// snapshot's racy rule is what covers changes within a tick in real use;
// the tests move the clock past it (PretendLater) to reach the snapshot
// at all, so they wait a tick between a look and the next change instead.
const tick = 25 * time.Millisecond

// The snapshot answers the third look at an unchanged tree without git
// (the first says what git ignores, the second makes the snapshot), and
// git is asked wherever the walk cannot vouch for its answer.
func TestSnapshotAnswersWhereNothingChanged(t *testing.T) {
	needGit(t)
	if runtime.GOOS != "linux" {
		t.Skip("snapshots are made on Linux only")
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, base string)
		// gitRuns is how many of five looks start git status.
		gitRuns int
	}{
		{name: "a clean tree", gitRuns: 2},
		{
			name: "a dirty tree, with an ignored directory",
			setup: func(t *testing.T, base string) {
				write(t, base, ".gitignore", "build/\n")
				write(t, base, "build/out/a.o", "o")
				write(t, base, "a.go", "package a // edited\n")
				write(t, base, "new.go", "package a\n")
			},
			gitRuns: 2,
		},
		{
			name: "a nested repository",
			setup: func(t *testing.T, base string) {
				repo(t, filepath.Join(base, "vendor", "lib"), map[string]string{"l.go": "package l\n"})
			},
			gitRuns: 5,
		},
		{
			name:    "config that includes other config",
			setup:   func(t *testing.T, base string) { gitc(t, base, "config", "include.path", "/nonexistent/extra") },
			gitRuns: 5,
		},
		{
			name: "a .gitignore that is a link",
			setup: func(t *testing.T, base string) {
				write(t, base, "ignores", "*.log\n")
				require.NoError(t, os.Symlink("ignores", filepath.Join(base, ".gitignore")))
			},
			gitRuns: 5,
		},
		{
			name:    "a variable that names another index",
			setup:   func(t *testing.T, base string) { t.Setenv("GIT_INDEX_FILE", filepath.Join(base, ".git", "index")) },
			gitRuns: 5,
		},
		{
			name:    "variables that leave git's answer as it is",
			setup:   func(t *testing.T, base string) { t.Setenv("GIT_AUTHOR_NAME", "A"); t.Setenv("GIT_SSL_CAINFO", "/x") },
			gitRuns: 2,
		},
		{
			name: "a tree over the walk's bound",
			setup: func(t *testing.T, base string) {
				treecache.MaxWalkFiles(t, 3)
				for i := range 5 {
					write(t, base, fmt.Sprintf("f%d.go", i), "package a\n")
				}
			},
			gitRuns: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := countingGit(t)
			treecache.PretendLater(t, 3*time.Second)
			base := t.TempDir()
			repo(t, base, map[string]string{"a.go": "package a\n", "sub/b.go": "package b\n"})
			if tt.setup != nil {
				tt.setup(t, base)
			}
			want, err := treecache.ReadStatus(context.Background(), base)
			require.NoError(t, err)
			got, gitRuns := looks(t, runs, treecache.Cache{Dir: t.TempDir()}, base, 5)
			for _, st := range got {
				assert.Equal(t, want.Head, st.Head)
				assert.Equal(t, string(want.Porcelain), string(st.Porcelain))
			}
			assert.Equal(t, tt.gitRuns, gitRuns)
		})
	}
}

// looks takes n looks at the tree at dir through cache, and returns them
// with how many git status processes the counting git at runs started
// for them (0 with runs "").
func looks(t *testing.T, runs string, cache treecache.Cache, dir string, n int) ([]*treecache.Status, int) {
	t.Helper()
	before := 0
	if runs != "" {
		before = statusRuns(t, runs)
	}
	var got []*treecache.Status
	for range n {
		st, err := cache.ReadStatus(context.Background(), dir)
		require.NoError(t, err)
		got = append(got, st)
	}
	if runs == "" {
		return got, 0
	}
	return got, statusRuns(t, runs) - before
}

// A file changed less than the racy margin before a walk may change again
// within the clock's tick and keep its metadata: no snapshot stands on it,
// and git is asked at every look until the tree has been still that long.
// The clock is moved back, so that every file reads as just changed
// however long the looks take on a loaded machine.
func TestSnapshotWaitsForRacyFiles(t *testing.T) {
	needGit(t)
	runs := countingGit(t)
	base := t.TempDir()
	repo(t, base, map[string]string{"a.go": "package a\n"})
	treecache.PretendLater(t, -time.Hour)
	_, gitRuns := looks(t, runs, treecache.Cache{Dir: t.TempDir()}, base, 3)
	assert.Equal(t, 3, gitRuns)
}

// Where the file system keeps fractions of a second, a tenth of a second
// of stillness is enough (fineRacyMargin): an early start's look after its
// run leaves the snapshot its stop, a second after the edit, can use.
func TestSnapshotAfterAFractionOfASecond(t *testing.T) {
	needGit(t)
	if runtime.GOOS != "linux" {
		t.Skip("snapshots are made on Linux only")
	}
	runs := countingGit(t)
	base := t.TempDir()
	repo(t, base, map[string]string{"a.go": "package a\n"})
	write(t, base, "a.go", "package a // edited\n")
	info, err := os.Stat(filepath.Join(base, "a.go"))
	require.NoError(t, err)
	if info.ModTime().Nanosecond() == 0 {
		t.Skip("the file system keeps whole seconds")
	}
	time.Sleep(100 * time.Millisecond)
	_, gitRuns := looks(t, runs, treecache.Cache{Dir: t.TempDir()}, base, 3)
	assert.Equal(t, 2, gitRuns)
}

// A read-only cache (closer explain) uses a snapshot and never writes one.
func TestSnapshotReadOnly(t *testing.T) {
	needGit(t)
	treecache.PretendLater(t, 3*time.Second)
	base := t.TempDir()
	repo(t, base, map[string]string{"a.go": "package a\n"})
	dir := t.TempDir()
	looks(t, "", treecache.Cache{Dir: dir, ReadOnly: true}, base, 3)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// The snapshot never answers other than git would: random changes to a
// work tree (content rewritten with the same size and modification time,
// files created, removed, renamed, chmodded, replaced by links, ignored and
// no longer ignored, staged, committed, a nested repository), each look
// through the snapshot compared with git's own. Set DONEGATE_SNAPSHOT_SEED
// to replay a run; DONEGATE_SNAPSHOT_ROUNDS for more rounds.
func TestSnapshotNeverAnswersStale(t *testing.T) {
	needGit(t)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("DONEGATE_SNAPSHOT_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err)
	}
	rounds := 60
	if s := os.Getenv("DONEGATE_SNAPSHOT_ROUNDS"); s != "" {
		var err error
		rounds, err = strconv.Atoi(s)
		require.NoError(t, err)
	}
	t.Logf("DONEGATE_SNAPSHOT_SEED=%d", seed)
	// With the clock moved past the racy margin, every look may make a
	// snapshot and the change time alone must tell each change: a tick
	// between a look and the next change. With the real clock, changes
	// follow looks at once or after up to 80 ms, around fineRacyMargin:
	// the racy rule must tell the rest.
	for _, pretend := range []bool{true, false} {
		t.Run(fmt.Sprintf("pretend later %v", pretend), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 0))
			if pretend {
				treecache.PretendLater(t, 3*time.Second)
			}
			answered := neverStale(t, rng, rounds, func() {
				if pretend {
					time.Sleep(tick)
				} else {
					time.Sleep(time.Duration(rng.IntN(80)) * time.Millisecond)
				}
			})
			if pretend && runtime.GOOS == "linux" {
				assert.Greater(t, answered, int64(rounds/20), "the snapshot answered too seldom to have been tested")
			}
		})
	}
}

// neverStale changes a work tree at random for rounds, waiting between
// a round's looks and the next changes, and requires every look through
// a snapshot to be git's own. It returns how many the snapshot answered.
func neverStale(t *testing.T, rng *rand.Rand, rounds int, wait func()) int64 {
	t.Helper()
	base := t.TempDir()
	repo(t, base, map[string]string{
		".gitignore": "build/\n*.log\n",
		"a.go":       "package a\n", "b.go": "package a // b\n",
		"sub/c.go": "package sub\n", "sub/deep/d.go": "package deep\n",
		"docs/readme.md": "# docs\n",
	})
	write(t, base, "build/out/a.o", "object")
	write(t, base, "untracked.txt", "u\n")
	cache := treecache.Cache{Dir: t.TempDir()}
	answered := treecache.SnapshotAnswers()
	var done []string
	for round := range rounds {
		// A third of the rounds change nothing, so the snapshot answers.
		if rng.IntN(3) > 0 {
			for range 1 + rng.IntN(2) {
				done = append(done, fmt.Sprintf("%d: %s", round, mutate(t, rng, base, round)))
			}
		}
		// Asked from the top and, every other round, from a subdirectory.
		for _, dir := range []string{base, filepath.Join(base, "sub")}[:1+round%2] {
			got, err := cache.ReadStatus(context.Background(), dir)
			require.NoError(t, err)
			want, err := treecache.ReadStatus(context.Background(), dir)
			require.NoError(t, err)
			require.Equal(t, want.Head, got.Head, "HEAD after\n%s", strings.Join(done, "\n"))
			require.Equal(t, string(want.Porcelain), string(got.Porcelain), "status after\n%s", strings.Join(done, "\n"))
		}
		wait()
	}
	n := treecache.SnapshotAnswers() - answered
	t.Logf("the snapshot answered %d looks", n)
	return n
}

// mutate makes one random change to the work tree at base and says what.
func mutate(t *testing.T, rng *rand.Rand, base string, round int) string {
	t.Helper()
	var files, dirs []string
	require.NoError(t, filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		rel, _ := filepath.Rel(base, p)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			dirs = append(dirs, rel)
		case d.Type().IsRegular():
			files = append(files, rel)
		}
		return nil
	}))
	pick := func(list []string) string { return list[rng.IntN(len(list))] }
	// A nested repository and a linked .gitignore stop all snapshots:
	// they do not stay long.
	if nested := filepath.Join(base, "sub", "nested"); rng.IntN(2) == 0 {
		if _, err := os.Stat(nested); err == nil {
			require.NoError(t, os.RemoveAll(nested))
			return "removed the nested repository"
		}
	}
	if ignore := filepath.Join(base, ".gitignore"); rng.IntN(2) == 0 {
		if info, err := os.Lstat(ignore); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			require.NoError(t, os.Remove(ignore))
			write(t, base, ".gitignore", "build/\n*.log\n")
			return "made .gitignore a file again"
		}
	}
	if len(files) == 0 {
		write(t, base, "again.go", "package a\n")
		return "created again.go"
	}
	file := pick(files)
	abs := filepath.Join(base, file)
	switch rng.IntN(19) {
	case 0, 1, 17, 18:
		// The change the stat data must see though the size and the
		// modification time stay: only the change time moves.
		info, err := os.Stat(abs)
		if err != nil || info.Size() == 0 {
			return "nothing"
		}
		data, err := os.ReadFile(abs)
		require.NoError(t, err)
		data[rng.IntN(len(data))] ^= 1
		require.NoError(t, os.WriteFile(abs, data, info.Mode().Perm()))
		require.NoError(t, os.Chtimes(abs, info.ModTime(), info.ModTime()))
		return "rewrote " + file + " with the same size and mtime"
	case 2:
		f, err := os.OpenFile(abs, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString("// more\n")
		require.NoError(t, firstErr(err, f.Close()))
		return "appended to " + file
	case 3:
		name := filepath.Join(pick(dirs), fmt.Sprintf("new%d.txt", round))
		write(t, base, name, "new\n")
		return "created " + name
	case 4:
		name := filepath.Join(pick(dirs), fmt.Sprintf("trace%d.log", round))
		write(t, base, name, "log\n")
		return "created ignored " + name
	case 5:
		name := filepath.Join("build", "out", fmt.Sprintf("o%d.o", round))
		write(t, base, name, "o\n")
		return "created " + name + " in the ignored build/"
	case 6:
		require.NoError(t, os.Remove(abs))
		return "removed " + file
	case 7:
		if d := pick(dirs); d != "." && !strings.HasPrefix(d, "sub") && rng.IntN(2) == 0 {
			to := fmt.Sprintf("%s%d", d, round)
			require.NoError(t, os.Rename(filepath.Join(base, d), filepath.Join(base, to)))
			return "renamed the directory " + d + " to " + to
		}
		to := filepath.Join(pick(dirs), fmt.Sprintf("moved%d.go", round))
		require.NoError(t, os.Rename(abs, filepath.Join(base, to)))
		return "renamed " + file + " to " + to
	case 8:
		info, err := os.Stat(abs)
		require.NoError(t, err)
		require.NoError(t, os.Chmod(abs, info.Mode().Perm()^0o111))
		return "chmodded " + file
	case 9:
		require.NoError(t, os.Remove(abs))
		require.NoError(t, os.Symlink(pick(files), abs))
		return "replaced " + file + " by a link"
	case 10:
		patterns := []string{"new*.txt\n", "!build/\n", "sub/\n", "*.go\n", "moved*\n"}
		p := pick(patterns)
		if rng.IntN(2) == 0 {
			require.NoError(t, os.RemoveAll(filepath.Join(base, ".gitignore")))
			write(t, base, ".gitignore", p)
			return "set .gitignore to " + strings.TrimSpace(p)
		}
		f, err := os.OpenFile(filepath.Join(base, ".git", "info", "exclude"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
		require.NoError(t, err)
		_, err = f.WriteString(p)
		require.NoError(t, firstErr(err, f.Close()))
		return "excluded " + strings.TrimSpace(p)
	case 11:
		gitc(t, base, "add", "-A")
		return "git add -A"
	case 12:
		gitc(t, base, "add", "-A")
		gitc(t, base, "commit", "-q", "--allow-empty", "-m", fmt.Sprint(round))
		return "git commit"
	case 13:
		gitc(t, base, "checkout", "-q", "-B", fmt.Sprintf("b%d", round))
		return "git checkout -B"
	case 14:
		nested := filepath.Join(base, "sub", "nested")
		if _, err := os.Stat(nested); err == nil {
			require.NoError(t, os.RemoveAll(nested))
			return "removed the nested repository"
		}
		repo(t, nested, map[string]string{"n.go": "package n\n"})
		return "made a nested repository"
	case 15:
		if _, err := os.Stat(filepath.Join(base, "build")); err == nil && rng.IntN(2) == 0 {
			gitc(t, base, "add", "-f", "build")
			return "git add -f build"
		}
		name := fmt.Sprintf("empty%d", round)
		dir := filepath.Join(base, pick(dirs), name)
		if _, err := os.Lstat(dir); err == nil {
			// A round makes up to two changes, and both may be this one.
			return "kept the directory " + name
		}
		require.NoError(t, os.Mkdir(dir, 0o755))
		return "made an empty directory " + name
	default:
		now := time.Now()
		require.NoError(t, os.Chtimes(abs, now, now))
		return "touched " + file
	}
}

// firstErr returns the first error that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// A look whose context has ended says so, snapshot or not: the caller
// then runs its command uncached instead of waiting.
func TestSnapshotLookEndsWithItsContext(t *testing.T) {
	needGit(t)
	treecache.PretendLater(t, 3*time.Second)
	base := t.TempDir()
	repo(t, base, map[string]string{"a.go": "package a\n"})
	cache := treecache.Cache{Dir: t.TempDir()}
	for range 2 {
		_, err := cache.ReadStatus(context.Background(), base)
		require.NoError(t, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := cache.ReadStatus(ctx, base)
	require.ErrorIs(t, err, context.Canceled)
}
