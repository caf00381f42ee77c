package safewrite

import (
	"errors"

	"golang.org/x/sys/windows"
)

// transient reports the errors a rename gets while another process has
// the destination (or the source) open: ERROR_ACCESS_DENIED for an open
// without FILE_SHARE_DELETE, ERROR_SHARING_VIOLATION for one that shares
// nothing.
func transient(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}
