package treecache

import (
	"io/fs"
	"syscall"
)

// statOf is the metadata that says whether a file may have changed. The
// change time (ctime) is in it because nothing but the kernel sets it: a
// file rewritten and given back its old mtime (cp -p, tar, rsync -t, touch
// -d) still gets a new ctime.
func statOf(fi fs.FileInfo) stat {
	s := stat{Size: fi.Size(), Mtime: fi.ModTime().UnixNano(), Mode: uint32(fi.Mode())}
	s.Ctime = s.Mtime
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s.Ctime = st.Ctim.Nano()
		s.Ino = st.Ino
		s.Dev = st.Dev
	}
	return s
}
