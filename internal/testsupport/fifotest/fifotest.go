// Package fifotest makes FIFOs for the tests that check a FIFO can never
// hang a hook. Windows has none (its named pipes live in \\.\pipe\ only,
// never at a path a repository holds): there such a test is skipped.
package fifotest

import "testing"

// Make makes a FIFO at path, or skips the test where there are none.
func Make(t testing.TB, path string) {
	t.Helper()
	if !Supported {
		t.Skip("Windows has no FIFOs")
	}
	if err := mkfifo(path); err != nil {
		t.Fatalf("mkfifo %s: %v", path, err)
	}
}
