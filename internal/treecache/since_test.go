package treecache_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/treecache"
)

// ChangedSince sees an edit made after t, and only then, asked from the
// repository or through a link into its subdirectory from another repository: it looks
// for .git from the physical path, as git does, not from the link's
// parents (where it once found the outer repository, took the edited
// file for deleted and the tree for unchanged, and the stop let the agent
// go as if it had changed nothing).
func TestChangedSince(t *testing.T) {
	needGit(t)
	inner := t.TempDir()
	repo(t, inner, map[string]string{"sub/a.go": "package a\n"})
	outer := t.TempDir()
	repo(t, outer, map[string]string{"b.go": "package b\n"})
	link := filepath.Join(outer, "link")
	require.NoError(t, os.Symlink(filepath.Join(inner, "sub"), link))
	write(t, inner, "dirty.go", "package a // untracked before t\n")

	// t after everything there is, by more than a tick of the file
	// system's clock, and the edit as long after t.
	time.Sleep(50 * time.Millisecond)
	since := time.Now()

	changed := func(dir string) bool { return changedSince(t, dir, since) }
	for _, dir := range []string{inner, link} {
		assert.False(t, changed(dir), "before the edit, from %s", dir)
	}
	time.Sleep(50 * time.Millisecond)
	write(t, inner, "dirty.go", "package a // edited after t\n")
	for _, dir := range []string{inner, link} {
		assert.True(t, changed(dir), "after the edit, from %s", dir)
	}
}

// changedSince is ChangedSince with the status of dir read now.
func changedSince(t *testing.T, dir string, since time.Time) bool {
	t.Helper()
	st, err := treecache.ReadStatus(context.Background(), dir)
	require.NoError(t, err)
	ch, err := treecache.ChangedSince(context.Background(), st, since)
	require.NoError(t, err)
	return ch
}

// errNoRepo says what fmt.Errorf("%w: ...", ErrUnknown) said, and is one.
func TestNoRepoIsUnknown(t *testing.T) {
	assert.ErrorIs(t, treecache.ErrNoRepo, treecache.ErrUnknown)
	assert.Equal(t, "cannot tell what changed: no .git in the directory or any above it", treecache.ErrNoRepo.Error())
}

// TestChangedSinceSeesAnEditUndone: a file that differed from HEAD at t
// and was made equal to it again after t (the agent undid a fix: sed, an
// editor, a checkout) is no longer listed by git status; it is a change
// all the same, as is a tracked file rewritten as it was. Found with the
// real Claude Code: the stop let the agent go as one that had changed
// nothing, its test failing.
func TestChangedSinceSeesAnEditUndone(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	repo(t, dir, map[string]string{"p.go": "package p // a - b\n", "q.go": "package p\n"})
	write(t, dir, "p.go", "package p // a + b, not committed\n")
	time.Sleep(50 * time.Millisecond)
	since := time.Now()
	changed := func() bool { return changedSince(t, dir, since) }
	assert.False(t, changed(), "nothing written since")
	time.Sleep(50 * time.Millisecond)
	write(t, dir, "p.go", "package p // a - b\n")
	assert.True(t, changed(), "the fix undone: p.go is HEAD's again")

	dir = t.TempDir()
	repo(t, dir, map[string]string{"q.go": "package p\n"})
	time.Sleep(50 * time.Millisecond)
	since = time.Now()
	assert.False(t, changed())
	time.Sleep(50 * time.Millisecond)
	write(t, dir, "q.go", "package p\n")
	assert.True(t, changed(), "a tracked file written after t, as it was")
}
