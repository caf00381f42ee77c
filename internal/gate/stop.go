package gate

import (
	"context"
	"fmt"
	"io"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

const stopSummary = `Claude Code Stop / SubagentStop hook: runs donegate's checker chain and,
while work is open, answers {"decision":"block","reason":...} so the agent
keeps going, told exactly what is left.`

// StopHook is the stop-hook executable.
func StopHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env Env) int {
	const name = "stop-hook"
	opts, code, done := parseFlags(name, stopSummary, args, stdout, stderr)
	if done {
		return code
	}
	raw, err := hookio.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitError
	}
	ev, err := hookio.ParseEvent(raw)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitError
	}
	if !ev.IsStop() {
		fmt.Fprintf(stderr, "%s: got a %s event; register stop-hook for Stop and SubagentStop only\n", name, ev.HookEventName)
		return ExitError
	}
	r := newRun(name, opts, env, ev, stderr)
	r.raw = raw
	reason := checkers.ReasonStop
	if ev.HookEventName == hookio.EventSubagentStop {
		reason = checkers.ReasonSubagentStop
	}
	c, err := r.loadConfig()
	d, v := r.evaluate(ctx, reason, c, err)
	return r.answer(stdout, d, v)
}

// evaluate checks and decides with the config the run loaded (c, or the
// error that loading it gave).
func (r *run) evaluate(ctx context.Context, reason checkers.StopReason, c *config.Config, err error) (hookio.Dialect, hookio.Verdict) {
	if r.guarded() {
		fmt.Fprintf(r.stderr, "%s: running inside donegate's own check of session %s; not checking again\n", r.name, r.event.SessionID)
		return r.dialect(c), hookio.Verdict{}
	}
	if err != nil {
		if !config.BlockOnError(err) {
			return r.dialect(nil), r.configFailure(err)
		}
		fallback := config.Default()
		fallback.OnError = "block"
		return r.dialect(nil), r.decide(fallback, checkers.Result{}, err)
	}
	res, err := r.check(ctx, c, reason)
	return r.dialect(c), r.decide(c, res, err)
}

func (r *run) answer(stdout io.Writer, d hookio.Dialect, v hookio.Verdict) int {
	if err := hookio.WriteAnswer(stdout, r.event.HookEventName, d, v); err != nil {
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		return ExitError
	}
	return ExitOK
}
