package treecache

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fifotest"
)

// Head reads what git rev-parse HEAD says, from the repository's files:
// a loose ref, packed refs, a detached HEAD, a worktree, and no commit.
func TestHeadAsGitSaysIt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	dir := t.TempDir()
	run := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.TrimSpace(string(out))
	}
	run(dir, "init", "-q", "-b", "main")
	got, err := Head(dir)
	require.NoError(t, err)
	assert.Empty(t, got, "no commit yet")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644))
	run(dir, "add", "a")
	run(dir, "commit", "-q", "-m", "one")
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	for _, d := range []string{dir, sub} {
		got, err = Head(d)
		require.NoError(t, err)
		assert.Equal(t, run(dir, "rev-parse", "HEAD"), got, "loose ref, from %s", d)
	}

	run(dir, "pack-refs", "--all")
	got, err = Head(dir)
	require.NoError(t, err)
	assert.Equal(t, run(dir, "rev-parse", "HEAD"), got, "packed")

	run(dir, "commit", "-q", "--allow-empty", "-m", "two")
	run(dir, "checkout", "-q", "--detach", "HEAD~1")
	got, err = Head(dir)
	require.NoError(t, err)
	assert.Equal(t, run(dir, "rev-parse", "HEAD"), got, "detached")

	wt := filepath.Join(t.TempDir(), "wt")
	run(dir, "worktree", "add", "-q", "-b", "side", wt, "main")
	got, err = Head(wt)
	require.NoError(t, err)
	assert.Equal(t, run(wt, "rev-parse", "HEAD"), got, "worktree")

	// A FIFO where HEAD is read: refused, never a hang.
	require.NoError(t, os.Remove(filepath.Join(dir, ".git", "HEAD")))
	fifotest.Make(t, filepath.Join(dir, ".git", "HEAD"))
	_, err = Head(dir)
	assert.Error(t, err)

	_, err = Head(t.TempDir())
	assert.ErrorIs(t, err, ErrUnknown, "outside git")
}
