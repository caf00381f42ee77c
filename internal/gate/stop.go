package gate

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/cli"
)

// helpWidth is the width the hooks' help summaries are wrapped to.
const helpWidth = 76

// stopSummary is stop-hook's --help summary, each host's event named from
// its spec.
func stopSummary() string {
	return cli.Reflow("End-of-turn hook ("+hostEvents(func(n hookio.EventNames) string { return n.Stop })+"): "+
		`runs donegate's checker chain and, while work is open, answers in the host's shape ({"decision":"block","reason":...} on Claude Code) `+
		"so the agent keeps going, told exactly what is left. With --criteria, at the session's start and the person's prompt, "+
		"it tells the agent what will be checked; with --start, after the agent's edits, it starts the stop's checks. "+
		"The host is told from the event; --host names it.", helpWidth)
}

// hostEvents lists, host by host, the events of each that name picks.
func hostEvents(name func(hookio.EventNames) string) string {
	var parts []string
	for _, h := range hookio.Hosts {
		parts = append(parts, h.Title()+": "+name(h.EventNames()))
	}
	return strings.Join(parts, "; ")
}

// StopHook is the stop-hook executable.
func StopHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, env Env) (code int) {
	defer survive(&code, stderr)
	const name = StopHookName
	opts, code, done := parseFlags(name, stopSummary, args, stdout, stderr)
	if done {
		return code
	}
	raw, err := hookio.ReadAll(stdin)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitError
	}
	rep, err := Evaluate(ctx, name, opts, env, raw, stderr)
	return answer(name, stdout, stderr, rep, err)
}

// answer prints what Evaluate decided: the answer, or the error that
// kept it from deciding as one line on stderr.
func answer(name string, stdout, stderr io.Writer, rep Report, err error) int {
	if err == nil {
		if _, werr := stdout.Write(rep.Answer); werr != nil {
			// As hookio.WriteAnswer words it when it writes to stdout itself.
			err = fmt.Errorf("write answer: %w", werr)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return ExitError
	}
	return ExitOK
}
