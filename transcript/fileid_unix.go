//go:build !windows

package transcript

import (
	"os"
	"syscall"
)

// fileID returns the device and inode numbers of the file st describes.
func fileID(st os.FileInfo) (dev, ino uint64) {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Dev), s.Ino // Dev is an int32 on darwin
	}
	return 0, 0
}
