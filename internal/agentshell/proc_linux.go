package agentshell

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
)

// maxEnvironBytes bounds an ancestor's environment read.
const maxEnvironBytes = 1 << 20

func selfPID() int { return os.Getpid() }

// parentOf is pid's parent, 0 when it cannot be read.
func parentOf(pid int) int {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses,
	// so the fields are read after its last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return 0
	}
	return ppid
}

// environOf is the environment pid was started with; false when it
// cannot be read (another user's process).
func environOf(pid int) (map[string]string, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEnvironBytes))
	if err != nil {
		return nil, false
	}
	env := map[string]string{}
	for _, kv := range bytes.Split(data, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok && k != "" {
			env[k] = v
		}
	}
	return env, true
}

// commandOf is pid's command name, "" when it cannot be read.
func commandOf(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}
