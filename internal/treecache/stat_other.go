//go:build !linux

package treecache

import "io/fs"

// statOf is the metadata that says whether a file may have changed. Only
// Linux is built and tested; elsewhere the portable fields stand in, and
// the change time is taken to be the modification time.
func statOf(fi fs.FileInfo) stat {
	s := stat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode())}
	s.Ctime = s.Mtime
	return s
}
