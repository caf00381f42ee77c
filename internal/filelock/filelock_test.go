package filelock_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/filelock"
)

// twoHandles opens one new file twice: a and b, as two processes would
// (b is closed at the test's end; a by the test).
func twoHandles(t *testing.T) (a, b *os.File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lock")
	a, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	require.NoError(t, err)
	b, err = os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return a, b
}

// TestLockWaitsForTheHolder: Lock gets a lock its holder lets go of
// within the wait, and says ErrBusy for one held past it.
func TestLockWaitsForTheHolder(t *testing.T) {
	a, b := twoHandles(t)
	ok, err := filelock.TryLock(a)
	require.NoError(t, err)
	require.True(t, ok)

	require.ErrorIs(t, filelock.Lock(b, 30*time.Millisecond), filelock.ErrBusy)
	time.AfterFunc(50*time.Millisecond, func() { a.Close() })
	require.NoError(t, filelock.Lock(b, 10*time.Second), "the holder closed its file")
}

func TestTryLockIsExclusiveUntilClosed(t *testing.T) {
	a, b := twoHandles(t)

	ok, err := filelock.TryLock(a)
	require.NoError(t, err)
	assert.True(t, ok, "a free lock is taken")
	ok, err = filelock.TryLock(b)
	require.NoError(t, err)
	assert.False(t, ok, "a held lock is not")

	// The holder's content stays readable to others, who take no lock.
	_, err = a.WriteString("record\n")
	require.NoError(t, err)
	data, err := os.ReadFile(b.Name())
	require.NoError(t, err)
	assert.Equal(t, "record\n", string(data))

	require.NoError(t, a.Close())
	ok, err = filelock.TryLock(b)
	require.NoError(t, err)
	assert.True(t, ok, "closing the holder's file frees the lock")
}
