// Package proctest helps tests check that processes are gone, and that
// what they run ends.
package proctest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Gone reports whether pid has exited. A zombie counts as exited: in a
// container whose init does not reap orphans, a killed orphan stays a
// zombie, and kill(pid, 0) still succeeds on it.
func Gone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// WithinAMinute runs fn and fails the test, instead of hanging it, when fn
// has not returned after a minute. The runs it guards tell milliseconds
// from an hour (or never): a minute holds on any machine, however loaded,
// where a bound on elapsed time near the expected one would not.
func WithinAMinute(t testing.TB, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("still running after a minute")
	}
}
