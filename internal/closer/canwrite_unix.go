//go:build !windows

package closer

import (
	"io/fs"
	"syscall"
)

// canWrite reports whether the user may create files in the existing
// directory dir, creating none (access(2)).
func canWrite(dir string) error {
	const wOK = 2 // access(2)'s W_OK
	if err := syscall.Access(dir, wOK); err != nil {
		return &fs.PathError{Op: "access", Path: dir, Err: err}
	}
	return nil
}
