package proc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Ancestors returns the argument lists of up to n processes above this
// one, its parent first, read from /proc; it stops at init or at a
// process it cannot read. The hooks read it where the host tells a hook
// nothing else of how it was started (Codex's --output-schema).
func Ancestors(n int) [][]string {
	var out [][]string
	pid := os.Getppid()
	for range n {
		if pid <= 1 {
			break
		}
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			break
		}
		out = append(out, strings.Split(string(bytes.TrimRight(cmdline, "\x00")), "\x00"))
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		// "pid (comm) state ppid ...": comm may hold spaces and parens.
		i := bytes.LastIndexByte(stat, ')')
		fields := strings.Fields(string(stat[i+1:]))
		if i < 0 || len(fields) < 2 {
			break
		}
		if pid, err = strconv.Atoi(fields[1]); err != nil {
			break
		}
	}
	return out
}
