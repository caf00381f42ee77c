package gate

import (
	"context"
	"fmt"
	"io"

	"github.com/donegate/donegate/hookio"
)

const stopSummary = `End-of-turn hook (Claude Code and Qwen Code Stop / SubagentStop, Codex
Stop, Gemini CLI AfterAgent, Copilot CLI agentStop / subagentStop, Cursor
stop): runs donegate's checker chain and, while work is open, answers in
the host's shape ({"decision":"block","reason":...} on Claude Code) so
the agent keeps going, told exactly what is left. The host is told from
the event; --host names it.`

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
