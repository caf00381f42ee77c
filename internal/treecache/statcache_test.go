package treecache

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statTree is a git repository with one untracked file, u.txt, and a
// Cache whose stat cache the test can read and forge.
func statTree(t *testing.T) (dir, file string, c Cache) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir = t.TempDir()
	out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput()
	require.NoError(t, err, "%s", out)
	file = filepath.Join(dir, "u.txt")
	require.NoError(t, os.WriteFile(file, []byte("one\n"), 0o644))
	return dir, file, Cache{Dir: filepath.Join(t.TempDir(), "results")}
}

func readStats(t *testing.T, c Cache, dir string) map[string]statEntry {
	t.Helper()
	return loadStats(c.statPath(dir)).old
}

func later(t *testing.T, d time.Duration) {
	old := now
	now = func() time.Time { return old().Add(d) }
	t.Cleanup(func() { now = old })
}

func TestStatCacheReusesAHashOnlyForIdenticalMetadata(t *testing.T) {
	dir, file, c := statTree(t)
	later(t, time.Hour)
	plain, err := State(context.Background(), dir)
	require.NoError(t, err)
	cached, err := c.State(context.Background(), dir)
	require.NoError(t, err)
	assert.Equal(t, plain, cached, "the stat cache does not change the state")
	stats := readStats(t, c, dir)
	require.Contains(t, stats, file)

	// A remembered hash that matches the file's metadata is used as is:
	// forge one, and the state shows the file was not read.
	e := stats[file]
	e.Sum = "forged"
	data, err := json.Marshal(map[string]statEntry{file: e})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(c.statPath(dir), data, 0o600))
	forged, err := c.State(context.Background(), dir)
	require.NoError(t, err)
	assert.NotEqual(t, plain, forged)

	// Any change of the metadata (here a chmod and back, which only moves
	// the change time) makes it read again.
	time.Sleep(20 * time.Millisecond) // a tick the file system's clock can see
	require.NoError(t, os.Chmod(file, 0o600))
	require.NoError(t, os.Chmod(file, 0o644))
	again, err := c.State(context.Background(), dir)
	require.NoError(t, err)
	assert.Equal(t, plain, again)
	assert.NotEqual(t, "forged", readStats(t, c, dir)[file].Sum)
}

// The racy rule: a file changed less than racyMargin before the
// fingerprint began is hashed, but its hash is not remembered, since a
// write in the same tick of the file system's clock would keep its
// metadata.
func TestStatCacheDoesNotRememberRacyFiles(t *testing.T) {
	dir, file, c := statTree(t)
	_, err := c.State(context.Background(), dir)
	require.NoError(t, err)
	assert.NotContains(t, readStats(t, c, dir), file, "written just now: racy")

	later(t, racyMargin+time.Second)
	_, err = c.State(context.Background(), dir)
	require.NoError(t, err)
	assert.Contains(t, readStats(t, c, dir), file, "still for longer than the margin")
}

func TestStatCacheForgetsFilesNoLongerListed(t *testing.T) {
	dir, file, c := statTree(t)
	later(t, time.Hour)
	_, err := c.State(context.Background(), dir)
	require.NoError(t, err)
	require.Contains(t, readStats(t, c, dir), file)
	require.NoError(t, os.Remove(file))
	_, err = c.State(context.Background(), dir)
	require.NoError(t, err)
	assert.Empty(t, readStats(t, c, dir))
}

func TestStatCacheDamagedIsEmpty(t *testing.T) {
	dir, file, c := statTree(t)
	later(t, time.Hour)
	require.NoError(t, os.MkdirAll(c.Dir, 0o700))
	require.NoError(t, os.WriteFile(c.statPath(dir), []byte("{"), 0o600))
	plain, err := State(context.Background(), dir)
	require.NoError(t, err)
	cached, err := c.State(context.Background(), dir)
	require.NoError(t, err)
	assert.Equal(t, plain, cached)
	assert.Contains(t, readStats(t, c, dir), file, "rewritten whole")
}
