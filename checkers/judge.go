package checkers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/judge"
	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/internal/treecache"
)

// JudgeOptions are a judge checker's options.
type JudgeOptions struct {
	// Criteria are the completion criteria, as you would write them for
	// a reviewer: one per line (list markers and Markdown headings are
	// fine; an indented line continues the one above). The judge sees
	// them numbered and must answer each. Give this or criteria_file.
	Criteria string `json:"criteria,omitempty"`
	// CriteriaFile is a file holding the criteria, read at each check; a
	// relative path is relative to the project dir. Give this or
	// criteria.
	CriteriaFile string `json:"criteria_file,omitempty"`
	// Model is the model that judges (claude's --model: "haiku", "opus",
	// a full name). Left out: claude's default.
	Model string `json:"model,omitempty"`
	// Timeout bounds one run of the judge; it also ends with the hook's
	// budget (limits.budget). Left out: 2m.
	Timeout config.Duration `json:"timeout,omitempty" validate:"gte=0"`
	// Claude is the Claude Code executable that judges: a name looked up
	// on PATH, or a path (a relative one is relative to the project
	// dir). Left out: "claude".
	Claude string `json:"claude,omitempty"`
	// Cache reuses the verdict while the working tree, the criteria, the
	// agent's plan and the model are unchanged. Left out: true.
	Cache *bool `json:"cache,omitempty"`
}

// CheckOptions implements config.OptionsChecker: exactly one of criteria
// and criteria_file, neither blank, and a model and executable that
// claude will not read as options.
func (o *JudgeOptions) CheckOptions() []config.Problem {
	var ps []config.Problem
	blank := func(s string) bool { return s != "" && strings.TrimSpace(s) == "" }
	switch {
	case o.Criteria != "" && o.CriteriaFile != "":
		ps = append(ps, config.Problem{Path: "criteria", Message: "give the criteria as text or as criteria_file, not both"})
	case o.Criteria == "" && o.CriteriaFile == "":
		ps = append(ps, config.Problem{Path: "criteria", Message: "required: the completion criteria the judge checks, as text (or a file, with criteria_file)"})
	case blank(o.Criteria):
		ps = append(ps, config.Problem{Path: "criteria", Message: "must not be blank"})
	case blank(o.CriteriaFile):
		ps = append(ps, config.Problem{Path: "criteria_file", Message: "must not be blank"})
	}
	if strings.HasPrefix(o.Model, "-") || blank(o.Model) {
		ps = append(ps, config.Problem{Path: "model", Message: fmt.Sprintf("%q is not a model name", o.Model)})
	}
	if blank(o.Claude) {
		ps = append(ps, config.Problem{Path: "claude", Message: "must not be blank; leave it out to use claude on PATH"})
	}
	return ps
}

// JudgeTypeName is the judge checker type's name in a config.
const JudgeTypeName = "judge"

// The judge checker's type. It judges the project, like
// test: every subagent's stop would ask the model again.
var _ = declare(JudgeTypeName, func() *Type {
	t := register(Type{
		Name:         JudgeTypeName,
		ProjectState: true,
		Summary:      "an LLM judge (`claude -p --json-schema`, as `closer judge`) says every one of your `criteria` holds",
		DefaultOn:    projectReasons,
		Patterns:     []string{"judge-incomplete"},
		Example:      `{"type": "judge", "criteria": "x", "model": "haiku", "timeout": "1m", "claude": "claude", "cache": false}`,
	}, func(o *JudgeOptions) (Checker, error) {
		return judgeChecker{Criteria: o.Criteria, CriteriaFile: o.CriteriaFile, Model: o.Model,
			Timeout: o.Timeout.D(), Claude: o.Claude, Cache: cacheOn(o.Cache)}, nil
	}, describeJudge)
	commands(t, func(o *JudgeOptions, _ string) ([]ProjectCommand, error) {
		return []ProjectCommand{judgeChecker{Claude: o.Claude}.project()}, nil
	})
	return t
})

// project is the judge's run as consent names it: the Claude Code
// executable as the config gives it (a relative path is the project's).
func (j judgeChecker) project() ProjectCommand {
	bin := j.Claude
	if bin == "" {
		bin = "claude"
	}
	return ProjectCommand{Checker: JudgeTypeName, Command: bin + " -p --json-schema (the judge)"}
}

// describeJudge names the first criterion and counts the others: the
// description is one line, and reads no file (stop-hook --criteria must
// stay at the hook start-up floor).
func describeJudge(o *JudgeOptions) string {
	if o.CriteriaFile != "" {
		return fmt.Sprintf("an LLM judge agrees that every criterion in `%s` holds", o.CriteriaFile)
	}
	lines := judge.SplitCriteria(o.Criteria)
	if len(lines) == 0 {
		return "an LLM judge agrees that your work meets the criteria"
	}
	first := judge.Preview(lines[0])
	if n := len(lines) - 1; n > 0 {
		return fmt.Sprintf("an LLM judge agrees that: %s (and %d more %s)", first, n, plural(n, "criterion", "criteria"))
	}
	return "an LLM judge agrees that: " + first
}

// judgeChecker asks a model whether the work meets the user's completion
// criteria, as closer judge does and through the same code (package
// judge): the model is shown the criteria, what changed since the prompt
// began (git diff --stat) and the agent's plan, may read the project, and
// answers with a checklist of the criteria, numbered in the prompt. The
// work is complete when every criterion has an item by its number and
// every item is completed (see judge.Answer.Recompute).
//
// It fails closed: a judge that gives no verdict (timed out, exited
// non-zero, answered garbage, ran out of the hook's budget) is incomplete
// with the reason, never a pass. Only a claude that cannot be found or
// started is an error, governed by on_error as any checker that cannot
// run: no agent's work can fix the machine's setup.
//
// The model runs with the project's hooks disabled (--settings
// {"disableAllHooks":true}) and the recursion guard in its environment,
// so neither donegate's hooks nor any other hold or re-enter it. Its
// verdict is cached by the state of the working tree, like test's.
type judgeChecker struct {
	Criteria     string
	CriteriaFile string
	Model        string
	Timeout      time.Duration // zero means judge.DefaultTimeout
	Claude       string        // the executable; "" means "claude"
	Cache        bool
}

// JudgeCriterion is one criterion the judge found not met, for the
// judge-incomplete template: {{range .Open}}{{.Criterion}}: {{.Reason}}.
type JudgeCriterion struct {
	ID        string
	Criterion string
	Reason    string
}

// Check implements Checker.
func (j judgeChecker) Check(ctx context.Context, c *Context) (Result, error) {
	if r, ok := c.mayRun(j.project()); !ok {
		return r, nil
	}
	criteria, err := j.criteria(c)
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", JudgeTypeName, err)
	}
	own := j.Timeout
	if own <= 0 {
		own = judge.DefaultTimeout
	}
	q := judge.Question{Criteria: criteria, Plan: j.plan(ctx, c), Model: j.Model}
	run := func(ctx context.Context, fp fingerprint) (Result, bool, error) { return j.ask(ctx, c, q, own, fp) }
	if !j.Cache || c.CacheDir == "" {
		r, _, err := run(ctx, fingerprint{})
		return r, err
	}
	// The tree state is in the key by cached; the rest of what the judge
	// is told, and who judges, is here. The diff stat is not: the tree
	// state decides it.
	return cached(ctx, c, own, []string{JudgeTypeName, j.bin(c), j.Model, criteria, q.Plan}, run)
}

// criteria returns the criteria text, reading criteria_file.
func (j judgeChecker) criteria(c *Context) (string, error) {
	if j.CriteriaFile == "" {
		return j.Criteria, nil
	}
	path := j.CriteriaFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.ProjectDir, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("criteria_file: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return "", fmt.Errorf("criteria_file: %s is empty", path)
	}
	return string(data), nil
}

// bin is the executable to run: a relative path is the project dir's.
func (j judgeChecker) bin(c *Context) string {
	bin := j.Claude
	if bin == "" {
		bin = "claude"
	}
	if paths.HasDir(bin) && !filepath.IsAbs(bin) {
		bin = filepath.Join(c.ProjectDir, bin)
	}
	return bin
}

// plan is the agent's plan, as the plan checker reads it, for the prompt.
func (j judgeChecker) plan(ctx context.Context, c *Context) string {
	if c.Event == nil {
		return "No session given, so no plan."
	}
	p, err := ReadPlan(ctx, c)
	return judge.PlanText(p.Items, p.Source != "", err)
}

// ask asks the judge once. ended is true when there was no verdict, which
// says nothing about the tree: it is not remembered, and the next check
// asks again.
func (j judgeChecker) ask(ctx context.Context, c *Context, q judge.Question, own time.Duration, fp fingerprint) (Result, bool, error) {
	if ctx.Err() != nil {
		return j.noVerdict(c, q, budgetSpent(c.Budget)+"."+fp.note(c.Budget, false)), true, nil
	}
	changes, err := j.changes(ctx, c)
	if err != nil {
		if ctx.Err() != nil {
			return j.noVerdict(c, q, budgetSpent(c.Budget)), true, nil
		}
		return Result{}, false, fmt.Errorf("%s: %w", JudgeTypeName, err)
	}
	q.Changes = changes
	bin := j.bin(c)
	start := time.Now()
	ans, err := judge.Ask(ctx, c.runner().Run, judge.Claude{Bin: bin, Dir: c.ProjectDir, Timeout: own, Env: c.Env}, q)
	switch {
	case err != nil && ctx.Err() != nil:
		return j.noVerdict(c, q, "it "+budgetStopped(c.Budget, time.Since(start).Round(time.Second))+"."+fp.note(c.Budget, true)), true, nil
	case errors.Is(err, judge.ErrNotFound):
		return Result{}, false, fmt.Errorf("%s: claude: executable %q not found (install Claude Code, or set the checker's \"claude\" to its path)", JudgeTypeName, bin)
	case err != nil:
		return Result{}, false, fmt.Errorf("%s: %w", JudgeTypeName, err)
	case ans.AllComplete:
		return OK("An LLM judge found every completion criterion met: " + ans.Summary), false, nil
	case len(ans.Checklist) == 0:
		return j.noVerdict(c, q, ans.Reason), true, nil
	}
	var open []JudgeCriterion
	for _, it := range ans.Checklist {
		if !it.Done() {
			open = append(open, JudgeCriterion{ID: it.ID, Criterion: it.Description, Reason: it.Evidence})
		}
	}
	// A checklist that left a criterion out is a verdict (the agent is
	// told what the judge found open) but not one to remember: the tree
	// did not decide it, and the next check asks again.
	return c.Fail("judge-incomplete", map[string]any{
		"Open":           open,
		"Total":          len(ans.Checklist),
		"PendingActions": ans.PendingActions,
		"Summary":        ans.Summary,
		"Note":           ans.Reason,
		"NoVerdict":      "",
		"Criteria":       strings.TrimSpace(q.Criteria),
	}), len(ans.Unanswered) > 0, nil
}

// noVerdict is the failure of a judge that gave no verdict: the reason,
// and the criteria for the agent to check its work against meanwhile.
func (j judgeChecker) noVerdict(c *Context, q judge.Question, reason string) Result {
	return c.Fail("judge-incomplete", map[string]any{
		"Open":           []JudgeCriterion{},
		"Total":          0,
		"PendingActions": []string{},
		"Summary":        "",
		"Note":           "",
		"NoVerdict":      strings.TrimSuffix(strings.TrimPrefix(reason, "the judge gave no verdict: "), "."),
		"Criteria":       strings.TrimSpace(q.Criteria),
	})
}

// changes is what changed since the prompt began, as closer judge shows
// it: git diff --stat against where HEAD was when donegate first saw the
// prompt (git-commits' baseline), else against HEAD, and the untracked
// files.
func (j judgeChecker) changes(ctx context.Context, c *Context) (string, error) {
	st, err := c.GitStatus(ctx)
	if err != nil {
		return "", err
	}
	if st.NotRepo != nil {
		return "The project is not in a git repository, so there is no diff: read the project directory.", nil
	}
	ch := judge.Changes{Base: st.Head, Against: "HEAD"}
	if c.Event != nil && c.Event.SessionID != "" && c.StateDir != "" {
		// No baseline to be had is no error here: HEAD is the next best.
		if base, err := c.baseline(ctx, st); err == nil && base != "" && base != st.Head {
			ch.Base, ch.Against = base, "where HEAD was when this prompt began"
		}
	}
	untracked := map[string]bool{}
	for _, f := range bytes.Split(st.Porcelain, []byte{0}) {
		if p, ok := bytes.CutPrefix(f, []byte("? ")); ok {
			untracked[string(p)] = true
			ch.Untracked = append(ch.Untracked, string(p))
		}
	}
	if ch.Base == "" {
		for _, p := range st.Paths("") {
			if !untracked[p] {
				ch.Changed = append(ch.Changed, p)
			}
		}
		return ch.String(), nil
	}
	stat, err := treecache.Git(ctx, st.Dir, "diff", "--stat", ch.Base, "--")
	if err != nil {
		return "", err
	}
	ch.Stat = string(stat)
	return ch.String(), nil
}
