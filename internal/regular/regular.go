// Package regular opens files that must be regular files — transcripts,
// task files, configs, state records, files hashed for a cache key — in a
// way that can never hang a hook.
//
// open(2) of a FIFO for reading blocks until a writer appears, and reading
// a character device such as /dev/zero never ends; a hook that did either
// would be killed by its host with nothing decided. So the file is opened
// with O_NONBLOCK (which makes open of a FIFO return at once), checked with
// fstat, and refused unless it is a regular file. O_NONBLOCK has no effect
// on reads of a regular file.
package regular

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrNotRegular is wrapped by the error for a path that is not a regular
// file (a FIFO, a socket, a device, a directory).
var ErrNotRegular = errors.New("not a regular file")

// Open opens path read-only if it is a regular file. Symbolic links are
// followed.
func Open(path string) (*os.File, error) {
	return OpenFile(path, os.O_RDONLY, 0)
}

// OpenFile is os.OpenFile for a file that must be regular. flag may carry
// os.O_CREATE, os.O_RDWR and NoFollow as usual; O_NONBLOCK is added. A
// path that exists but is not a regular file gives an error that wraps
// ErrNotRegular and names its kind; with NoFollow, a path that is a link
// gives one that wraps syscall.ELOOP, as open(2) does.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := openFile(path, flag, perm)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(st.Mode()))}
	}
	return f, nil
}

// Kind names the type of a file mode for messages: "a FIFO", "a directory".
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an irregular file"
}
