package safewrite

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errBusy = errors.New("busy")

// retry tries again while the error is transient, within its budget, and
// never after another error.
func TestRetry(t *testing.T) {
	isBusy := func(err error) bool { return errors.Is(err, errBusy) }
	for _, tc := range []struct {
		name    string
		fails   int   // times op fails before it succeeds
		err     error // what it fails with
		budget  time.Duration
		calls   int
		wantErr error
	}{
		{"at once", 0, errBusy, time.Second, 1, nil},
		{"after three tries", 3, errBusy, time.Second, 4, nil},
		{"another error is the answer", 3, os.ErrPermission, time.Second, 1, os.ErrPermission},
		{"the budget ends it", 1000, errBusy, 20 * time.Millisecond, -1, errBusy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			start := time.Now()
			err := retry(func() error {
				calls++
				if calls <= tc.fails {
					return tc.err
				}
				return nil
			}, isBusy, tc.budget)
			assert.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				assert.NoError(t, err)
			}
			if tc.calls >= 0 {
				assert.Equal(t, tc.calls, calls)
			} else {
				assert.Less(t, time.Since(start), tc.budget+time.Second, "bounded")
				assert.Greater(t, calls, 2)
			}
		})
	}
}

// A file replaced while a reader holds it open (os.Open, which on Windows
// does not share delete): the replace waits for the reader to close it,
// and then holds the new content. Under Wine and on Linux the rename
// works at once; on Windows it is the retry that makes it work.
func TestReplaceWhileAReaderHoldsTheFile(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "state.json")
	require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
	reader, err := os.Open(path)
	require.NoError(t, err)
	closed := make(chan struct{})
	go func() {
		time.Sleep(100 * time.Millisecond)
		reader.Close()
		close(closed)
	}()
	require.NoError(t, Replace(root, path, []byte("new"), 0o600))
	<-closed
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new", string(data))
}
