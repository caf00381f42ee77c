package treecache_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/linktest"
	"github.com/donegate/donegate/internal/treecache"
)

func run(t testing.TB, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%v: %s", args, out)
}

func write(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

func state(t *testing.T, dir string) string {
	t.Helper()
	s, err := treecache.State(context.Background(), dir)
	require.NoError(t, err)
	return s
}

func TestStateInGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	write(t, dir, ".gitignore", "*.log\n")
	write(t, dir, "a.go", "package a\n")
	write(t, dir, "sub/b.go", "package b\n")

	// Each step changes the tree (true) or not (false).
	steps := []struct {
		name    string
		do      func()
		changes bool
	}{
		{"nothing", func() {}, false},
		{"commit", func() {
			run(t, dir, "git", "add", ".")
			run(t, dir, "git", "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "-m", "x")
		}, true},
		{"ignored file", func() { write(t, dir, "out.log", "x") }, false},
		{"edit tracked", func() { write(t, dir, "a.go", "package a // edited\n") }, true},
		{"edit the same file again", func() { write(t, dir, "a.go", "package a // edited twice\n") }, true},
		{"touch without change", func() {
			now := time.Now().Add(time.Minute)
			require.NoError(t, os.Chtimes(filepath.Join(dir, "a.go"), now, now))
		}, false},
		{"new untracked", func() { write(t, dir, "c.go", "package c\n") }, true},
		{"stage it", func() { run(t, dir, "git", "add", "c.go") }, true},
		{"delete tracked", func() { require.NoError(t, os.Remove(filepath.Join(dir, "sub/b.go"))) }, true},
		{"restore it", func() { run(t, dir, "git", "checkout", "--", "sub/b.go") }, true},
	}
	prev := state(t, dir)
	for _, s := range steps {
		s.do()
		cur := state(t, dir)
		if s.changes {
			assert.NotEqual(t, prev, cur, s.name)
		} else {
			assert.Equal(t, prev, cur, s.name)
		}
		prev = cur
	}
	// A subdirectory of the work tree has its own key.
	assert.NotEqual(t, state(t, dir), state(t, filepath.Join(dir, "sub")))
}

func TestStateOutsideGit(t *testing.T) {
	treecache.PretendLater(t, time.Hour)
	tests := []struct {
		name    string
		change  func(t *testing.T, dir string)
		changes bool
	}{
		{"nothing", func(*testing.T, string) {}, false},
		{"content", func(t *testing.T, dir string) { write(t, dir, "a.txt", "22") }, true},
		{"mode", func(t *testing.T, dir string) { chmod(t, filepath.Join(dir, "a.txt"), 0o755) }, true},
		{"new file", func(t *testing.T, dir string) { write(t, dir, "sub/b.txt", "") }, true},
		{"symlink retargeted, same length", func(t *testing.T, dir string) { relink(t, "b", filepath.Join(dir, "link")) }, true},
		{"same size rewritten, old mtime put back", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "a.txt")
			st, err := os.Stat(p)
			require.NoError(t, err)
			// The kernel sets the change time; wait for a tick it can see.
			time.Sleep(20 * time.Millisecond)
			write(t, dir, "a.txt", "2")
			require.NoError(t, os.Chtimes(p, st.ModTime(), st.ModTime()))
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "a.txt", "1")
			linktest.Symlink(t, "a", filepath.Join(dir, "link"))
			before := state(t, dir)
			tt.change(t, dir)
			if tt.changes {
				assert.NotEqual(t, before, state(t, dir))
			} else {
				assert.Equal(t, before, state(t, dir))
			}
		})
	}
}

// Outside git a file counts by its metadata, so a file that changed a
// moment ago cannot be told from one changed again within the same tick:
// the tree is not fingerprinted until it has settled.
func TestStateOutsideGitRefusesAnUnsettledTree(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.txt", "1")
	_, err := treecache.State(context.Background(), dir)
	require.ErrorIs(t, err, treecache.ErrUnsettled)
	assert.ErrorContains(t, err, filepath.Join(dir, "a.txt"))
	treecache.PretendLater(t, 3*time.Second)
	_, err = treecache.State(context.Background(), dir)
	require.NoError(t, err)
}

func TestStateOutsideGitIsBounded(t *testing.T) {
	treecache.PretendLater(t, time.Hour)
	treecache.MaxWalkFiles(t, 20)
	dir := t.TempDir()
	for i := range 19 { // and the root: 20 entries
		write(t, dir, fmt.Sprintf("f%02d", i), "")
	}
	state(t, dir)
	write(t, dir, "one-more", "")
	_, err := treecache.State(context.Background(), dir)
	require.ErrorIs(t, err, treecache.ErrTooLarge)
}

func TestCache(t *testing.T) {
	c := treecache.Cache{Dir: filepath.Join(t.TempDir(), "results")}
	key := treecache.Key("test", "go test ./...", "/p", "state")
	assert.NotEqual(t, key, treecache.Key("test", "go test ./..", ".", "/pstate"), "parts are length-prefixed")
	_, ok := c.Get(key)
	assert.False(t, ok)
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	require.NoError(t, c.Put(key, treecache.Entry{Complete: false, Feedback: "tests fail", At: at}))
	e, ok := c.Get(key)
	require.True(t, ok)
	assert.Equal(t, treecache.Entry{Complete: false, Feedback: "tests fail", At: at}, e)

	// A damaged entry is a miss, not an error.
	require.NoError(t, os.WriteFile(filepath.Join(c.Dir, key+".json"), []byte("{"), 0o600))
	_, ok = c.Get(key)
	assert.False(t, ok)
}

// countingGit puts a git on PATH that records each run in the file it
// returns, then runs the real one.
func countingGit(t *testing.T) (runs string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the counting git is a shell script")
	}
	realGit, err := exec.LookPath("git")
	require.NoError(t, err)
	bin := t.TempDir()
	runs = filepath.Join(t.TempDir(), "runs")
	write(t, bin, "git", "#!/bin/sh\necho \"$*\" >> '"+runs+"'\nexec '"+realGit+"' \"$@\"\n")
	require.NoError(t, os.Chmod(filepath.Join(bin, "git"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return runs
}

// statusRuns is how many git status processes the counting git ran.
func statusRuns(t *testing.T, runs string) int {
	t.Helper()
	data, err := os.ReadFile(runs)
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(data), " status ")
}
