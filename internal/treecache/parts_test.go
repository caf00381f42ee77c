package treecache_test

import (
	"context"
	"errors"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/treecache"
)

// Each part's state moves with its own files only; the rest with every
// file outside the parts; a commit that leaves a part alone leaves its
// state alone.
func TestPartStates(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	run(t, dir, "git", "init", "-q")
	write(t, dir, "package.json", "{}")
	write(t, dir, "packages/a/index.js", "a")
	write(t, dir, "packages/b/index.js", "b")
	commit := func() {
		run(t, dir, "git", "add", "-A")
		run(t, dir, "git", "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "-m", "x")
	}
	commit()
	parts := []string{"packages/a", "packages/b"}
	look := func() (map[string]string, string) {
		st, err := treecache.ReadStatus(context.Background(), dir)
		require.NoError(t, err)
		states, rest, err := treecache.Cache{}.PartStates(context.Background(), st, parts)
		require.NoError(t, err)
		return states, rest
	}
	s0, r0 := look()
	assert.NotEqual(t, s0["packages/a"], s0["packages/b"])

	write(t, dir, "packages/b/index.js", "b2") // b edited, not committed
	s1, r1 := look()
	assert.Equal(t, s0["packages/a"], s1["packages/a"])
	assert.NotEqual(t, s0["packages/b"], s1["packages/b"])
	assert.Equal(t, r0, r1)

	// Committed: a and the rest do not move (b's state may: its content
	// is now told by its object name rather than by a hash of the file,
	// one more run at most, never a stale one).
	commit()
	s2, r2 := look()
	assert.Equal(t, s1["packages/a"], s2["packages/a"])
	assert.Equal(t, r1, r2)

	write(t, dir, "packages/a/__pycache__/x.pyc", "by-product")
	s3, _ := look()
	assert.Equal(t, s2, s3, "a by-product is no change")

	write(t, dir, "tsconfig.json", "{}") // outside every part
	s4, r4 := look()
	assert.Equal(t, s3, s4)
	assert.NotEqual(t, r2, r4)

	write(t, dir, "node_modules/.package-lock.json", `{"v":1}`) // an install
	_, r5 := look()
	assert.NotEqual(t, r4, r5)

	st, err := treecache.ReadStatus(context.Background(), t.TempDir())
	require.NoError(t, err)
	_, _, err = treecache.Cache{}.PartStates(context.Background(), st, parts)
	assert.True(t, errors.Is(err, treecache.ErrUnknown), "outside git: %v", err)
}
