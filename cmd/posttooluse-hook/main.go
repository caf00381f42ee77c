// Command posttooluse-hook is donegate's hook around the agent's tool
// calls (PreToolUse and PostToolUse, and each host's names for them): it
// gates the agent's final StructuredOutput (or other configured tools)
// until the work is done, refuses the shell and edit calls that would
// loosen the gate, and notes the agent's own runs of a checked command.
// See docs/hosts.md.
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
	os.Exit(gate.ToolHook(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr, gate.OSEnv()))
}
