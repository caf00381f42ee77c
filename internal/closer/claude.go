package closer

import (
	"context"
	"errors"
	"flag"
	"time"

	"github.com/donegate/donegate/internal/judge"
	"github.com/donegate/donegate/internal/proc"
)

// noHooks is the --settings closer gives its own questions to a model (the
// judge, the status probe): see judge.NoHooks.
const noHooks = judge.NoHooks

// claudeResult is what `claude -p --output-format json` prints.
type claudeResult = judge.Result

// noVerdict is a run of claude that gave no answer to read: timed out,
// failed, is_error, or printed something else than its result. It is a
// verdict of "incomplete" with this reason, not an error of closer's.
type noVerdict = judge.NoVerdict

// claudeFlag registers --claude.
func claudeFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "claude", "claude", "the Claude Code `executable` (a name looked up on PATH, or a path)")
}

// runClaude runs claude with args in dir and decodes its JSON result, as
// the judge checker does (judge.RunClaude). A claude that cannot be found
// or started is an ErrEnv error; one that gives no result is a
// *noVerdict; an interrupted run is ctx's error.
func runClaude(ctx context.Context, bin, dir string, timeout time.Duration, args ...string) (claudeResult, error) {
	cr, err := judge.RunClaude(ctx, proc.Run, bin, dir, timeout, nil, args...)
	return cr, claudeError(ctx, bin, err)
}

// claudeError marks an error of judge.RunClaude or judge.Ask with its
// kind: a claude that cannot be found or started is the environment's.
func claudeError(ctx context.Context, bin string, err error) error {
	var nv *noVerdict
	switch {
	case err == nil, errors.As(err, &nv), ctx.Err() != nil:
		return err
	case errors.Is(err, judge.ErrNotFound):
		return errorf(ErrEnv, "claude executable %q not found (install Claude Code, or name it with --claude PATH)", bin)
	}
	return errorf(ErrEnv, "%w", err)
}
