package treecache_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/treecache"
)

// ReadStatus learns HEAD from the porcelain v2 headers and keeps only the
// entries, whose paths are the top level's.
func TestReadStatus(t *testing.T) {
	needGit(t)
	tests := []struct {
		name     string
		setup    func(t *testing.T, base string) (dir string)
		wantHead bool
		want     string // regexp of Porcelain
		paths    []string
	}{
		{
			name: "committed, clean",
			setup: func(t *testing.T, base string) string {
				repo(t, base, map[string]string{"a.go": "package a\n"})
				return base
			},
			wantHead: true,
			want:     "^$",
		},
		{
			name: "no commit yet, one untracked file",
			setup: func(t *testing.T, base string) string {
				gitc(t, base, "init", "-q")
				write(t, base, "a b.go", "package a\n")
				return base
			},
			want:  "^\\? a b.go\x00$",
			paths: []string{"a b.go"},
		},
		{
			name: "asked from a subdirectory",
			setup: func(t *testing.T, base string) string {
				repo(t, base, map[string]string{"sub/a.go": "package a\n", "b.go": "package b\n"})
				write(t, base, "sub/a.go", "package a // edited\n")
				require.NoError(t, os.Remove(filepath.Join(base, "b.go")))
				return filepath.Join(base, "sub")
			},
			wantHead: true,
			want:     "^1 \\.D N\\.\\.\\. 100644 100644 000000 [0-9a-f]{40} [0-9a-f]{40} b.go\x001 \\.M N\\.\\.\\. 100644 100644 100644 [0-9a-f]{40} [0-9a-f]{40} sub/a.go\x00$",
			paths:    []string{"b.go", "sub/a.go"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t, t.TempDir())
			st, err := treecache.ReadStatus(context.Background(), dir)
			require.NoError(t, err)
			assert.NoError(t, st.NotRepo)
			assert.Regexp(t, tt.want, string(st.Porcelain))
			assert.Equal(t, tt.paths, st.Paths(dir))
			if tt.wantHead {
				head, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
				require.NoError(t, err)
				assert.Equal(t, strings.TrimSpace(string(head)), st.Head)
			} else {
				assert.Empty(t, st.Head)
			}
		})
	}
}

// Outside a work tree ReadStatus says why in NotRepo, and the state is
// the walk's, as State's.
func TestReadStatusOutsideGit(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	// A ceiling, so a repository above the temp dir cannot be found.
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644))
	treecache.PretendLater(t, time.Hour)
	st, err := treecache.ReadStatus(context.Background(), dir)
	require.NoError(t, err)
	assert.ErrorContains(t, st.NotRepo, "not a git repository")
	s1, err := treecache.Cache{}.StateOf(context.Background(), st)
	require.NoError(t, err)
	s2, err := treecache.State(context.Background(), dir)
	require.NoError(t, err)
	assert.Equal(t, s2, s1)
}

// Where git could find no repository, ReadStatus answers without starting
// it; wherever git could find one (a .git of any kind, a bare repository,
// a variable pointing git elsewhere) git is asked. A git that notes each
// run in a file counts the processes.
func TestReadStatusStartsGitOnlyWhereARepositoryCanBe(t *testing.T) {
	needGit(t)
	runs := countingGit(t)
	if out, err := exec.Command("git", "-C", t.TempDir(), "rev-parse").CombinedOutput(); err == nil {
		t.Skipf("the temporary directory is inside a repository: %s", out)
	}
	tests := []struct {
		name    string
		setup   func(t *testing.T, base string) (dir string)
		started bool
		notRepo string // NotRepo's message holds it; "" for none
	}{
		{
			name:    "no repository above",
			setup:   func(t *testing.T, base string) string { write(t, base, "a.py", "x\n"); return base },
			notRepo: "not a git repository: no .git in",
		},
		{
			name:    "a repository",
			setup:   func(t *testing.T, base string) string { repo(t, base, nil); return base },
			started: true,
		},
		{
			name: "a subdirectory of a repository",
			setup: func(t *testing.T, base string) string {
				repo(t, base, nil)
				require.NoError(t, os.MkdirAll(filepath.Join(base, "a", "b"), 0o755))
				return filepath.Join(base, "a", "b")
			},
			started: true,
		},
		{
			name: "a bare repository: git says why not",
			setup: func(t *testing.T, base string) string {
				gitc(t, base, "init", "-q", "--bare")
				return base
			},
			started: true,
			notRepo: "work tree",
		},
		{
			name: ".git a link to a repository's git dir",
			setup: func(t *testing.T, base string) string {
				other := t.TempDir()
				repo(t, other, nil)
				dir := filepath.Join(base, "p")
				require.NoError(t, os.MkdirAll(dir, 0o755))
				require.NoError(t, os.Symlink(filepath.Join(other, ".git"), filepath.Join(dir, ".git")))
				return dir
			},
			started: true,
		},
		{
			name: "reached through a link into a repository",
			setup: func(t *testing.T, base string) string {
				other := t.TempDir()
				repo(t, other, nil)
				require.NoError(t, os.MkdirAll(filepath.Join(other, "sub"), 0o755))
				link := filepath.Join(base, "link")
				require.NoError(t, os.Symlink(filepath.Join(other, "sub"), link))
				return link
			},
			started: true,
		},
		{
			name: "GIT_DIR names a repository",
			setup: func(t *testing.T, base string) string {
				other := t.TempDir()
				repo(t, other, nil)
				t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
				return base
			},
			started: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := tt.setup(t, t.TempDir())
			require.NoError(t, os.RemoveAll(runs))
			st, err := treecache.ReadStatus(context.Background(), dir)
			require.NoError(t, err)
			_, statErr := os.Stat(runs)
			assert.Equal(t, tt.started, statErr == nil, "git started")
			if tt.notRepo == "" {
				assert.NoError(t, st.NotRepo)
			} else {
				assert.ErrorContains(t, st.NotRepo, tt.notRepo)
			}
		})
	}
}
