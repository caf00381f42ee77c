// Command stop-hook is donegate's Claude Code Stop and SubagentStop hook.
// It keeps an agent working while its plan, tests or required files are
// not done. See the README for registration and configuration.
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := gate.StopHook(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, gate.OSEnv())
	stop()
	os.Exit(code)
}
