package closer

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"time"

	"github.com/donegate/donegate/internal/consent"
	"github.com/donegate/donegate/internal/decisionlog"
)

var logCommand = command{
	name:     "log",
	noConfig: true,
	summary: `Print the hooks' decisions: every stop and gated tool call they answered,
with its project, host, session, turn, each check with its time and
whether its result was reused (and why not), the decision and why. Read
from the decision log in the state dir (decisions.jsonl, 0600, kept
between 4 and 8 MiB). --json prints one object a line, for tools and
fleets; --follow keeps printing new decisions until interrupted;
--summary counts them per project and host.`,
	bind: func(fs *flag.FlagSet, _ *options) runFunc {
		var o logOptions
		fs.StringVar(&o.session, "session", "", "only the decisions of session `id`")
		fs.StringVar(&o.since, "since", "", "only decisions since `when`: a duration back from now (\"2h\") or a time (RFC 3339)")
		fs.StringVar(&o.project, "project", "", "only the decisions in the project `dir`")
		fs.BoolVar(&o.follow, "follow", false, "keep printing new decisions until interrupted")
		fs.BoolVar(&o.ungated, "ungated", false, "list the sessions the hosts recorded in the projects donegate gates of which donegate answered no stop (exit 1 when there are any): Claude Code's transcripts, Codex's rollouts")
		fs.BoolVar(&o.summary, "summary", false, "per project and host: sessions, holds, let-gos, releases, refusals, the checks most often open, and the time spent in checks and reused")
		stateDirFlag(fs, &o.stateDir)
		return func(ctx context.Context, r *runCtx) (verdict, error) { return runLog(ctx, r, o) }
	},
}

// logOptions are closer log's flags.
type logOptions struct {
	session, since, project, stateDir string
	follow, summary, ungated          bool
}

// followEvery is how often --follow looks for new decisions.
const followEvery = 500 * time.Millisecond

func runLog(ctx context.Context, r *runCtx, o logOptions) (verdict, error) {
	if r.opts.configPath != "" {
		return incomplete, errorf(ErrUsage, "--config: log reads no config")
	}
	keep, err := r.logFilter(o)
	if err != nil {
		return incomplete, err
	}
	if o.summary && !o.ungated {
		return r.logSummaries(o, keep)
	}
	if o.ungated {
		since, err := r.logSince(o)
		if err != nil {
			return incomplete, err
		}
		return r.logUngated(o, since)
	}
	print := r.logPrinter()
	files := decisionlog.Files(r.stateDirOr(o.stateDir))
	var offset int64
	shown := 0
	for i, f := range files {
		n, err := decisionlog.Read(f, 0, func(e decisionlog.Entry) {
			if keep(e) {
				print(e)
				shown++
			}
		})
		if err != nil {
			return incomplete, errorf(ErrEnv, "decision log: %w", err)
		}
		if i == len(files)-1 {
			offset = n
		}
	}
	if shown == 0 && !r.opts.json {
		// A table with no line said nothing at all: say so.
		what := "No decision is recorded in " + r.stateDirOr(o.stateDir) + " yet: the hooks record each stop and gated tool call they answer."
		if o.session != "" || o.since != "" || o.project != "" {
			what = "No recorded decision matches --session, --since or --project (the log is in " + r.stateDirOr(o.stateDir) + ")."
		}
		if _, err := fmt.Fprintln(r.stdout, what); err != nil {
			return incomplete, errorf(ErrEnv, "%w", err)
		}
	}
	for o.follow {
		if err := r.env.Sleep(ctx, followEvery); err != nil {
			return complete, nil // interrupted: done
		}
		offset, err = decisionlog.Read(files[len(files)-1], offset, func(e decisionlog.Entry) {
			if keep(e) {
				print(e)
			}
		})
		if err != nil {
			return incomplete, errorf(ErrEnv, "decision log: %w", err)
		}
	}
	return complete, nil
}

// logSummaries prints closer log --summary of the entries keep keeps.
func (r *runCtx) logSummaries(o logOptions, keep func(decisionlog.Entry) bool) (verdict, error) {
	if o.follow {
		return incomplete, errorf(ErrUsage, "--summary and --follow: a summary is of the decisions recorded so far")
	}
	var kept []decisionlog.Entry
	for _, f := range decisionlog.Files(r.stateDirOr(o.stateDir)) {
		if _, err := decisionlog.Read(f, 0, func(e decisionlog.Entry) {
			if keep(e) {
				kept = append(kept, e)
			}
		}); err != nil {
			return incomplete, errorf(ErrEnv, "decision log: %w", err)
		}
	}
	if len(kept) == 0 && !r.opts.json {
		if _, err := fmt.Fprintln(r.stdout, "No decision to summarize in "+r.stateDirOr(o.stateDir)+" (with --session, --since or --project, none matches)."); err != nil {
			return incomplete, errorf(ErrEnv, "%w", err)
		}
		return complete, nil
	}
	if err := r.printSummary(summarize(kept)); err != nil {
		return incomplete, errorf(ErrEnv, "%w", err)
	}
	return complete, nil
}

// logSince is --since's time, zero when it is not given.
func (r *runCtx) logSince(o logOptions) (time.Time, error) {
	if o.since == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(o.since); err == nil {
		return r.env.Now().Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, o.since); err == nil {
		return t, nil
	}
	return time.Time{}, errorf(ErrUsage, "--since %q: give a duration (\"2h\") or an RFC 3339 time", o.since)
}

// logFilter is what --session, --since and --project keep.
func (r *runCtx) logFilter(o logOptions) (func(decisionlog.Entry) bool, error) {
	since, err := r.logSince(o)
	if err != nil {
		return nil, err
	}
	var project string
	if o.project != "" {
		abs, err := filepath.Abs(o.project)
		if err != nil {
			return nil, errorf(ErrUsage, "--project: %w", err)
		}
		project = consent.Resolve(abs)
	}
	session := o.session
	return func(e decisionlog.Entry) bool {
		return (session == "" || e.Session == session) &&
			(since.IsZero() || !e.Time.Before(since)) &&
			(project == "" || e.Project == project || consent.Resolve(e.Project) == project)
	}, nil
}

// logPrinter prints an entry as --json or the table asks.
func (r *runCtx) logPrinter() func(decisionlog.Entry) {
	if r.opts.json {
		enc := json.NewEncoder(r.stdout)
		return func(e decisionlog.Entry) { _ = enc.Encode(e) }
	}
	header := false
	return func(e decisionlog.Entry) {
		if !header {
			fmt.Fprintf(r.stdout, "%-19s  %-16s  %-8s  %-8s  %-16s  %-13s  %s\n", "TIME", "PROJECT", "HOST", "SESSION", "EVENT", "DECISION", "WHY")
			header = true
		}
		event := e.Event
		if event == "" {
			event = e.Hook // closer's own entries: "closer release", refused
		}
		if e.Tool != "" {
			event += " " + e.Tool
		}
		decision := e.Decision
		if e.Decision == "blocked" {
			decision = fmt.Sprintf("held %d/%d", e.Blocks, e.MaxBlocks)
		}
		why := e.Why
		if e.Decision == "blocked" && e.Reason != "" {
			why = firstLine(e.Reason)
		}
		for _, c := range e.Checks {
			if c.TookMS >= 1000 || c.Reused {
				note := fmt.Sprintf("%s %s", c.Label, (time.Duration(c.TookMS) * time.Millisecond).String())
				if c.Reused {
					note = c.Label + " reused"
				}
				why += " [" + note + "]"
			}
		}
		fmt.Fprintf(r.stdout, "%-19s  %-16s  %-8s  %-8s  %-16s  %-13s  %s\n",
			e.Time.Local().Format("2006-01-02 15:04:05"), clip(filepath.Base(e.Project), 16), e.Host, clip(e.Session, 8),
			clip(event, 16), clip(decision, 13), clip(oneLine(why), 160))
	}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
