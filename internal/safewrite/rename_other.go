//go:build !windows

package safewrite

// transient: a rename here never fails for a reader's sake.
func transient(error) bool { return false }
