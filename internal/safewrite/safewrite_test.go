package safewrite_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/safewrite"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
)

func TestReplace(t *testing.T) {
	for _, tt := range []struct {
		name string
		// setup makes what is at root/sub/file before the write; victim
		// is a file outside root.
		setup   func(t *testing.T, root, victim string)
		at      string // the path written, under root; "" for sub/file
		wantErr error  // nil: the write succeeds
	}{
		{name: "nothing there, nor its directory", setup: func(t *testing.T, root, victim string) {}},
		{name: "a regular file", setup: func(t *testing.T, root, victim string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "sub", "file"), []byte("old"), 0o644))
		}},
		{name: "a directory linked inside root", setup: func(t *testing.T, root, victim string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "real"), 0o755))
			linktest.Symlink(t, "real", filepath.Join(root, "sub"))
		}},
		{name: "a link to a file outside", wantErr: regular.ErrNotRegular, setup: func(t *testing.T, root, victim string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
			linktest.Symlink(t, victim, filepath.Join(root, "sub", "file"))
		}},
		{name: "a link inside root", wantErr: regular.ErrNotRegular, setup: func(t *testing.T, root, victim string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "sub", "other"), nil, 0o644))
			linktest.Symlink(t, "other", filepath.Join(root, "sub", "file"))
		}},
		{name: "a dangling link", wantErr: regular.ErrNotRegular, setup: func(t *testing.T, root, victim string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
			linktest.Symlink(t, victim+".new", filepath.Join(root, "sub", "file"))
		}},
		{name: "a FIFO", wantErr: regular.ErrNotRegular, setup: func(t *testing.T, root, victim string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
			fifotest.Make(t, filepath.Join(root, "sub", "file"))
		}},
		{name: "a directory", wantErr: regular.ErrNotRegular, setup: func(t *testing.T, root, victim string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "sub", "file"), 0o755))
		}},
		{name: "a character device", wantErr: regular.ErrNotRegular, setup: func(t *testing.T, root, victim string) {
			require.NoError(t, os.MkdirAll(filepath.Join(root, "sub"), 0o755))
			linktest.Symlink(t, "/dev/null", filepath.Join(root, "sub", "file"))
		}},
		{name: "its directory a link outside", wantErr: safewrite.ErrOutside, setup: func(t *testing.T, root, victim string) {
			linktest.Symlink(t, filepath.Dir(victim), filepath.Join(root, "sub"))
		}},
		{name: "a parent a link outside, the directory not there yet", at: "up/new/file", wantErr: safewrite.ErrOutside, setup: func(t *testing.T, root, victim string) {
			linktest.Symlink(t, filepath.Dir(victim), filepath.Join(root, "up"))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			victim := filepath.Join(t.TempDir(), "victim")
			require.NoError(t, os.WriteFile(victim, []byte("victim"), 0o600))
			tt.setup(t, root, victim)
			path := filepath.Join(root, "sub", "file")
			if tt.at != "" {
				path = filepath.Join(root, tt.at)
			}
			err := safewrite.Replace(root, path, []byte("new"), 0o640)
			assert.Equal(t, "victim", string(mustRead(t, victim)), "the file outside is untouched")
			entries, rerr := os.ReadDir(filepath.Dir(victim))
			require.NoError(t, rerr)
			assert.Len(t, entries, 1, "nothing created outside")
			if tt.wantErr != nil {
				assert.True(t, errors.Is(err, tt.wantErr), "%v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "new", string(mustRead(t, path)))
			st, err := os.Lstat(path)
			require.NoError(t, err)
			assert.True(t, st.Mode().IsRegular(), "a regular file, whatever was there")
			if runtime.GOOS != "windows" { // no Unix modes there
				assert.Equal(t, os.FileMode(0o640), st.Mode(), "of the mode given")
			}
			left, err := os.ReadDir(filepath.Dir(path))
			require.NoError(t, err)
			assert.Len(t, left, 1, "no temporary file left")
		})
	}
}

// TestReplaceNeverWidensTheMode: the mode given is the mode written,
// whatever an older file at the path had: a wider old mode does not
// survive the rename.
func TestReplaceNeverWidensTheMode(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "settings.json.bak")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o666))
	require.NoError(t, os.Chmod(path, 0o666))
	require.NoError(t, safewrite.Replace(root, path, []byte("key"), 0o600|os.ModeSetuid))
	st, err := os.Stat(path)
	require.NoError(t, err)
	if runtime.GOOS != "windows" { // no Unix modes there
		assert.Equal(t, os.FileMode(0o600), st.Mode())
	}
}

func TestInside(t *testing.T) {
	for _, tt := range []struct {
		root, path string
		want       bool
	}{
		{"/a", "/a", true},
		{"/a", "/a/b", true},
		{"/a", "/a/..b", true},
		{"/a", "/ab", false},
		{"/a", "/", false},
		{"/a/b", "/a", false},
	} {
		assert.Equal(t, tt.want, safewrite.Inside(tt.root, tt.path), "%s in %s", tt.path, tt.root)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// BenchmarkReplace is the cost of one safe write of a settings-sized
// file (4 KiB): the checks, the exclusive temporary file, its fsync, the
// rename and the directory's fsync.
func BenchmarkReplace(b *testing.B) {
	root := b.TempDir()
	path := filepath.Join(root, ".claude", "settings.json")
	data := make([]byte, 4096)
	for i := 0; i < b.N; i++ {
		if err := safewrite.Replace(root, path, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
}
