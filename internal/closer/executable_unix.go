//go:build !windows

package closer

import (
	"os"
	"path/filepath"

	"github.com/donegate/donegate/internal/cli"
)

// isExecutable reports whether path is a regular file someone may run.
func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// executableIn is the executable file that runs as prog in dir, as a
// shell's PATH search finds it.
func executableIn(dir, prog string) (string, bool) {
	path := filepath.Join(dir, prog)
	return path, isExecutable(path)
}

// programName is the name a program at path runs by: the file's name.
func programName(path string) string { return filepath.Base(path) }

// makeRunnable is the fix for a file at path that is not executable.
func makeRunnable(path string) string { return "chmod +x " + path }

// absoluteCommand is path as a hook command (init --absolute), quoted
// for sh, which every host runs hooks with here; portable is always
// true.
func absoluteCommand(path string) (command string, portable bool) {
	return cli.ShellQuote(path), true
}
