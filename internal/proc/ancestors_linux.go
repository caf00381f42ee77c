package proc

import (
	"bytes"
	"io"
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
		if pid = Parent(pid); pid == 0 {
			break
		}
	}
	return out
}

// Parent is pid's parent, read from /proc; 0 when it cannot be read.
func Parent(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// "pid (comm) state ppid ...": comm may hold spaces and parens.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 2 {
		return 0
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return 0
	}
	return ppid
}

// maxEnvironBytes bounds an environment read by Environ.
const maxEnvironBytes = 1 << 20

// Environ is the environment pid was started with, and its command's
// name, read from /proc; false when it cannot be read (another user's
// process).
func Environ(pid int) (env map[string]string, command string, ok bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil, "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEnvironBytes))
	if err != nil {
		return nil, "", false
	}
	env = map[string]string{}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && k != "" {
			env[k] = v
		}
	}
	if comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil {
		command = strings.TrimSpace(string(comm))
	}
	return env, command, true
}
