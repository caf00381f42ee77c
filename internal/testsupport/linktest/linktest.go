// Package linktest makes symbolic links for the tests that check a link
// is never followed where donegate refuses links. Wine 8, which runs the
// Windows tests here, answers CreateSymbolicLink with success and makes
// nothing: there such a test is skipped, as it would prove nothing (a
// real Windows machine runs it).
package linktest

import (
	"os"
	"testing"
)

// Symlink makes newname a symbolic link to oldname, or skips the test
// where the system makes none.
func Symlink(t testing.TB, oldname, newname string) {
	t.Helper()
	if err := os.Symlink(oldname, newname); err != nil {
		t.Fatalf("symlink %s -> %s: %v", newname, oldname, err)
	}
	if _, err := os.Lstat(newname); err != nil {
		t.Skipf("this system made no symbolic link at %s (Wine 8 makes none): %v", newname, err)
	}
}
