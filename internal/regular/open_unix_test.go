//go:build !windows

package regular_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/donegate/donegate/internal/regular"
)

// TestOpenFileIsBlockingAsAsked: a regular file is handed over blocking,
// with the status flags asked for (O_APPEND kept): not one for the
// runtime's poller, which cannot use it and which it would start.
func TestOpenFileIsBlockingAsAsked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	for _, tt := range []struct {
		flag   int
		append bool
	}{
		{os.O_CREATE | os.O_RDWR, false},
		{os.O_RDONLY, false},
		{os.O_CREATE | os.O_WRONLY | os.O_APPEND, true},
	} {
		f, err := regular.OpenFile(path, tt.flag, 0o600)
		require.NoError(t, err)
		fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
		require.NoError(t, err)
		assert.Zero(t, fl&unix.O_NONBLOCK, "flag %#x", tt.flag)
		assert.Equal(t, tt.append, fl&unix.O_APPEND != 0, "flag %#x", tt.flag)
		if tt.flag&os.O_APPEND != 0 {
			_, err = f.WriteString("a")
			require.NoError(t, err)
			_, err = f.WriteString("b")
			require.NoError(t, err)
		}
		require.NoError(t, f.Close())
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "ab", string(data))
	_, err = regular.OpenFile(filepath.Join(dir, "none"), os.O_RDONLY, 0)
	require.ErrorIs(t, err, os.ErrNotExist)
	assert.ErrorContains(t, err, "open "+filepath.Join(dir, "none"))
}
