//go:build !linux && !windows

package proc

import "os/exec"

// adopt does nothing where there is no child subreaper (see
// orphans_linux.go): a process that leaves the command's group outlives
// the hook there.
func adopt() (release func()) { return func() {} }

// StartOwn starts c: without adoption no child is taken for an orphan.
func StartOwn(c *exec.Cmd) (done func(), err error) {
	if err := c.Start(); err != nil {
		return nil, err
	}
	return func() {}, nil
}
