//go:build !windows

package fifotest

import "syscall"

// Supported is true where paths can be FIFOs.
const Supported = true

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
