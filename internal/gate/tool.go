package gate

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/paths"
)

// toolSummary is posttooluse-hook's --help summary, each host's event
// named from its spec.
func toolSummary() string {
	return cli.Reflow("Tool-call hook ("+hostEvents(func(n hookio.EventNames) string { return n.Tool })+") "+
		"for gated tools (default: StructuredOutput): while work is open, a call before it runs is denied with the open work as the reason, "+
		"so the agent must finish before its final output. Before the agent's shell and edit calls it refuses those that would loosen the gate; "+
		"after a shell call it notes the agent's own passing run of a checked command. Other tools are answered {} at once.", helpWidth)
}

// ToolHook is the posttooluse-hook executable.
func ToolHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env Env) (code int) {
	defer survive(&code, stderr)
	const name = ToolHookName
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
	// where none exists the answer is known from the event's name, tool and
	// cwd (expanded as Evaluate expands it). Evaluate gives the same answer
	// the long way (closer explain takes it).
	// A run of the agent's shell tool may stand for a check's own run
	// (see recordAgentRun), with the embedded default config too; a call
	// of its shell or edit tools is looked at before it runs (see guard).
	host := detectHost(opts, env, raw)
	if p := hookio.PeekHost(raw, host); (p.Event == hookio.EventPreToolUse || p.Event == hookio.EventPostToolUse) &&
		p.Tool != "" && !slices.Contains(config.DefaultGateTools, p.Tool) && !(p.Event == hookio.EventPostToolUse && p.Tool == host.ShellTool()) {
		path, err := config.Find(lookup(opts, env, paths.Expand(env.Getenv, p.Cwd)))
		if err == nil && path == "" {
			if p.Event == hookio.EventPreToolUse && host.GuardedTool(p.Tool) && guardMayStop(raw, env, host) {
				if rep, refused, err := guardOnly(name, opts, env, raw, stderr); refused {
					return answer(name, stdout, stderr, rep, err)
				}
			}
			return answer(name, stdout, stderr, Report{Answer: []byte("{}\n")}, nil)
		}
	}
	rep, err := Evaluate(ctx, name, opts, env, raw, stderr)
	return answer(name, stdout, stderr, rep, err)
}
