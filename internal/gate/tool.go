package gate

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

const toolSummary = `Claude Code PreToolUse / PostToolUse hook for gated tools (default:
StructuredOutput): while work is open, a PreToolUse call is denied with the
open work as the reason, so the agent must finish before its final output.
Other tools are answered {} at once.`

// ToolHook is the posttooluse-hook executable.
func ToolHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env Env) int {
	const name = "posttooluse-hook"
	opts, code, done := parseFlags(name, toolSummary, args, stdout, stderr)
	if done {
		return code
	}
	raw, err := hookio.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitError
	}
	// Most tool events are not gated: answer those before any other work.
	// Only a config file can gate more tools than the default list, so
	// where none exists the answer is known from two fields.
	if p := hookio.Peek(raw); (p.Event == hookio.EventPreToolUse || p.Event == hookio.EventPostToolUse) &&
		p.Tool != "" && !slices.Contains(config.DefaultGateTools, p.Tool) {
		path, err := config.Find(lookup(opts, env, p.Cwd))
		if err == nil && path == "" {
			fmt.Fprintln(stdout, "{}")
			return ExitOK
		}
	}
	ev, err := hookio.ParseEvent(raw)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitError
	}
	if ev.HookEventName != hookio.EventPreToolUse && ev.HookEventName != hookio.EventPostToolUse {
		fmt.Fprintf(stderr, "%s: got a %s event; register posttooluse-hook for PreToolUse and PostToolUse only\n", name, ev.HookEventName)
		return ExitError
	}
	r := newRun(name, opts, env, ev, stderr)
	r.raw = raw
	c, err := r.loadConfig()
	// Ungated tools pass at once, whatever the config. A broken config
	// cannot say which tools it gates, so then only the default ones are:
	// denying every tool (Write included, the one the agent needs to fix
	// the config) would trap the agent.
	gated := config.DefaultGateTools
	if err == nil {
		gated = c.GateTools
	}
	if !slices.Contains(gated, ev.ToolName) {
		return r.answer(stdout, r.dialect(c), hookio.Verdict{})
	}
	d, v := r.evaluate(ctx, checkers.ReasonToolUse, c, err)
	return r.answer(stdout, d, v)
}
