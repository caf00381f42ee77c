package gate

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// start is stop-hook --start, which the host runs in the background
// after the agent's edits (Claude Code's "async": true hooks): it runs the
// stop's cached command checks (checkers.StartEarly) for the tree as the
// edit left it, with the config and the consent the stop would use, so
// that the stop finds their results remembered, or joins the run. A
// newer edit's start, or a stop for another tree, stops a run whose tree
// is gone; the host's SIGTERM (Claude Code sends one to its background
// hooks when the session's turn ends) stops it with its process tree. It
// answers nothing and counts nothing: the stop decides. The checks run
// under their own timeouts, not the stop's budget, at a lower CPU
// priority than the agent's own tool calls.
func start(ctx context.Context, hook string, opts Options, env Env, ev *hookio.Event, raw []byte, stderr io.Writer) (Report, error) {
	r := newRun(hook, opts, env, ev, stderr)
	r.raw = raw
	rep := Report{Hook: hook, Event: r.event, ProjectDir: r.projectDir(), StateDir: r.stateDir(), Decision: Decision{Kind: KindStarted}}
	if !ev.Host.RunsHooksInBackground() {
		// Only Claude Code runs this entry in the background. Others run
		// it in the foreground after every tool call, whatever its
		// matcher (VS Code and Cursor run .claude/settings.json's hooks
		// too): checks started there would hold up each tool call.
		rep.Decision = Decision{Kind: KindStarted, Why: ev.Host.Title() + " runs no hook in the background: nothing started"}
		return rep, rep.write()
	}
	if r.modeEnv == config.ModeOff {
		rep.Decision = Decision{Kind: KindOff, Why: ModeEnv + "=off"}
		return rep, rep.write()
	}
	r.noteEdit()
	c, file, err := r.loadConfig()
	c, r.consent, err = r.resolveConsent(c, file, err)
	rep.ConfigErr, rep.Consent, rep.Dialect = err, r.consent, r.dialect(c)
	if err != nil {
		// The stop says what is wrong with it.
		return rep, rep.write()
	}
	r.settleMode(c)
	switch {
	case r.mode == config.ModeOff:
		rep.Decision = Decision{Kind: KindOff, Why: `the config's "mode": "off"`}
		return rep, rep.write()
	case r.guarded():
		rep.Decision = Decision{Kind: KindGuarded}
		return rep, rep.write()
	case r.readOnly():
		return rep, rep.write()
	}
	chain, err := checkers.Chain(checkers.At(c.Checkers, checkers.ReasonStop))
	if err != nil {
		return rep, rep.write()
	}
	cc := r.checkerContext(c, checkers.ReasonStop)
	cc.Budget = c.Limits.Budget.D()
	for _, s := range checkers.StartEarly(ctx, cc, chain) {
		what := "`" + s.Command + "`"
		if s.Label != "" {
			what = s.Label + " " + what
		}
		switch {
		case s.Err != nil:
			fmt.Fprintf(r.stderr, "%s: started %s early: %v\n", r.name, what, s.Err)
		case s.Reused:
			fmt.Fprintf(r.stderr, "%s: %s: a result for this tree is remembered already\n", r.name, what)
		case s.Result.NotRun:
			fmt.Fprintf(r.stderr, "%s: %s: %s\n", r.name, what, firstLine(s.Result.Feedback))
		default:
			fmt.Fprintf(r.stderr, "%s: ran %s early for the stop: %s\n", r.name, what, firstLine(s.Result.Feedback))
		}
	}
	return rep, rep.write()
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
