//go:build !windows

package regular

import (
	"io/fs"
	"os"
	"syscall"
)

// NoFollow makes OpenFile refuse a path that is a symbolic link, rather
// than follow it (O_NOFOLLOW).
const NoFollow = syscall.O_NOFOLLOW

func openFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
}
