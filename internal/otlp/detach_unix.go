//go:build !windows

package otlp

import "syscall"

// detached starts the exporter in a session of its own, out of the
// hook's process group (which a host may signal when the hook is done).
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
