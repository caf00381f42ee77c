// Package proctest helps tests check that processes are gone, and that
// what they run ends.
package proctest

import (
	"testing"
	"time"
)

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
