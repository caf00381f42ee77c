package regular

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"
)

// NoFollow makes OpenFile refuse a path that is a symbolic link, a
// junction or any other reparse point, rather than follow it: the file is
// opened with FILE_FLAG_OPEN_REPARSE_POINT, so the check and the open are
// one (a bit of flag that os.OpenFile does not use).
const NoFollow = 1 << 30

// There are no FIFOs to hang on among Windows paths (named pipes live in
// \\.\pipe\ only, which the callers never name), so without NoFollow the
// file is opened as os.OpenFile opens it, and checked for a regular file.
func openFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := open(path, flag, perm)
	if err != nil {
		// Windows refuses to open a directory as a file (access denied):
		// say what it is, as fstat does on Linux.
		if st, serr := os.Lstat(path); serr == nil && st.IsDir() {
			return nil, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, Kind(st.Mode()))}
		}
	}
	return f, err
}

func open(path string, flag int, perm fs.FileMode) (*os.File, error) {
	if flag&NoFollow == 0 {
		return os.OpenFile(path, flag, perm)
	}
	flag &^= NoFollow
	name, err := windows.UTF16PtrFromString(fixLongPath(path))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var access uint32
	switch flag & (os.O_RDONLY | os.O_WRONLY | os.O_RDWR) {
	case os.O_RDONLY:
		access = windows.GENERIC_READ
	case os.O_WRONLY:
		access = windows.GENERIC_WRITE
	case os.O_RDWR:
		access = windows.GENERIC_READ | windows.GENERIC_WRITE
	}
	if flag&os.O_APPEND != 0 {
		// As syscall.Open does: appending only, so each write lands at
		// the end whoever else appends.
		access &^= windows.GENERIC_WRITE
		access |= windows.FILE_APPEND_DATA
	}
	var disposition uint32
	switch {
	case flag&(os.O_CREATE|os.O_EXCL) == os.O_CREATE|os.O_EXCL:
		disposition = windows.CREATE_NEW
	case flag&(os.O_CREATE|os.O_TRUNC) == os.O_CREATE|os.O_TRUNC:
		disposition = windows.CREATE_ALWAYS
	case flag&os.O_CREATE != 0:
		disposition = windows.OPEN_ALWAYS
	case flag&os.O_TRUNC != 0:
		disposition = windows.TRUNCATE_EXISTING
	default:
		disposition = windows.OPEN_EXISTING
	}
	attrs := uint32(windows.FILE_ATTRIBUTE_NORMAL)
	if perm&0o200 == 0 {
		attrs = windows.FILE_ATTRIBUTE_READONLY
	}
	// Shared as Go's own open shares a file: others may read and write
	// it meanwhile, and rename or delete it (the atomic replace of a
	// record).
	share := uint32(windows.FILE_SHARE_READ | windows.FILE_SHARE_WRITE | windows.FILE_SHARE_DELETE)
	h, err := windows.CreateFile(name, access, share, nil, disposition, attrs|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	if info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		windows.CloseHandle(h)
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
	}
	return os.NewFile(uintptr(h), path), nil
}

// fixLongPath gives an absolute path past MAX_PATH (260) the \\?\ prefix
// that lets CreateFile open it, as os.OpenFile does for its own calls.
func fixLongPath(path string) string {
	if len(path) < 248 || strings.HasPrefix(path, `\\?\`) || !filepath.IsAbs(path) {
		return path
	}
	p := filepath.Clean(path) // \\?\ paths are taken as they are: no . or ..
	if strings.HasPrefix(p, `\\`) {
		return `\\?\UNC\` + p[2:] // \\server\share\...
	}
	return `\\?\` + p
}
