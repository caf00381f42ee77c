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

// ReadStatus learns the top level and HEAD from one rev-parse: its output
// is the top level, a newline and HEAD, or only the top level (exit 1)
// before the first commit. Names with a newline or a trailing space must
// survive that split.
func TestReadStatus(t *testing.T) {
	needGit(t)
	tests := []struct {
		name     string
		setup    func(t *testing.T, base string) (top, dir string)
		wantHead bool
		want     string // Porcelain
	}{
		{
			name: "committed, clean",
			setup: func(t *testing.T, base string) (string, string) {
				repo(t, base, map[string]string{"a.go": "package a\n"})
				return base, base
			},
			wantHead: true,
		},
		{
			name: "no commit yet, one untracked file",
			setup: func(t *testing.T, base string) (string, string) {
				gitc(t, base, "init", "-q")
				write(t, base, "a.go", "package a\n")
				return base, base
			},
			want: "?? a.go\x00",
		},
		{
			name: "asked from a subdirectory",
			setup: func(t *testing.T, base string) (string, string) {
				repo(t, base, map[string]string{"sub/a.go": "package a\n"})
				write(t, base, "sub/a.go", "package a // edited\n")
				return base, filepath.Join(base, "sub")
			},
			wantHead: true,
			want:     " M sub/a.go\x00",
		},
		{
			name: "top level named with a newline and a trailing space",
			setup: func(t *testing.T, base string) (string, string) {
				top := filepath.Join(base, "odd\nname ")
				repo(t, top, map[string]string{"a.go": "package a\n"})
				return top, top
			},
			wantHead: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top, dir := tt.setup(t, t.TempDir())
			st, err := treecache.ReadStatus(context.Background(), dir)
			require.NoError(t, err)
			assert.Equal(t, top, st.Top)
			assert.NoError(t, st.NotRepo)
			assert.Equal(t, tt.want, string(st.Porcelain))
			if tt.wantHead {
				head, err := exec.Command("git", "-C", top, "rev-parse", "HEAD").Output()
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
	assert.Empty(t, st.Top)
	assert.ErrorContains(t, st.NotRepo, "not a git repository")
	s1, err := treecache.Cache{}.StateOf(context.Background(), st)
	require.NoError(t, err)
	s2, err := treecache.State(context.Background(), dir)
	require.NoError(t, err)
	assert.Equal(t, s2, s1)
}
