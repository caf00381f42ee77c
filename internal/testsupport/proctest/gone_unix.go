//go:build !windows

package proctest

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Gone reports whether pid has exited. A zombie counts as exited: in a
// container whose init does not reap orphans, a killed orphan stays a
// zombie, and kill(pid, 0) still succeeds on it.
func Gone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return os.IsNotExist(err)
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}
