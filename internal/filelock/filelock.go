// Package filelock takes an exclusive lock on an open file, at once
// (TryLock) or within a time (Lock), the same way on every system
// donegate runs on: the lock is
// the process's until it closes the file (or exits), and other donegate
// processes see it whatever their system's lock kind.
package filelock

import (
	"errors"
	"os"
	"time"
)

// ErrBusy is returned by Lock when the lock could not be had in time.
var ErrBusy = errors.New("lock held by another process for too long")

// Lock takes f's exclusive lock, waiting up to wait for the process that
// holds it: polled (1 ms, doubling to 50 ms), because a blocking lock
// cannot be given up after a time on every system. donegate's holders
// keep a lock for a read and a write only, so a longer wait means a stuck
// holder, and the caller fails open rather than hang the agent.
func Lock(f *os.File, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		ok, err := TryLock(f)
		switch {
		case err != nil:
			return err
		case ok:
			return nil
		case time.Now().After(deadline):
			return ErrBusy
		}
		time.Sleep(delay)
	}
}
