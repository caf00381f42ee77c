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
