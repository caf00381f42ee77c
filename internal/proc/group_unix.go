//go:build !windows

package proc

import (
	"os"
	"os/exec"
	"syscall"
)

// BackgroundNice is the niceness of a Background command's process group.
const BackgroundNice = 10

// shellCommand runs s as sh -c s.
func shellCommand(s string) *exec.Cmd { return exec.Command("/bin/sh", "-c", s) }

// ownGroup makes c start in a process group of its own, which it and
// everything it starts share unless they leave it (setsid).
func ownGroup(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// group is a started command's process group.
type group struct{ pgid int }

// joinGroup returns the group c started in (see ownGroup), at a lower CPU
// priority when background: the group holds the shell alone yet, or
// little more, and what it starts inherits the niceness.
func joinGroup(c *exec.Cmd, background bool) *group {
	g := &group{pgid: c.Process.Pid}
	if background {
		_ = syscall.Setpriority(syscall.PRIO_PGRP, g.pgid, BackgroundNice)
	}
	return g
}

// stop asks the group to end (SIGTERM).
func (g *group) stop() { _ = syscall.Kill(-g.pgid, syscall.SIGTERM) }

// kill ends what is left of the group (SIGKILL).
func (g *group) kill() { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }

// close lets go of the group: nothing to release.
func (g *group) close() {}

// signalOf names the signal that ended the process, "" when none did.
func signalOf(ps *os.ProcessState) string {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal().String()
	}
	return ""
}

// OwnGroup makes c, a short command run with exec.CommandContext, start
// in a process group of its own, and be killed with the whole group when
// its context ends.
func OwnGroup(c *exec.Cmd) {
	ownGroup(c)
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}

// ShellNotFound is the exit code with which the shell says it found no
// such command (sh: 127).
const ShellNotFound = 127
