// Package filelock takes an exclusive lock on an open file, without
// waiting, the same way on every system donegate runs on: the lock is
// the process's until it closes the file (or exits), and other donegate
// processes see it whatever their system's lock kind.
package filelock
