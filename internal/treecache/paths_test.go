package treecache_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/treecache"
)

// ChangedPaths lists what changed after t, however it changed — written,
// deleted, committed with its file dated back, a new file — and not what
// differed before t and was left alone, nor a by-product.
func TestChangedPaths(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	repo(t, dir, map[string]string{"a/x.js": "1", "b/y.js": "1", "c/z.js": "1", "d/w.js": "1", "e/v.js": "1"})
	write(t, dir, "a/dirty.js", "untracked before t")
	write(t, dir, "b/y.js", "changed before t")
	head, err := treecache.Head(dir)
	require.NoError(t, err)
	time.Sleep(50 * time.Millisecond)
	since := time.Now()
	time.Sleep(50 * time.Millisecond)

	changed := func() []string {
		st, err := treecache.ReadStatus(context.Background(), dir)
		require.NoError(t, err)
		paths, err := treecache.ChangedPaths(context.Background(), st, since, head)
		require.NoError(t, err)
		return paths
	}
	assert.Empty(t, changed())

	write(t, dir, "c/z.js", "2")
	require.NoError(t, os.Remove(filepath.Join(dir, "d/w.js")))
	write(t, dir, "f/new.js", "new")
	write(t, dir, "e/__pycache__/m.pyc", "by-product")
	assert.Equal(t, []string{"c/z.js", "d/w.js", "f/new.js"}, changed())

	// A commit whose file is dated back: HEAD's diff tells it.
	write(t, dir, "e/v.js", "2")
	gitc(t, dir, "add", "e/v.js")
	gitc(t, dir, "commit", "-q", "-m", "e")
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "e/v.js"), old, old))
	assert.Contains(t, changed(), "e/v.js")

	// From a branch with no commit at the start: every committed file.
	st, err := treecache.ReadStatus(context.Background(), dir)
	require.NoError(t, err)
	all, err := treecache.ChangedPaths(context.Background(), st, since, treecache.NoCommit)
	require.NoError(t, err)
	assert.Subset(t, all, []string{"a/x.js", "b/y.js", "e/v.js"})

	// Outside git it cannot tell.
	st, err = treecache.ReadStatus(context.Background(), t.TempDir())
	require.NoError(t, err)
	_, err = treecache.ChangedPaths(context.Background(), st, since, head)
	require.ErrorIs(t, err, treecache.ErrUnknown)
}

// A file rewritten gets another stamp — on Linux even with its old size
// and modification time given back (its change time moves; elsewhere the
// modification time stands in for it); a missing one says so.
func TestStamp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "local.cfg")
	assert.Equal(t, "missing", treecache.Stamp(p))
	write(t, dir, "local.cfg", "a")
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(p, old, old))
	before := treecache.Stamp(p)
	time.Sleep(20 * time.Millisecond)
	write(t, dir, "local.cfg", "b")
	assert.NotEqual(t, before, treecache.Stamp(p), "rewritten")
	if runtime.GOOS == "linux" {
		require.NoError(t, os.Chtimes(p, old, old))
		assert.NotEqual(t, before, treecache.Stamp(p), "rewritten, its modification time given back")
	}
}
