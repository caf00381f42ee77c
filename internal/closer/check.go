package closer

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/feedback"
	"github.com/donegate/donegate/internal/paths"
)

var checkCommand = command{
	name: "check",
	summary: `Run the configured checker chain against DIR, outside Claude Code.
Unlike the hooks, which stop at the first open item, check runs and reports
every checker (the members of an "all" composite each on their own line).
--session and --transcript let the plan checker read a session's plan.
--ci also reports for the CI that runs it: in GitHub Actions, an error
annotation per open check and a table in the job's summary.`,
	bind: func(fs *flag.FlagSet, _ *options) runFunc {
		var o checkOptions
		o.session.flags(fs)
		fs.BoolVar(&o.ci, "ci", false, "report for the CI that runs it too: in GitHub Actions ($GITHUB_ACTIONS), an ::error:: annotation per open check and a table in $GITHUB_STEP_SUMMARY")
		return func(ctx context.Context, r *runCtx) (verdict, error) { return runCheck(ctx, r, o) }
	},
}

// checkOptions are check's flags.
type checkOptions struct {
	session sessionOptions
	ci      bool
}

// sessionOptions are --session and --transcript: the session whose plan
// the plan checker reads (check, judge).
type sessionOptions struct{ session, transcript string }

func (o *sessionOptions) flags(fs *flag.FlagSet) {
	fs.StringVar(&o.session, "session", "", "the Claude Code session `id` whose plan the plan checker reads")
	fs.StringVar(&o.transcript, "transcript", "", "the session's transcript `path` (.jsonl); its name gives the session id")
}

// Item is one line of a checklist: a checker's (check) or the judge's.
type Item struct {
	ID          string `json:"id" validate:"required"`
	Description string `json:"description" validate:"required"`
	// Completed is a pointer so that a judge that leaves it out is caught.
	Completed *bool  `json:"completed" validate:"required"`
	Evidence  string `json:"evidence"`
	// Pattern names what failed (a retry template's pattern, such as
	// "test-failed"); empty for a completed item or the judge's.
	Pattern string `json:"pattern,omitempty"`
}

// Done reports whether the item is completed.
func (it Item) Done() bool { return it.Completed != nil && *it.Completed }

// CheckReport is check's answer, and its --json output.
type CheckReport struct {
	AllComplete    bool     `json:"allComplete"`
	Checklist      []Item   `json:"checklist"`
	PendingActions []string `json:"pendingActions"`
	RetryPrompt    string   `json:"retryPrompt"`
}

func runCheck(ctx context.Context, r *runCtx, o checkOptions) (verdict, error) {
	rep, err := r.check(ctx, o.session)
	if err != nil {
		return incomplete, err
	}
	if o.ci {
		if err := r.reportToCI(rep); err != nil {
			return incomplete, err
		}
	}
	if r.opts.json {
		return verdict(rep.AllComplete), writeJSON(r.stdout, rep)
	}
	p := r.printer()
	for _, it := range rep.Checklist {
		p.item(it.Done(), it.ID+". "+it.Description, it.Evidence)
	}
	switch {
	case rep.AllComplete && len(rep.Checklist) == 0:
		// keyword, iterations, phase, output and claims run at the
		// hooks' events by default: "every check passes" of no check
		// would read as if they had.
		p.line(p.green("Complete: none of the configured checkers runs under closer check (see their \"on\"), so nothing was checked."))
	case rep.AllComplete:
		p.line(p.green("Complete: every check passes."))
	default:
		p.line(p.red(fmt.Sprintf("Incomplete: %d of %d checks open.", len(rep.PendingActions), len(rep.Checklist))) + " Next: finish what the ✗ lines say, then run closer check again.")
	}
	return verdict(rep.AllComplete), p.err
}

// flatItem is a checker to report on its own line.
type flatItem struct {
	id, description string
	typ             string // the checker's type
	checker         checkers.Checker
}

// flatten lists the configured checkers with the members of every "all"
// composite in their place, so each is reported on its own. An "any"
// composite stays one item: its members are alternatives, and one of them
// being open does not make the work incomplete. specs are those that run
// at "manual" (checkers.At).
func flatten(prefix string, specs []config.Checker) ([]flatItem, error) {
	var out []flatItem
	for i, s := range specs {
		id := strconv.Itoa(i + 1)
		if prefix != "" {
			id = prefix + "." + id
		}
		if o, ok := s.Options.(*checkers.CompositeOptions); ok && o.Mode != "any" {
			members, err := flatten(id, o.Checkers)
			if err != nil {
				return nil, err
			}
			for j := range members {
				members[j].description = s.Label() + " › " + members[j].description
			}
			out = append(out, members...)
			continue
		}
		ch, err := checkers.New(s)
		if err != nil {
			return nil, errorf(ErrConfig, "checkers[%s]: %w", id, err)
		}
		out = append(out, flatItem{id: id, description: checkers.Describe(s), typ: s.Type, checker: ch})
	}
	return out, nil
}

// check runs every flattened checker of the config under its budget,
// but those of the types in skip.
//
// The person runs it: that is consent for this run, whatever the hooks'
// consent says; when they would not run something it runs, stderr says so.
func (r *runCtx) check(ctx context.Context, s sessionOptions, skip ...string) (CheckReport, error) {
	cfg, err := r.loadConfig()
	if err != nil {
		return CheckReport{}, err
	}
	if note := r.consentNote(); note != "" {
		fmt.Fprintf(r.stderr, "%s: note: %s\n", r.name, note)
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(r.stderr, "%s: warning: %s\n", r.name, w)
	}
	items, err := flatten("", checkers.At(cfg.Checkers, checkers.ReasonManual))
	if err != nil {
		return CheckReport{}, err
	}
	items = slices.DeleteFunc(items, func(fi flatItem) bool { return slices.Contains(skip, fi.typ) })
	cc, err := r.checkerContext(cfg.Limits.Budget.D(), s)
	if err != nil {
		return CheckReport{}, err
	}
	cc.Templates = cfg.Templates
	defer func() {
		if err := cc.TemplateError(); err != nil {
			fmt.Fprintf(r.stderr, "closer: %v\n", err)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, cfg.Limits.Budget.D())
	defer cancel()
	rep := CheckReport{AllComplete: true, Checklist: []Item{}, PendingActions: []string{}}
	for _, fi := range items {
		res, err := fi.checker.Check(ctx, cc)
		if err != nil {
			res = checkers.Incomplete(fmt.Sprintf("The check could not run: %v", err))
		}
		done := res.Complete
		rep.Checklist = append(rep.Checklist, Item{ID: fi.id, Description: fi.description, Completed: &done, Evidence: res.Feedback, Pattern: res.Pattern})
		if !done {
			rep.AllComplete = false
			rep.PendingActions = append(rep.PendingActions, fi.description+" — "+firstLine(res.Feedback))
		}
	}
	rep.RetryPrompt = retryPrompt(rep)
	return rep, nil
}

// retryPrompt is what an outer loop tells the agent next: every pending
// action, with the evidence — the feedback its retry template worded, as
// a hook tells it — the most actionable first (see feedback.Rank).
func retryPrompt(rep CheckReport) string {
	if rep.AllComplete {
		return ""
	}
	var open []Item
	for _, it := range rep.Checklist {
		if !it.Done() {
			open = append(open, it)
		}
	}
	slices.SortStableFunc(open, func(a, b Item) int { return feedback.Rank(a.Pattern) - feedback.Rank(b.Pattern) })
	var b strings.Builder
	fmt.Fprintf(&b, "The task is not done yet: %d check(s) still fail. Continue working until each of these passes:\n", len(rep.PendingActions))
	for i, it := range open {
		fmt.Fprintf(&b, "\n%d. %s\n%s\n", i+1, it.Description, indent(it.Evidence, "   "))
	}
	b.WriteString("\nWhen everything passes, commit your work and stop.")
	return b.String()
}

// checkerContext resolves what the checkers look at as the hooks do, with
// --dir as the project and --session/--transcript as the session.
func (r *runCtx) checkerContext(budget time.Duration, s sessionOptions) (*checkers.Context, error) {
	session, tp := s.session, s.transcript
	if tp != "" {
		// The shell leaves ~ in --transcript=~/...; the hooks expand it too.
		abs, err := filepath.Abs(paths.Expand(r.env.Getenv, tp))
		if err != nil {
			return nil, errorf(ErrUsage, "--transcript %s: %w", tp, err)
		}
		tp = abs
		if session == "" {
			session = strings.TrimSuffix(filepath.Base(tp), ".jsonl")
		}
	}
	cc := &checkers.Context{
		ProjectDir: r.dir,
		Getenv:     r.env.Getenv,
		Reason:     checkers.ReasonManual,
		Budget:     budget,
		CacheDir:   filepath.Join(r.stateDir(), "results"),
		StateDir:   r.stateDir(),
	}
	if session != "" || tp != "" || r.env.Getenv("CLAUDE_CODE_TASK_LIST_ID") != "" {
		// Without any of them there is no plan to read (the variable
		// names a list of Claude Code's Task tools).
		cc.Event = &hookio.Event{SessionID: session, TranscriptPath: tp, Cwd: r.dir}
	}
	return cc, nil
}

func indent(s, pre string) string {
	if s == "" {
		return ""
	}
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}
