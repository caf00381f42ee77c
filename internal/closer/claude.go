package closer

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"
)

// noHooks is the --settings closer gives its own questions to a model (the
// judge, the status probe): the project's Stop or StructuredOutput hooks,
// donegate's included, must not hold a question about the work as if it
// were the work.
const noHooks = `{"disableAllHooks":true}`

// claudeResult is what `claude -p --output-format json` prints.
type claudeResult struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	IsError          bool            `json:"is_error"`
	Result           string          `json:"result"`
	SessionID        string          `json:"session_id"`
	NumTurns         int             `json:"num_turns"`
	StructuredOutput json.RawMessage `json:"structured_output"`
}

// noVerdict is a run of claude that gave no answer to read: timed out,
// failed, is_error, or printed something else than its result. It is a
// verdict of "incomplete" with this reason, not an error of closer's.
type noVerdict struct{ reason string }

func (e *noVerdict) Error() string { return e.reason }

// claudeFlag registers --claude.
func claudeFlag(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "claude", "claude", "the Claude Code `executable` (a name looked up on PATH, or a path)")
}

// runClaude runs claude with args in dir and decodes its JSON result. A
// claude that cannot be found or started is an ErrEnv error; one that
// gives no result is a *noVerdict; an interrupted run is ctx's error.
func runClaude(ctx context.Context, bin, dir string, timeout time.Duration, args ...string) (claudeResult, error) {
	res, err := runProgram(ctx, dir, timeout, nil, bin, args...)
	switch {
	case errors.Is(err, errNotFound):
		return claudeResult{}, errorf(ErrEnv, "claude executable %q not found (install Claude Code, or name it with --claude PATH)", bin)
	case err != nil:
		return claudeResult{}, errorf(ErrEnv, "%w", err)
	case res.Interrupted:
		return claudeResult{}, fmt.Errorf("%s interrupted: %w", bin, ctx.Err())
	case res.TimedOut:
		return claudeResult{}, &noVerdict{fmt.Sprintf("%s timed out after %s and was stopped with its process group", bin, timeout)}
	}
	cr, decodeErr := decodeResult(res.Stdout)
	switch {
	case decodeErr == nil && cr.IsError:
		return cr, &noVerdict{fmt.Sprintf("%s reported an error (%s): %s", bin, cr.Subtype, preview(cr.Result))}
	case res.ExitCode != 0:
		why := tailText(res.Stderr, 3)
		if why == "" {
			why = preview(string(res.Stdout))
		}
		return cr, &noVerdict{fmt.Sprintf("%s exited with code %d: %s", bin, res.ExitCode, oneLine(why))}
	case decodeErr != nil:
		return cr, &noVerdict{fmt.Sprintf("%s printed no JSON result: %v", bin, decodeErr)}
	}
	return cr, nil
}

// decodeResult reads claude's result object; some versions print a JSON
// array of messages whose last element is the result.
func decodeResult(out []byte) (claudeResult, error) {
	var cr claudeResult
	trimmed := strings.TrimSpace(string(out))
	if trimmed == "" {
		return cr, errors.New("its output is empty")
	}
	if err := json.Unmarshal([]byte(trimmed), &cr); err == nil && cr.Type == "result" {
		return cr, nil
	}
	var msgs []json.RawMessage
	if json.Unmarshal([]byte(trimmed), &msgs) == nil && len(msgs) > 0 {
		if json.Unmarshal(msgs[len(msgs)-1], &cr) == nil && cr.Type == "result" {
			return cr, nil
		}
	}
	return claudeResult{}, fmt.Errorf("output %q is not a result object", preview(trimmed))
}
