// Command closer runs donegate's checks outside a Claude Code hook: in CI,
// after an agent run, and around an agent in an outer loop. See
// `closer --help` and docs/closer.md.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/donegate/donegate/internal/closer"
)

func main() {
	// Ctrl-C (or SIGTERM) ends the context: a running claude or command
	// is stopped with its process group and closer reports what it has.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := closer.Main(ctx, os.Args[1:], os.Stdout, os.Stderr, closer.OSEnv())
	stop()
	os.Exit(code)
}
