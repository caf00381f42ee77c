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

// lstatTimes is the modification and change times of path, not followed
// if a link; ok is false when it cannot be had. One system call, nothing
// allocated: ChangedSince asks it of every tracked file.
func lstatTimes(path string) (mtime, ctime int64, ok bool) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return 0, 0, false
	}
	return st.Mtim.Nano(), st.Ctim.Nano(), true
}
