// Command stop-hook is donegate's hook at the end of an agent's turn, in
// each host's name for it (Stop and SubagentStop, Gemini CLI's
// AfterAgent, Copilot CLI's agentStop, ...), or run by donegate's plugin
// where a host has no such hook (OpenCode, Kilo, pi, Cline): the hosts
// are listed in docs/hosts.md. It keeps an agent
// working while its plan, tests or required files are not done; with
// --criteria it tells the agent up front what will be checked, with
// --start it starts the stop's checks after the agent's edits. See
// docs/hosts.md for registration and docs/configuration.md for
// configuration.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/donegate/donegate/internal/gate"
)

func main() {
	// A reader that went away must not kill us silently: with SIGPIPE
	// ignored a write fails with EPIPE, which is reported on stderr.
	signal.Ignore(syscall.SIGPIPE)
	// SIGTERM and SIGINT keep their default action (exit) except while a
	// command runs: see proc.EndOnSignal.
	os.Exit(gate.StopHook(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, gate.OSEnv()))
}
