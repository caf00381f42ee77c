package otlp

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// detached starts the exporter with no console and in a process group
// of its own, so that the host's console and Ctrl+C are not its.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP, HideWindow: true}
}
