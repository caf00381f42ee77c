package closer

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

var loopCommand = command{
	name: "loop",
	args: " --prompt-file FILE [-- CLAUDE FLAGS...]",
	summary: `Run an agent again and again until its task is done (an outer loop).
Records HEAD as the baseline, runs claude -p with the prompt (your hooks,
donegate's included, apply as usual), then smart-check and check. While
incomplete it runs the next iteration with --continue and check's retry
prompt. It stops when complete, at --max-iterations, or when the circuit
breaker trips: --no-progress-limit iterations in a row whose smart-check
timed out, made no commit after the rescue, or could not probe. Flags after
-- go to claude.`,
	rest: true,
	bind: func(fs *flag.FlagSet, _ *options) runFunc {
		var o loopOptions
		fs.StringVar(&o.promptFile, "prompt-file", "", "`file` holding the task prompt (required)")
		fs.IntVar(&o.maxIterations, "max-iterations", 10, "stop after `n` iterations")
		fs.IntVar(&o.noProgressLimit, "no-progress-limit", 3, "stop after `n` iterations in a row without progress")
		fs.DurationVar(&o.iterationTimeout, "iteration-timeout", time.Hour, "stop one claude run (and its process group) after this `duration`")
		probeFlags(fs, &o.probe)
		return func(ctx context.Context, r *runCtx) (verdict, error) {
			o.claudeArgs = r.opts.args // flags after -- go to claude
			return runLoop(ctx, r, o)
		}
	},
}

// loopOptions are loop's flags.
type loopOptions struct {
	promptFile                     string
	maxIterations, noProgressLimit int
	iterationTimeout               time.Duration
	probe                          probeOptions
	claudeArgs                     []string // what follows --
}

// Why a loop stopped.
const (
	StoppedComplete       = "complete"
	StoppedMaxIterations  = "max_iterations"
	StoppedCircuitBreaker = "circuit_breaker"
	StoppedInterrupted    = "interrupted"
	StoppedError          = "error"
)

// IterationEvent is one --json line per iteration.
type IterationEvent struct {
	Event      string  `json:"event"` // "iteration"
	Iteration  int     `json:"iteration"`
	ElapsedS   float64 `json:"elapsed_s"`
	SessionID  string  `json:"session_id"`
	Complete   bool    `json:"complete"`
	NewCommits int     `json:"new_commits"` // in this iteration
	// ClaudeError says why the agent's run gave no result, if it did not.
	ClaudeError string      `json:"claude_error,omitempty"`
	SmartCheck  SmartReport `json:"smart_check"`
	Check       CheckReport `json:"check"`
	Pending     []string    `json:"pending"`
	NoProgress  int         `json:"no_progress"` // iterations in a row without progress
}

// SummaryEvent is the last --json line.
type SummaryEvent struct {
	Event      string  `json:"event"` // "summary"
	Iterations int     `json:"iterations"`
	Commits    int     `json:"commits"`
	Rescues    int     `json:"rescues"`
	Stopped    string  `json:"stopped"`
	ElapsedS   float64 `json:"elapsed_s"`
	Baseline   string  `json:"baseline"`
	Error      string  `json:"error,omitempty"`
}

func runLoop(ctx context.Context, r *runCtx, o loopOptions) (verdict, error) {
	switch {
	case o.promptFile == "":
		return incomplete, errorf(ErrUsage, "--prompt-file FILE is required")
	case o.maxIterations < 1:
		return incomplete, errorf(ErrUsage, "--max-iterations %d: must be at least 1", o.maxIterations)
	case o.noProgressLimit < 1:
		return incomplete, errorf(ErrUsage, "--no-progress-limit %d: must be at least 1", o.noProgressLimit)
	case o.iterationTimeout <= 0:
		return incomplete, errorf(ErrUsage, "--iteration-timeout %s: must be positive", o.iterationTimeout)
	}
	if err := o.probe.check(); err != nil {
		return incomplete, err
	}
	data, err := os.ReadFile(o.promptFile)
	if err != nil {
		return incomplete, errorf(ErrUsage, "--prompt-file: %w", err)
	}
	prompt := strings.TrimSpace(string(data))
	if prompt == "" {
		return incomplete, errorf(ErrUsage, "--prompt-file %s is empty", o.promptFile)
	}
	if err := requireRepo(ctx, r.dir); err != nil {
		return incomplete, err
	}
	baseline, err := head(ctx, r.dir)
	if err != nil {
		return incomplete, err
	}
	if baseline == "" {
		return incomplete, errorf(ErrEnv, "%s has no commit yet: loop needs one to count the agent's commits from", r.dir)
	}
	// The config must be valid before the agent runs, not after.
	if _, err := r.loadConfig(); err != nil {
		return incomplete, err
	}

	start := r.env.Now()
	sum := SummaryEvent{Event: "summary", Baseline: baseline, Stopped: StoppedMaxIterations}
	p := r.printer()
	noProgress := 0
	for i := 1; i <= o.maxIterations; i++ {
		ev, err := r.iteration(ctx, o, i, prompt, start)
		sum.Iterations = i
		if ev.SmartCheck.Rescued {
			sum.Rescues++
		}
		if err != nil {
			sum.Stopped = StoppedError
			if ctx.Err() != nil {
				sum.Stopped = StoppedInterrupted
			} else {
				sum.Error = err.Error()
			}
			r.finish(ctx, o, p, &sum, start)
			if sum.Stopped == StoppedInterrupted {
				return incomplete, p.err
			}
			return incomplete, err
		}
		if progressless(ev.SmartCheck) {
			noProgress++
		} else {
			noProgress = 0
		}
		ev.NoProgress = noProgress
		r.progress(p, ev, o.maxIterations)
		if ev.Complete {
			sum.Stopped = StoppedComplete
			break
		}
		if noProgress >= o.noProgressLimit {
			sum.Stopped = StoppedCircuitBreaker
			break
		}
		prompt = nextPrompt(ev)
	}
	r.finish(ctx, o, p, &sum, start)
	return verdict(sum.Stopped == StoppedComplete), p.err
}

// progressless reports an iteration that made no progress: its smart
// check timed out, its rescue made no commit, or the agent could not be
// probed.
func progressless(s SmartReport) bool {
	return s.Status == StatusTimeout || s.Status == StatusProbeError || (s.RescueRan && s.NewCommits == 0)
}

// iteration runs the agent once, then smart-check and check.
func (r *runCtx) iteration(ctx context.Context, o loopOptions, i int, prompt string, start time.Time) (IterationEvent, error) {
	ev := IterationEvent{Event: "iteration", Iteration: i}
	iterBase, err := head(ctx, r.dir)
	if err != nil {
		return ev, err
	}
	args := []string{"-p", prompt, "--output-format", "json"}
	if i > 1 {
		args = append([]string{"--continue"}, args...)
	}
	args = append(args, o.claudeArgs...)
	cr, err := runClaude(ctx, o.probe.claude, r.dir, o.iterationTimeout, args...)
	var nv *noVerdict
	switch {
	case errors.As(err, &nv):
		ev.ClaudeError = nv.Reason
	case err != nil:
		return ev, err
	}
	ev.SessionID = cr.SessionID
	ev.SmartCheck, err = r.smartCheck(ctx, o.probe, iterBase, "")
	if err != nil {
		return ev, err
	}
	ev.NewCommits = ev.SmartCheck.NewCommits
	ev.Check, err = r.check(ctx, sessionOptions{})
	if err != nil {
		return ev, err
	}
	if ctx.Err() != nil {
		return ev, ctx.Err()
	}
	ev.Complete = ev.SmartCheck.Complete && ev.Check.AllComplete
	ev.Pending = append([]string{}, ev.Check.PendingActions...)
	if !ev.SmartCheck.Complete {
		ev.Pending = append(ev.Pending, "smart-check: "+ev.SmartCheck.Status+" — "+ev.SmartCheck.Reason)
	}
	ev.ElapsedS = r.env.Now().Sub(start).Seconds()
	return ev, nil
}

// nextPrompt is what the agent is told in the next iteration: check's
// retry prompt, and what smart-check found.
func nextPrompt(ev IterationEvent) string {
	var b strings.Builder
	if ev.Check.RetryPrompt != "" {
		b.WriteString(ev.Check.RetryPrompt)
		b.WriteString("\n\n")
	}
	if !ev.SmartCheck.Complete {
		fmt.Fprintf(&b, "No commit was made in the last iteration (%s: %s). Finish the task, then commit your work with git.", ev.SmartCheck.Status, ev.SmartCheck.Reason)
	}
	return strings.TrimSpace(b.String())
}

func (r *runCtx) progress(p *printer, ev IterationEvent, max int) {
	if r.opts.json {
		if p.err == nil {
			p.err = writeJSON(r.stdout, ev)
		}
		return
	}
	verdict := p.green("✓ complete")
	if !ev.Complete {
		verdict = p.red("✗ incomplete") + ": " + strings.Join(ev.Pending, "; ")
	}
	line := fmt.Sprintf("iteration %d/%d  %s  commits %d  %s", ev.Iteration, max, time.Duration(ev.ElapsedS*float64(time.Second)).Round(time.Second), ev.NewCommits, verdict)
	if ev.ClaudeError != "" {
		line += " (claude: " + ev.ClaudeError + ")"
	}
	p.line(oneLine(line))
}

// finish prints the summary. The commits are counted with a fresh
// context: an interrupted loop still reports them.
func (r *runCtx) finish(ctx context.Context, o loopOptions, p *printer, sum *SummaryEvent, start time.Time) {
	sum.ElapsedS = r.env.Now().Sub(start).Seconds()
	if n, err := commitsSince(context.WithoutCancel(ctx), r.dir, sum.Baseline); err == nil {
		sum.Commits = n
	}
	if r.opts.json {
		if p.err == nil {
			p.err = writeJSON(r.stdout, sum)
		}
		return
	}
	msg := fmt.Sprintf("loop stopped: %s after %d iteration(s), %s; %d commit(s) since %s, %d rescue(s)",
		sum.Stopped, sum.Iterations, time.Duration(sum.ElapsedS*float64(time.Second)).Round(time.Second), sum.Commits, shortID(sum.Baseline), sum.Rescues)
	switch sum.Stopped {
	case StoppedComplete:
		p.line(p.green(msg))
	case StoppedCircuitBreaker:
		p.line(p.red(msg) + fmt.Sprintf(". No progress in %d iterations in a row: look at what the agent is stuck on before running it again.", o.noProgressLimit))
	default:
		p.line(p.red(msg))
	}
}
