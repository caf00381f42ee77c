//go:build !linux

package proc

// Where there is no /proc to read, what these would tell is unknown
// (see ancestors_linux.go): nothing is returned.

// Ancestors returns nothing.
func Ancestors(n int) [][]string { return nil }

// Parent returns 0: unknown.
func Parent(pid int) int { return 0 }

// Environ returns false: unknown.
func Environ(pid int) (map[string]string, string, bool) { return nil, "", false }
