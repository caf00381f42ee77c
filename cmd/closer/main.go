// Command closer is the person's side of donegate: it sets the hooks up
// for each host (init), checks the setup (doctor), allows a project's
// commands (allow), lets a held turn go (release), says why a stop was
// decided (explain, log), sends the decisions on (export), and runs the
// same checks outside a hook (check, judge, smart-check, loop). See
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
