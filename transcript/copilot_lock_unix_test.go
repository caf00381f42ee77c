//go:build !windows

package transcript_test

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/donegate/donegate/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A session.db locked as SQLite locks it — an fcntl write lock over the
// whole file, held by another process, as a writer holds it through a
// transaction's commit — is read all the same: the reader takes no lock,
// so it neither waits for the writer nor holds it up.
func TestReadCopilotTodosLockedDatabase(t *testing.T) {
	if path := os.Getenv("DONEGATE_TEST_LOCK"); path != "" {
		// The other process: lock, say so, hold until stdin closes.
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		require.NoError(t, err)
		lock := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0, Start: 0, Len: 0}
		require.NoError(t, syscall.FcntlFlock(f.Fd(), syscall.F_SETLKW, &lock))
		os.Stdout.WriteString("locked\n")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return
	}
	path := copilotSession(t, recorded+"session-open.db")
	db := filepath.Join(filepath.Dir(path), "session.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestReadCopilotTodosLockedDatabase$", "-test.count=1")
	cmd.Env = append(os.Environ(), "DONEGATE_TEST_LOCK="+db)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)

	// The lock is real: this process cannot take it.
	f, err := os.OpenFile(db, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	lock := syscall.Flock_t{Type: syscall.F_RDLCK, Whence: 0, Start: 0, Len: 0}
	assert.Error(t, syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lock), "the other process holds a write lock")

	items, found, err := transcript.ReadCopilotTodos(context.Background(), path)
	require.NoError(t, err)
	assert.True(t, found)
	assert.Len(t, items, 2)
}
