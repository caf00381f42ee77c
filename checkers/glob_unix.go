//go:build !windows

package checkers

import (
	"io/fs"
	"os"
)

// globIn is fs.Glob of pattern (slash-separated) in dir: names match as
// the file system names them, in their case.
func globIn(dir, pattern string) ([]string, error) {
	return fs.Glob(os.DirFS(dir), pattern)
}
