//go:build !windows

package main

import (
	"os"
	"syscall"
)

// maxRSS is the peak resident set of the process that ended as ps, in
// KiB (Linux's unit); 0 where unknown.
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
