//go:build !windows

package regular

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// NoFollow makes OpenFile refuse a path that is a symbolic link, rather
// than follow it (O_NOFOLLOW).
const NoFollow = syscall.O_NOFOLLOW

// openFile opens path with O_NONBLOCK, which makes open of a FIFO return
// at once, then clears it before the *os.File is made: a file opened
// non-blocking is handed to the runtime's poller, which a regular file
// cannot use (epoll refuses it, one wasted call per open) and which the
// first such file starts in the process (an epoll instance, an eventfd, a
// thread parked in it: about 0.03 ms of a hook's stop, with its budget's
// timer, see gate.budgetContext). A file OpenFile then refuses (a FIFO, a
// device) is closed unread.
func openFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, flag|syscall.O_NONBLOCK|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	// The status flags as asked, O_NONBLOCK cleared, in one call (F_SETFL
	// sets only these: O_APPEND is the one the callers use).
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, flag&unix.O_APPEND); err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
