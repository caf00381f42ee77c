package treecache

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// workTreeTop finds the top level without git where git's answer could
// not be another, and asks git everywhere else: the answers agree.
func TestWorkTreeTop(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	git := func(dir string, args ...string) {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	repo := t.TempDir()
	git(repo, "init", "-q")
	sub := filepath.Join(repo, "a", "b")
	require.NoError(t, os.MkdirAll(sub, 0o755))
	for _, dir := range []string{repo, sub} {
		want, err := toplevel(ctx, dir)
		require.NoError(t, err)
		got, err := workTreeTop(ctx, dir)
		require.NoError(t, err)
		assert.Equal(t, filepath.Clean(want), filepath.Clean(got), dir)
	}

	t.Run("through a link from another repository", func(t *testing.T) {
		outer := t.TempDir()
		git(outer, "init", "-q")
		link := filepath.Join(outer, "link")
		require.NoError(t, os.Symlink(sub, link))
		want, err := toplevel(ctx, link)
		require.NoError(t, err)
		got, err := workTreeTop(ctx, link)
		require.NoError(t, err)
		assert.Equal(t, filepath.Clean(want), filepath.Clean(got))
	})
	t.Run("core.worktree: git's answer", func(t *testing.T) {
		other := t.TempDir()
		git(repo, "config", "core.worktree", other)
		defer git(repo, "config", "--unset", "core.worktree")
		want, _ := toplevel(ctx, repo)
		got, _ := workTreeTop(ctx, repo)
		assert.Equal(t, want, got)
	})
	t.Run("GIT_WORK_TREE: git's answer", func(t *testing.T) {
		other := t.TempDir()
		t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
		t.Setenv("GIT_WORK_TREE", other)
		want, _ := toplevel(ctx, repo)
		got, _ := workTreeTop(ctx, repo)
		assert.Equal(t, want, got)
		assert.NotEqual(t, repo, got)
	})
	t.Run("a worktree: git's answer", func(t *testing.T) {
		git(repo, "-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "--allow-empty", "-m", "x")
		wt := filepath.Join(t.TempDir(), "wt")
		git(repo, "worktree", "add", "-q", wt)
		want, err := toplevel(ctx, wt)
		require.NoError(t, err)
		got, err := workTreeTop(ctx, wt)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	})
}
