package closer

import (
	"context"
	"flag"
	"os"
	"strings"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/internal/judge"
	"github.com/donegate/donegate/internal/proc"
)

var judgeCommand = command{
	name: "judge",
	args: " (--criteria FILE | --criteria-text TEXT)",
	summary: `Ask a model whether the work meets your criteria (LLM-as-judge).
The prompt holds the criteria, the git diff stat against --baseline (default:
the working tree against HEAD), the agent's plan and the results of the
configured checkers; claude -p --json-schema answers with a checklist.
Complete only when every item of the checklist is.`,
	bind: func(fs *flag.FlagSet, _ *options) runFunc {
		var o judgeOptions
		o.session.flags(fs)
		fs.StringVar(&o.criteriaFile, "criteria", "", "`file` holding the completion criteria")
		fs.StringVar(&o.criteriaText, "criteria-text", "", "the completion criteria as `text`")
		fs.StringVar(&o.baseline, "baseline", "", "diff against this `commit` (default: HEAD)")
		fs.StringVar(&o.model, "model", "", "the `model` to judge with (default: claude's)")
		fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "stop claude (and its process group) after this `duration`")
		claudeFlag(fs, &o.claude)
		return func(ctx context.Context, r *runCtx) (verdict, error) { return runJudge(ctx, r, o) }
	},
}

// judgeOptions are judge's flags.
type judgeOptions struct {
	session                                             sessionOptions
	criteriaFile, criteriaText, baseline, model, claude string
	timeout                                             time.Duration
}

// JudgeAnswer is what the judge model answers, and judge's --json output
// (with Reason when no answer could be had or it was corrected).
type JudgeAnswer = judge.Answer

// judgeSchema is the --json-schema claude must answer with.
const judgeSchema = judge.Schema

func runJudge(ctx context.Context, r *runCtx, o judgeOptions) (verdict, error) {
	if (o.criteriaFile == "") == (o.criteriaText == "") {
		return incomplete, errorf(ErrUsage, "give the criteria with exactly one of --criteria FILE or --criteria-text TEXT")
	}
	if o.timeout <= 0 {
		return incomplete, errorf(ErrUsage, "--timeout %s: must be positive", o.timeout)
	}
	criteria := o.criteriaText
	if o.criteriaFile != "" {
		data, err := os.ReadFile(o.criteriaFile)
		if err != nil {
			return incomplete, errorf(ErrUsage, "--criteria: %w", err)
		}
		criteria = string(data)
	}
	if strings.TrimSpace(criteria) == "" {
		return incomplete, errorf(ErrUsage, "the criteria are empty")
	}
	if err := requireRepo(ctx, r.dir); err != nil {
		return incomplete, err
	}
	diff, err := r.diffStat(ctx, o.baseline)
	if err != nil {
		return incomplete, err
	}
	// A judge checker of the config would ask a model the question this
	// command is about to ask: that would be two model sessions, and a
	// verdict on a verdict.
	rep, err := r.check(ctx, o.session, checkers.JudgeTypeName)
	if err != nil {
		return incomplete, err
	}
	q := judge.Question{Criteria: criteria, Changes: diff, Plan: r.planText(ctx, o.session), Checks: judgeChecks(rep), Model: o.model}
	ans, err := judge.Ask(ctx, proc.Run, judge.Claude{Bin: o.claude, Dir: r.dir, Timeout: o.timeout}, q)
	if err != nil {
		return incomplete, claudeError(ctx, o.claude, err)
	}
	return r.printJudge(ans)
}

// judgeChecks are the configured checkers' results, for the judge.
func judgeChecks(rep CheckReport) []judge.Check {
	cs := make([]judge.Check, len(rep.Checklist))
	for i, it := range rep.Checklist {
		cs[i] = judge.Check{Passed: it.Done(), Description: it.Description, Evidence: it.Evidence}
	}
	return cs
}

func (r *runCtx) printJudge(a JudgeAnswer) (verdict, error) {
	if r.opts.json {
		return verdict(a.AllComplete), writeJSON(r.stdout, a)
	}
	p := r.printer()
	for _, it := range a.Checklist {
		p.item(it.Done(), it.ID+". "+it.Description, it.Evidence)
	}
	if a.Summary != "" {
		p.line("Summary: " + a.Summary)
	}
	if a.Reason != "" {
		p.line("Note: " + a.Reason)
	}
	if a.AllComplete {
		p.line(p.green("Complete: the judge found every criterion met."))
	} else {
		next := "finish what the ✗ lines say"
		if len(a.PendingActions) > 0 {
			next = strings.Join(a.PendingActions, "; ")
		} else if len(a.Checklist) == 0 {
			next = "fix the cause above and run closer judge again"
		}
		p.line(p.red("Incomplete.") + " Next: " + next)
	}
	return verdict(a.AllComplete), p.err
}

// diffStat is `git diff --stat BASE` (the working tree against BASE) and
// the untracked files, for the prompt.
func (r *runCtx) diffStat(ctx context.Context, baseline string) (string, error) {
	base := baseline
	if base != "" {
		id, err := resolveCommit(ctx, r.dir, base)
		if err != nil {
			return "", err
		}
		base = id
	} else {
		h, err := head(ctx, r.dir)
		if err != nil {
			return "", err
		}
		base = h
	}
	c := judge.Changes{Base: base}
	if base != "" {
		stat, err := git(ctx, r.dir, "diff", "--stat", base, "--")
		if err != nil {
			return "", err
		}
		c.Stat = stat
	}
	ch, err := changes(ctx, r.dir)
	if err != nil {
		return "", err
	}
	c.Changed = append(ch.Staged, ch.Unstaged...)
	c.Untracked = ch.Untracked
	return c.String(), nil
}

func shortID(id string) string { return judge.ShortID(id) }

// planText lists the session's plan (--session, --transcript) for the
// prompt, or says there is none.
func (r *runCtx) planText(ctx context.Context, s sessionOptions) string {
	cc, err := r.checkerContext(0, s)
	if err != nil || cc.Event == nil {
		return "No session given, so no plan."
	}
	plan, err := checkers.ReadPlan(ctx, cc)
	return judge.PlanText(plan.Items, plan.Source != "", err)
}
