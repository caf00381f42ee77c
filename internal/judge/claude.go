package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/donegate/donegate/internal/proc"
)

// NoHooks is the --settings a question about the work is asked with (the
// judge, closer's status probe): the project's Stop or StructuredOutput
// hooks, donegate's included, must not hold a question about the work as
// if it were the work, nor run the judge again from inside the judge.
const NoHooks = `{"disableAllHooks":true}`

// maxStdout bounds what is kept of claude's stdout: a result is a few KB,
// kept whole so that it decodes.
const maxStdout = 16 << 20

// Result is what `claude -p --output-format json` prints.
type Result struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	IsError          bool            `json:"is_error"`
	Result           string          `json:"result"`
	SessionID        string          `json:"session_id"`
	NumTurns         int             `json:"num_turns"`
	StructuredOutput json.RawMessage `json:"structured_output"`
}

// NoVerdict is a run of claude that gave no answer to read: timed out,
// failed, is_error, or printed something else than its result. For a
// judge it is a verdict of "incomplete" with this reason, not an error:
// the judge fails closed.
type NoVerdict struct{ Reason string }

func (e *NoVerdict) Error() string { return e.Reason }

// ErrNotFound is wrapped when the claude executable does not exist.
var ErrNotFound = errors.New("not found")

// Runner runs a command: proc.Run, or a checker's runner (which adds the
// recursion guard to its environment).
type Runner func(ctx context.Context, cmd proc.Command) (proc.Outcome, error)

// RunClaude runs claude (bin, a name looked up on PATH or a path) with
// args in dir for at most timeout, through run, and decodes its JSON
// result. A claude that cannot be found wraps ErrNotFound, one that
// cannot be started is another error; one that gives no result is a
// *NoVerdict; a run that ctx ended (Ctrl-C, a hook's spent budget) is an
// error wrapping ctx's.
func RunClaude(ctx context.Context, run Runner, bin, dir string, timeout time.Duration, env []string, args ...string) (Result, error) {
	path, err := exec.LookPath(bin)
	if err != nil {
		return Result{}, fmt.Errorf("claude executable %q: %w", bin, ErrNotFound)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := run(runCtx, proc.Command{
		Args: append([]string{path}, args...), Dir: dir, Env: env,
		SplitStdout: true, MaxStdout: maxStdout,
	})
	switch {
	case err != nil:
		return Result{}, fmt.Errorf("run %s: %w", bin, err)
	case res.Ended && ctx.Err() != nil:
		return Result{}, fmt.Errorf("%s interrupted: %w", bin, ctx.Err())
	case res.Ended:
		return Result{}, &NoVerdict{fmt.Sprintf("%s timed out after %s and was stopped with its process group", bin, timeout)}
	}
	cr, decodeErr := decodeResult(res.Stdout)
	switch {
	case decodeErr == nil && cr.IsError:
		return cr, &NoVerdict{fmt.Sprintf("%s reported an error (%s): %s", bin, cr.Subtype, Preview(cr.Result))}
	case res.ExitCode != 0:
		why := tailText(res.Output, 3)
		if why == "" {
			why = Preview(string(res.Stdout))
		}
		return cr, &NoVerdict{fmt.Sprintf("%s exited with code %d: %s", bin, res.ExitCode, oneLine(why))}
	case res.StdoutCut:
		// What was kept is a cut JSON text: its error would name a
		// position in it, not the cause.
		return Result{}, &NoVerdict{fmt.Sprintf("%s printed more than %d MiB, more than any result, and was not read", bin, maxStdout>>20)}
	case decodeErr != nil:
		return cr, &NoVerdict{fmt.Sprintf("%s printed no JSON result: %v", bin, decodeErr)}
	}
	return cr, nil
}

// decodeResult reads claude's result object; some versions print a JSON
// array of messages whose last element is the result.
func decodeResult(out []byte) (Result, error) {
	var cr Result
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
	return Result{}, fmt.Errorf("output %q is not a result object", Preview(trimmed))
}

// previewRunes bounds a Preview.
const previewRunes = 120

// Preview is the start of s on one line, at most previewRunes runes of it,
// marked with "..." when cut, for messages. It cuts between runes: a cut
// inside one would put invalid UTF-8 in the feedback the agent reads.
func Preview(s string) string {
	s = oneLine(s)
	if utf8.RuneCountInString(s) <= previewRunes {
		return s
	}
	return string([]rune(s)[:previewRunes]) + "..."
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// tailText is the last n lines of b, trimmed, for messages.
func tailText(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}
