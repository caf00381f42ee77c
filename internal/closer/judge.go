package closer

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/donegate/donegate/transcript"
)

var judgeCommand = command{
	name: "judge",
	args: " (--criteria FILE | --criteria-text TEXT)",
	summary: `Ask a model whether the work meets your criteria (LLM-as-judge).
The prompt holds the criteria, the git diff stat against --baseline (default:
the working tree against HEAD), the agent's plan and the results of the
configured checkers; claude -p --json-schema answers with a checklist.
Complete only when every item of the checklist is.`,
	flags: func(fs *flag.FlagSet, o *options) {
		sessionFlags(fs, o)
		fs.StringVar(&o.criteriaFile, "criteria", "", "`file` holding the completion criteria")
		fs.StringVar(&o.criteriaText, "criteria-text", "", "the completion criteria as `text`")
		fs.StringVar(&o.baseline, "baseline", "", "diff against this `commit` (default: HEAD)")
		fs.StringVar(&o.model, "model", "", "the `model` to judge with (default: claude's)")
		fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "stop claude (and its process group) after this `duration`")
		claudeFlag(fs, &o.claude)
	},
	run: runJudge,
}

// JudgeAnswer is what the judge model answers, and judge's --json output
// (with Reason when no answer could be had or it was corrected).
type JudgeAnswer struct {
	Checklist      []Item   `json:"checklist" validate:"required,min=1,dive"`
	AllComplete    bool     `json:"allComplete"`
	Summary        string   `json:"summary" validate:"required"`
	PendingActions []string `json:"pendingActions"`
	// Reason says why the verdict is not the judge's own: no answer, a
	// malformed one, or "all complete" with an open item.
	Reason string `json:"reason,omitempty" validate:"-"`
}

// judgeSchema is the --json-schema claude must answer with.
const judgeSchema = `{"type":"object","additionalProperties":false,` +
	`"required":["checklist","allComplete","summary","pendingActions"],` +
	`"properties":{` +
	`"checklist":{"type":"array","minItems":1,"items":{"type":"object","additionalProperties":false,` +
	`"required":["id","description","completed","evidence"],` +
	`"properties":{"id":{"type":"string"},"description":{"type":"string"},"completed":{"type":"boolean"},"evidence":{"type":"string"}}}},` +
	`"allComplete":{"type":"boolean"},` +
	`"summary":{"type":"string"},` +
	`"pendingActions":{"type":"array","items":{"type":"string"}}}}`

func runJudge(ctx context.Context, r *runCtx) (verdict, error) {
	o := r.opts
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
	rep, err := r.check(ctx)
	if err != nil {
		return incomplete, err
	}
	prompt := judgePrompt(criteria, diff, r.planText(), rep)
	args := []string{"-p", prompt, "--output-format", "json", "--json-schema", judgeSchema, "--settings", noHooks}
	if o.model != "" {
		args = append(args, "--model", o.model)
	}
	ans := judge(ctx, o.claude, r.dir, o.timeout, args)
	if ans.err != nil {
		return incomplete, ans.err
	}
	return r.printJudge(ans.JudgeAnswer)
}

type judged struct {
	JudgeAnswer
	err error // closer could not ask (no claude, interrupted)
}

// judge runs the judge and reads its answer: the structured output, else
// a JSON object in the result text. No answer, or a malformed one, is
// incomplete with the reason.
func judge(ctx context.Context, bin, dir string, timeout time.Duration, args []string) judged {
	cr, err := runClaude(ctx, bin, dir, timeout, args...)
	var nv *noVerdict
	switch {
	case errors.As(err, &nv):
		return judged{JudgeAnswer: noAnswer("the judge gave no verdict: " + nv.reason)}
	case err != nil:
		return judged{err: err}
	}
	var ans JudgeAnswer
	switch {
	case len(cr.StructuredOutput) > 0 && string(cr.StructuredOutput) != "null":
		err = decodeAnswer(cr.StructuredOutput, &ans)
	default:
		err = findAnswer(cr.Result, &ans)
	}
	if err != nil {
		return judged{JudgeAnswer: noAnswer("the judge's answer cannot be used: " + err.Error())}
	}
	ans.recompute()
	return judged{JudgeAnswer: ans}
}

func noAnswer(reason string) JudgeAnswer {
	return JudgeAnswer{Checklist: []Item{}, PendingActions: []string{}, Reason: reason}
}

// recompute derives allComplete from the checklist: a judge that says
// "all complete" with an open item is incomplete.
func (a *JudgeAnswer) recompute() {
	var open []string
	for _, it := range a.Checklist {
		if !it.Done() {
			open = append(open, it.ID)
		}
	}
	if a.AllComplete && len(open) > 0 {
		a.Reason = fmt.Sprintf("the judge said all complete, but item(s) %s are not", strings.Join(open, ", "))
	}
	a.AllComplete = len(open) == 0
	if a.PendingActions == nil {
		a.PendingActions = []string{}
	}
	if !a.AllComplete && len(a.PendingActions) == 0 {
		for _, it := range a.Checklist {
			if !it.Done() {
				a.PendingActions = append(a.PendingActions, it.Description)
			}
		}
	}
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
	var b strings.Builder
	if base != "" {
		stat, err := git(ctx, r.dir, "diff", "--stat", base, "--")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "git diff --stat %s (the working tree against the baseline):\n", shortID(base))
		if strings.TrimSpace(stat) == "" {
			b.WriteString("(no changes to tracked files)\n")
		} else {
			b.WriteString(stat)
		}
	}
	ch, err := changes(ctx, r.dir)
	if err != nil {
		return "", err
	}
	if base == "" {
		b.WriteString("The repository has no commit yet. Changed files:\n")
		for _, f := range append(ch.Staged, ch.Unstaged...) {
			b.WriteString(" " + f + "\n")
		}
	}
	if len(ch.Untracked) > 0 {
		b.WriteString("Untracked files:\n")
		for _, f := range ch.Untracked {
			b.WriteString(" " + f + "\n")
		}
	}
	return b.String(), nil
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// planText lists the session's plan (--session, --transcript) for the
// prompt, or says there is none.
func (r *runCtx) planText() string {
	cc, err := r.checkerContext(0)
	if err != nil || cc.Event == nil {
		return "No session given, so no plan."
	}
	items, found, err := transcript.ReadTasks(transcript.TaskDir(cc.ClaudeDir, cc.TaskListID))
	if err == nil && !found && cc.Event.TranscriptPath != "" {
		items, found, err = transcript.LatestTodoWrite(cc.Event.TranscriptPath, transcript.ReadOptions{SkipSidechain: true})
	}
	switch {
	case err != nil:
		return fmt.Sprintf("The plan could not be read: %v", err)
	case !found:
		return "The agent made no plan."
	}
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "- [%s] %s\n", it.Status, it.Title)
	}
	return b.String()
}

// judgePrompt is the verification prompt.
func judgePrompt(criteria, diff, plan string, rep CheckReport) string {
	var b strings.Builder
	b.WriteString(`You are a strict reviewer. Decide whether a coding agent's task is really done, judged against the completion criteria below. Do not change any file. Use only the evidence here and what you read in the project directory.

## Completion criteria

`)
	b.WriteString(strings.TrimSpace(criteria))
	b.WriteString("\n\n## Changes\n\n")
	b.WriteString(strings.TrimSpace(diff))
	b.WriteString("\n\n## The agent's plan\n\n")
	b.WriteString(strings.TrimSpace(plan))
	b.WriteString("\n\n## Deterministic checks (donegate)\n\n")
	for _, it := range rep.Checklist {
		mark := "PASS"
		if !it.Done() {
			mark = "FAIL"
		}
		fmt.Fprintf(&b, "- %s %s\n%s\n", mark, it.Description, indent(it.Evidence, "    "))
	}
	b.WriteString(`
## Your answer

Give one checklist item per criterion: an id, the criterion as the description, completed (true only when the evidence shows it done; a failing check above means not done), and the evidence for your decision. Set allComplete to true only when every item is completed. List in pendingActions what the agent must still do, one action each, and say in summary, in one sentence, where the work stands.`)
	return b.String()
}
