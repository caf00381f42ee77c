package closer

import (
	"context"
	"flag"
	"fmt"

	"github.com/donegate/donegate/internal/gate"
)

var releaseCommand = command{
	name:     "release",
	noConfig: true,
	summary: `Let the agent go now: release the current turn of the latest session the
hooks saw in the project (--dir, default the current directory's; or
--session ID), so that its stops are answered at once, unchecked. Run it
in a terminal of your own: closer refuses it from inside an agent's shell
(Claude Code's Bash tool and !cmd alike), where the agent could release
its own gate. In Claude Code, typing "donegate release" as a message
releases the running turn at once, even while the agent works. On hosts
that name no turn (Copilot CLI, Cursor, Gemini CLI's events without a turn
record) the release lasts the session. --undo takes it back.
DONEGATE_MODE=off where the host starts turns the hooks off for a whole
session; DONEGATE_MODE=observe makes them report without holding.`,
	bind: func(fs *flag.FlagSet, _ *options) runFunc {
		var o releaseOptions
		fs.StringVar(&o.session, "session", "", "the session `id` to release (default: the latest the hooks saw)")
		fs.BoolVar(&o.undo, "undo", false, "take the release back: the turn's stops are checked again")
		stateDirFlag(fs, &o.stateDir)
		return func(ctx context.Context, r *runCtx) (verdict, error) { return runRelease(ctx, r, o) }
	},
}

// releaseOptions are release's flags.
type releaseOptions struct {
	session, stateDir string
	undo              bool
}

func runRelease(_ context.Context, r *runCtx, o releaseOptions) (verdict, error) {
	if r.opts.configPath != "" {
		return incomplete, errorf(ErrUsage, "--config: release reads no config")
	}
	if err := r.personOnly("release"); err != nil {
		return incomplete, err
	}
	rel, err := gate.Release(r.stateDirOr(o.stateDir), r.dir, o.session, o.undo, r.env.Now(), "closer release")
	if err != nil {
		return incomplete, errorf(ErrEnv, "%w", err)
	}
	if r.opts.json {
		return complete, writeJSON(r.stdout, map[string]any{"project": rel.Project, "session": rel.Session, "prompt": rel.Prompt, "host": string(rel.Host), "undone": rel.Undone})
	}
	turn := "turn " + rel.Prompt
	if rel.Prompt == "" {
		turn = "every turn (the host names none)"
	}
	p := r.printer()
	if rel.Undone {
		p.line(fmt.Sprintf("Release taken back: session %s in %s is checked again.", rel.Session, rel.Project))
	} else {
		p.line(fmt.Sprintf("Released %s of session %s (%s) in %s: its stops are let go, unchecked. closer release --undo takes it back.", turn, rel.Session, rel.Host.Title(), rel.Project))
	}
	return complete, p.err
}
