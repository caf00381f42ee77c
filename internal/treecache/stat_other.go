//go:build !linux

package treecache

import (
	"io/fs"
	"os"
)

// statOf is the metadata that says whether a file may have changed. Only
// Linux is built and tested; elsewhere the portable fields stand in, and
// the change time is taken to be the modification time.
func statOf(fi fs.FileInfo) stat {
	s := stat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode())}
	s.Ctime = s.Mtime
	return s
}

// lstatTimes is the modification and change times of path, not followed
// if a link; ok is false when it cannot be had.
func lstatTimes(path string) (mtime, ctime int64, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return 0, 0, false
	}
	s := statOf(fi)
	return s.Mtime, s.Ctime, true
}
