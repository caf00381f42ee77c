package closer

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/donegate/donegate/internal/proc"
)

var smartCheckCommand = command{
	name: "smart-check",
	args: " --baseline COMMIT",
	summary: `Decide from git whether an agent run is done (the smart completion check).
Commits since --baseline: complete. Otherwise ask the agent for its status
(claude --continue -p, or --resume with --session): "complete" with nothing
to commit is complete; "complete" with uncommitted changes runs
--rescue-command and counts commits again; "waiting" or "working" waits
--probe-interval and checks again, up to --max-probes, then tries one last
rescue.`,
	bind: func(fs *flag.FlagSet, _ *options) runFunc {
		var baseline, session string
		var po probeOptions
		fs.StringVar(&baseline, "baseline", "", "the `commit` the agent started from (required)")
		fs.StringVar(&session, "session", "", "probe this session `id` (claude --resume ID) instead of the directory's latest (claude --continue)")
		probeFlags(fs, &po)
		return func(ctx context.Context, r *runCtx) (verdict, error) {
			return runSmartCheck(ctx, r, po, baseline, session)
		}
	},
}

// probeOptions are smart-check's flags; loop takes them too.
type probeOptions struct {
	claude        string
	maxProbes     int
	interval      time.Duration
	timeout       time.Duration
	rescueCommand string
	rescueTimeout time.Duration
}

func probeFlags(fs *flag.FlagSet, o *probeOptions) {
	fs.IntVar(&o.maxProbes, "max-probes", 5, "ask the agent's status at most `n` times")
	fs.DurationVar(&o.interval, "probe-interval", 30*time.Second, "wait this `duration` after a \"waiting\" or \"working\" answer")
	fs.DurationVar(&o.timeout, "probe-timeout", 60*time.Second, "stop a status probe (claude and its process group) after this `duration`")
	fs.StringVar(&o.rescueCommand, "rescue-command", "", "`command` (sh -c, in DIR) that commits what the agent left uncommitted; none by default")
	fs.DurationVar(&o.rescueTimeout, "rescue-timeout", 5*time.Minute, "stop the rescue command after this `duration`")
	claudeFlag(fs, &o.claude)
}

func (o probeOptions) check() error {
	switch {
	case o.maxProbes < 0:
		return errorf(ErrUsage, "--max-probes %d: must not be negative", o.maxProbes)
	case o.timeout <= 0:
		return errorf(ErrUsage, "--probe-timeout %s: must be positive", o.timeout)
	case o.rescueTimeout <= 0:
		return errorf(ErrUsage, "--rescue-timeout %s: must be positive", o.rescueTimeout)
	case o.interval < 0:
		return errorf(ErrUsage, "--probe-interval %s: must not be negative", o.interval)
	}
	return nil
}

// Probe is the agent's answer to the status probe.
type Probe struct {
	Status         string `json:"status" validate:"required,oneof=complete waiting working"`
	Message        string `json:"message" validate:"required"`
	AgentsActive   int    `json:"agents_active" validate:"gte=0"`
	TasksCompleted int    `json:"tasks_completed" validate:"gte=0"`
	TasksPending   int    `json:"tasks_pending" validate:"gte=0"`
	ShouldContinue *bool  `json:"should_continue,omitempty"`
	NextAction     string `json:"next_action"`
}

// Statuses of a smart check.
const (
	StatusCommitsCreated = "commits_created"     // complete: commits since the baseline
	StatusRescued        = "rescued"             // complete: the agent said complete, the rescue committed
	StatusNothingToDo    = "nothing_to_do"       // complete: the agent said complete, nothing to commit
	StatusRescuedFinal   = "rescued_final"       // complete: out of probes, the last rescue committed
	StatusUncommitted    = "uncommitted_changes" // the agent said complete, left changes, no rescue command
	StatusRescueFailed   = "rescue_failed"       // the agent said complete; the rescue made no commit
	StatusTimeout        = "timeout"             // out of probes without a commit
	StatusProbeError     = "probe_error"         // the probe failed or its answer cannot be read
)

// SmartReport is smart-check's answer and its --json output.
type SmartReport struct {
	Complete   bool    `json:"complete"`
	Status     string  `json:"status"`
	NewCommits int     `json:"new_commits"`
	ProbesUsed int     `json:"probes_used"`
	Rescued    bool    `json:"rescued"`    // a rescue made a commit
	RescueRan  bool    `json:"rescue_ran"` // the rescue command ran
	Changes    Changes `json:"changes"`    // uncommitted at the end
	Probe      *Probe  `json:"probe"`      // the last probe answer, null if none
	Reason     string  `json:"reason"`     // what happened, in words
	Baseline   string  `json:"baseline"`   // the full commit id
	SessionID  string  `json:"session_id"` // the session the probe answered in
}

func runSmartCheck(ctx context.Context, r *runCtx, po probeOptions, baseline, session string) (verdict, error) {
	if baseline == "" {
		return incomplete, errorf(ErrUsage, "--baseline COMMIT is required (the commit the agent started from)")
	}
	rep, err := r.smartCheck(ctx, po, baseline, session)
	if err != nil {
		return incomplete, err
	}
	if r.opts.json {
		return verdict(rep.Complete), writeJSON(r.stdout, rep)
	}
	p := r.printer()
	r.printSmart(p, rep)
	return verdict(rep.Complete), p.err
}

func (r *runCtx) printSmart(p *printer, rep SmartReport) {
	p.item(rep.Complete, fmt.Sprintf("smart-check: %s — %s", rep.Status, rep.Reason), smartEvidence(rep))
	if !rep.Complete {
		p.line(p.red("Incomplete.") + " Next: " + smartNext(rep))
	} else {
		p.line(p.green("Complete."))
	}
}

func smartEvidence(rep SmartReport) string {
	var lines []string
	if rep.Probe != nil {
		l := fmt.Sprintf("last probe (%d used): %s — %s", rep.ProbesUsed, rep.Probe.Status, rep.Probe.Message)
		if rep.Probe.NextAction != "" {
			l += " (next: " + rep.Probe.NextAction + ")"
		}
		lines = append(lines, l)
	}
	for _, k := range []struct {
		name  string
		files []string
	}{{"staged", rep.Changes.Staged}, {"unstaged", rep.Changes.Unstaged}, {"untracked", rep.Changes.Untracked}} {
		if len(k.files) > 0 {
			lines = append(lines, fmt.Sprintf("%s: %s", k.name, strings.Join(k.files, ", ")))
		}
	}
	return strings.Join(lines, "\n")
}

// smartNext says what to do about an incomplete smart check.
func smartNext(rep SmartReport) string {
	switch rep.Status {
	case StatusUncommitted:
		return "commit the changes the agent left, or run with --rescue-command to have closer commit them."
	case StatusRescueFailed:
		return "fix the rescue command (its output is above) or commit the changes yourself."
	case StatusProbeError:
		return "check that `claude --continue` works in this directory, then run smart-check again."
	}
	return "run the agent again (closer loop does), or give it more time with --max-probes and --probe-interval."
}

// smartCheck is the smart completion check against baseline.
func (r *runCtx) smartCheck(ctx context.Context, po probeOptions, baseline, session string) (SmartReport, error) {
	if err := po.check(); err != nil {
		return SmartReport{}, err
	}
	if err := requireRepo(ctx, r.dir); err != nil {
		return SmartReport{}, err
	}
	base, err := resolveCommit(ctx, r.dir, baseline)
	if err != nil {
		return SmartReport{}, err
	}
	rep := SmartReport{Baseline: base, SessionID: session, Changes: Changes{Staged: []string{}, Unstaged: []string{}, Untracked: []string{}}}
	// finish fills in the commits and the changes at the end.
	finish := func(status, reason string) (SmartReport, error) {
		n, err := commitsSince(ctx, r.dir, base)
		if err != nil {
			return rep, err
		}
		ch, err := changes(ctx, r.dir)
		if err != nil {
			return rep, err
		}
		rep.NewCommits, rep.Changes, rep.Status, rep.Reason = n, ch, status, reason
		switch status {
		case StatusCommitsCreated, StatusRescued, StatusNothingToDo, StatusRescuedFinal:
			rep.Complete = true
		}
		return rep, nil
	}
	for {
		n, err := commitsSince(ctx, r.dir, base)
		if err != nil {
			return rep, err
		}
		if n > 0 {
			return finish(StatusCommitsCreated, fmt.Sprintf("%d commit(s) since %s", n, shortID(base)))
		}
		if rep.ProbesUsed >= po.maxProbes {
			break
		}
		probe, sid, err := r.probe(ctx, po, session)
		rep.ProbesUsed++
		if sid != "" {
			rep.SessionID = sid
		}
		var nv *noVerdict
		switch {
		case errors.As(err, &nv):
			return finish(StatusProbeError, "the status probe gave no answer: "+nv.Reason)
		case err != nil:
			return rep, err
		}
		rep.Probe = probe
		if probe.Status == "complete" {
			ch, err := changes(ctx, r.dir)
			if err != nil {
				return rep, err
			}
			switch {
			case !ch.Any():
				return finish(StatusNothingToDo, "the agent says it is complete and there is nothing to commit")
			case po.rescueCommand == "":
				return finish(StatusUncommitted, "the agent says it is complete but left changes uncommitted, and there is no --rescue-command")
			}
			made, out, err := r.rescue(ctx, po, base, &rep)
			if err != nil {
				return rep, err
			}
			if made {
				return finish(StatusRescued, "the agent said it is complete; the rescue command committed its changes")
			}
			return finish(StatusRescueFailed, "the agent said it is complete, but the rescue command made no commit: "+out)
		}
		if err := r.env.Sleep(ctx, po.interval); err != nil {
			return rep, fmt.Errorf("waiting between probes: %w", err)
		}
	}
	reason := fmt.Sprintf("no commit since %s after %d status probe(s)", shortID(base), rep.ProbesUsed)
	ch, err := changes(ctx, r.dir)
	if err != nil {
		return rep, err
	}
	if ch.Any() && po.rescueCommand != "" {
		made, out, err := r.rescue(ctx, po, base, &rep)
		if err != nil {
			return rep, err
		}
		if made {
			return finish(StatusRescuedFinal, reason+"; the final rescue committed the changes")
		}
		reason += "; the final rescue made no commit: " + out
	}
	return finish(StatusTimeout, reason)
}

// statusProbe is what the agent is asked.
const statusProbe = `Status check from the outer loop running you (closer), not a new task: do not change anything now, just report. Answer with only this JSON object:
{"status": "complete" if your task is finished, "waiting" if you are waiting for something (a background agent or command), "working" if work remains,
 "message": one sentence on where the work stands,
 "agents_active": how many subagents or background tasks still run,
 "tasks_completed": how many of your tasks are done,
 "tasks_pending": how many are not,
 "should_continue": true if you need another turn,
 "next_action": what you would do next}`

// probe asks the agent for its status: claude --continue (or --resume ID)
// in DIR, without the project's hooks.
func (r *runCtx) probe(ctx context.Context, po probeOptions, session string) (*Probe, string, error) {
	args := []string{"--continue"}
	if session != "" {
		args = []string{"--resume", session}
	}
	args = append(args, "-p", statusProbe, "--output-format", "json", "--settings", noHooks)
	cr, err := runClaude(ctx, po.claude, r.dir, po.timeout, args...)
	if err != nil {
		return nil, "", err
	}
	var p Probe
	if err := findAnswer(cr.Result, &p); err != nil {
		return nil, cr.SessionID, &noVerdict{Reason: "the answer cannot be used: " + err.Error()}
	}
	return &p, cr.SessionID, nil
}

// rescue runs --rescue-command and reports whether there are commits
// since base afterwards, with the command's last output when not.
func (r *runCtx) rescue(ctx context.Context, po probeOptions, base string, rep *SmartReport) (bool, string, error) {
	rep.RescueRan = true
	// A shell command, run as the hooks run theirs: stdout and stderr in
	// the order they came, so the last lines reported are the last written.
	runCtx, cancel := context.WithTimeout(ctx, po.rescueTimeout)
	defer cancel()
	res, err := proc.Run(runCtx, proc.Command{Shell: po.rescueCommand, Dir: r.dir})
	if err != nil {
		return false, "", errorf(ErrEnv, "--rescue-command: %w", err)
	}
	if res.Ended && ctx.Err() != nil {
		return false, "", fmt.Errorf("--rescue-command interrupted: %w", ctx.Err())
	}
	n, err := commitsSince(ctx, r.dir, base)
	if err != nil {
		return false, "", err
	}
	rep.Rescued = n > 0
	out := tailText(res.Output, 5)
	switch {
	case res.Ended:
		out = fmt.Sprintf("`%s` timed out after %s and was stopped. %s", po.rescueCommand, po.rescueTimeout, out)
	case res.ExitCode != 0:
		out = fmt.Sprintf("`%s` exited with code %d: %s", po.rescueCommand, res.ExitCode, out)
	default:
		out = fmt.Sprintf("`%s` exited 0: %s", po.rescueCommand, out)
	}
	return n > 0, oneLine(out), nil
}
