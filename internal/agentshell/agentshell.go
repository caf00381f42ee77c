// Package agentshell tells whether a process runs inside an agent's
// shell: started, directly or not, by a host's shell tool. closer asks it
// before the person's commands (release, allow, revoke, init), which an
// agent must not run on its own gate.
//
// A host marks its shell tool's environment (Claude Code: CLAUDECODE=1,
// see hookio.AgentShellMarker). The process's own environment is looked
// at first, then, where the system shows them (Linux: /proc), the
// environments its ancestors were started with, up to maxAncestors: an
// agent that clears the variable for one command (env -u, env -i) still
// runs it from a shell that has it. What this cannot see is a process
// whose ancestry was cut (started through a double fork or a service
// manager) with a clean environment: outside a sandbox an agent runs as
// the person does, and only a sandbox that keeps it out of donegate's
// state dir closes that (docs/security.md).
package agentshell

import (
	"os"
	"strconv"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/proc"
)

// maxAncestors bounds the walk up the process tree.
const maxAncestors = 64

// Found is an agent shell found around a process.
type Found struct {
	Host hookio.Host
	// Marker is the variable found ("CLAUDECODE=1").
	Marker string
	// PID is the process whose environment holds it, 0 for the process's
	// own; Command is that process's name.
	PID     int
	Command string
}

// String says where the agent shell was found, for the person.
func (f Found) String() string {
	where := "in this process's environment"
	if f.PID != 0 {
		where = "in the environment of its ancestor process " + strconv.Itoa(f.PID)
		if f.Command != "" {
			where += " (" + f.Command + ")"
		}
	}
	return f.Host.Title() + "'s agent shell: " + f.Marker + " " + where
}

// Look reports whether the process runs inside an agent's shell: its
// own environment (getenv), then its ancestors' (see package doc).
func Look(getenv func(string) string) (Found, bool) {
	if f, ok := OwnOnly(getenv); ok {
		return f, true
	}
	return lookAncestors(proc.Parent(os.Getpid()))
}

// OwnOnly is Look without the ancestors: for the test binaries, which
// act as closer in scripts that a developer may run from inside an
// agent's shell.
func OwnOnly(getenv func(string) string) (Found, bool) {
	if h, m, ok := hookio.AgentShellMarker(getenv); ok {
		return Found{Host: h, Marker: m}, true
	}
	return Found{}, false
}

// lookAncestors walks up from pid (0: none) looking at each process's
// environment.
func lookAncestors(pid int) (Found, bool) {
	for i := 0; i < maxAncestors && pid > 1; i++ {
		if env, command, ok := proc.Environ(pid); ok {
			getenv := func(name string) string { return env[name] }
			if h, m, ok := hookio.AgentShellMarker(getenv); ok {
				return Found{Host: h, Marker: m, PID: pid, Command: command}, true
			}
		}
		pid = proc.Parent(pid)
	}
	return Found{}, false
}
