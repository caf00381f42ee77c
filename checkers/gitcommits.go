package checkers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/internal/treecache"
)

// GitCommitsOptions are git-commits' options.
type GitCommitsOptions struct {
	// Min is how many commits there must be since the baseline. Left
	// out: 1.
	Min int `json:"min,omitempty" validate:"omitempty,gte=1"`
	// Baseline is the commit, branch or tag counted from ("main",
	// "origin/main", a commit id). Left out: HEAD when a hook first saw
	// the session's current prompt, kept in the state dir; closer check
	// has no session, so give it there.
	Baseline string `json:"baseline,omitempty"`
}

// CheckOptions refuses a baseline git would read as an option.
func (o *GitCommitsOptions) CheckOptions() []config.Problem {
	if strings.HasPrefix(o.Baseline, "-") {
		return []config.Problem{{Path: "baseline", Message: fmt.Sprintf("%q is not a commit, branch or tag: it starts with '-'", o.Baseline)}}
	}
	return nil
}

// gitCommitsTypeName is the git-commits checker type's name in a config.
const gitCommitsTypeName = "git-commits"

// The git-commits checker type.
var _ = declare(gitCommitsTypeName, func() *Type {
	return register(Type{
		Name:         gitCommitsTypeName,
		ProjectState: true,
		Summary:      "at least `min` (default 1) commits since the baseline: `baseline` when given, else HEAD when donegate first saw the prompt",
		DefaultOn:    projectReasons,
		Patterns:     []string{"no-commits"},
		Example:      `{"type": "git-commits", "min": 2, "baseline": "main"}`,
	}, func(o *GitCommitsOptions) (Checker, error) {
		return gitCommitsChecker{Min: max(o.Min, 1), Baseline: o.Baseline}, nil
	}, func(o *GitCommitsOptions) string {
		return fmt.Sprintf("the work is committed: at least %s since %s", commits(max(o.Min, 1)), baselineName(o.Baseline))
	})
})

// gitCommitsChecker is complete when HEAD is at least Min commits past the
// baseline: git commits, not the agent's word, say the work was saved.
type gitCommitsChecker struct {
	Min      int
	Baseline string // "": recorded per session and prompt (see Context.StateDir)
}

// Check implements Checker.
func (g gitCommitsChecker) Check(ctx context.Context, c *Context) (Result, error) {
	st, err := c.GitStatus(ctx)
	if err != nil {
		return Result{}, err
	}
	if st.NotRepo != nil {
		return Result{}, fmt.Errorf("git-commits: %s is not in a git work tree: %w", c.ProjectDir, st.NotRepo)
	}
	base := g.Baseline
	if base == "" {
		if base, err = c.baseline(ctx, st); err != nil {
			return Result{}, err
		}
	}
	n, err := countCommits(ctx, st, base)
	if err != nil {
		return Result{}, err
	}
	if n >= g.Min {
		var since string
		switch {
		case g.Baseline != "":
			since = "`" + g.Baseline + "`"
		case base != "":
			since = "`" + short(base) + "`, where HEAD was when this prompt began"
		default:
			since = "this prompt began (the repository had no commit then)"
		}
		return OK(fmt.Sprintf("%s since %s.", capitalize(commits(n)), since)), nil
	}
	// no-commits: Count, the commits since the baseline; Min, how many
	// are required; Baseline, the configured one ("" when none); Head,
	// HEAD when the prompt began, abbreviated ("" when there was no
	// commit then, or when Baseline is set).
	head := ""
	if g.Baseline == "" {
		head = short(base)
	}
	return c.Fail("no-commits", map[string]any{"Count": n, "Min": g.Min, "Baseline": g.Baseline, "Head": head}), nil
}

// baselines are what git-commits keeps of a session (see
// state.Session.Get): the commits it counts from, the latest
// maxBaselines.
type baselines []baseline

// baseline is where git-commits counts from for one prompt in one work
// tree (see baselines.at).
type baseline struct {
	Prompt string `json:"prompt"`
	Tree   string `json:"tree"`
	Commit string `json:"commit"` // "": the tree had no commit yet
	// Last is HEAD at the prompt's latest hook call: where the next
	// prompt starts from.
	Last string `json:"last"`
}

// maxBaselines bounds the baselines kept per session: prompts interleave
// (a Stop of an earlier prompt may come late), but not many.
const maxBaselines = 8

// at returns the baseline of prompt in the work tree tree, whose HEAD is
// head now, recording one at the prompt's first hook call there. Hooks
// only run when the agent stops, after it may have committed, so HEAD now
// is the wrong baseline for a new prompt: it is HEAD at the latest hook
// call of the session's previous prompt in the tree, else what start
// says (HEAD when the session began), else head.
func (bs *baselines) at(prompt, tree, head string, start func() (string, bool)) string {
	var prev *baseline
	for i := range *bs {
		b := &(*bs)[i]
		if b.Tree != tree {
			continue
		}
		if b.Prompt == prompt {
			b.Last = head
			return b.Commit
		}
		prev = b
	}
	base := head
	if prev != nil {
		base = prev.Last
	} else if start != nil {
		if c, ok := start(); ok {
			base = c
		}
	}
	*bs = append(*bs, baseline{Prompt: prompt, Tree: tree, Commit: base, Last: head})
	if n := len(*bs); n > maxBaselines {
		*bs = append(baselines(nil), (*bs)[n-maxBaselines:]...)
	}
	return base
}

// baseline returns the run's recorded baseline (see baselines.at),
// recording HEAD when this is the first call of the prompt in this tree.
func (c *Context) baseline(ctx context.Context, st *treecache.Status) (string, error) {
	if c.Event == nil || c.Event.SessionID == "" {
		return "", errors.New("git-commits: no session to keep a baseline for (a check from the command line): give the checker a \"baseline\", such as \"main\" or a commit id")
	}
	if c.StateDir == "" {
		return "", errors.New("git-commits: no state dir to keep the baseline in: give the checker a \"baseline\", such as \"main\" or a commit id")
	}
	var base string
	record := func(s *state.Session) error {
		var bs baselines
		s.Get(gitCommitsTypeName, &bs)
		base = bs.at(c.Event.PromptID, st.Dir, st.Head, func() (string, bool) {
			return headAtStart(ctx, st, c.Event.TranscriptPath)
		})
		return s.Put(gitCommitsTypeName, bs)
	}
	// Read-only: the baseline the hook would record, worked out on a copy.
	store := state.Store{Dir: c.StateDir, ReadOnly: c.ReadOnly}
	if err := store.Update(c.Event.SessionID, record); err != nil {
		return "", fmt.Errorf("git-commits: baseline: %w", err)
	}
	return base, nil
}

// headAtStart returns HEAD as it was when the session began: the time of
// the transcript's first line, looked up in HEAD's reflog. Hooks only run
// when the agent stops, and an agent that committed before its first stop
// must not be told it committed nothing. false when either is unknown
// (no transcript, no reflog, a reflog younger than the session that does
// not begin with the first commit).
func headAtStart(ctx context.Context, st *treecache.Status, transcript string) (string, bool) {
	start, ok := transcriptStart(transcript)
	if !ok {
		return "", false
	}
	out, err := treecache.Git(ctx, st.Dir, "reflog", "show", "--date=unix", "--format=%H %gd %gs", "HEAD", "--")
	if err != nil {
		return "", false
	}
	// Newest first: "<commit> HEAD@{<unix time>} <subject>".
	var subject string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) < 2 {
			return "", false
		}
		ts, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(f[1], "HEAD@{"), "}"), 10, 64)
		if err != nil {
			return "", false
		}
		if ts <= start.Unix() {
			return f[0], true
		}
		subject = ""
		if len(f) == 3 {
			subject = f[2]
		}
	}
	// Every move of HEAD came after the session began: if the oldest made
	// the first commit, there was none before.
	return "", strings.HasPrefix(subject, "commit (initial)")
}

// transcriptStart returns the time of the first line of the transcript at
// path that has one; Claude Code writes it when the session begins.
func transcriptStart(path string) (time.Time, bool) {
	if path == "" {
		return time.Time{}, false
	}
	f, err := regular.Open(path)
	if err != nil {
		return time.Time{}, false
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, buf)
	const key = `"timestamp":"`
	i := bytes.Index(buf[:n], []byte(key))
	if i < 0 {
		return time.Time{}, false
	}
	rest := buf[i+len(key) : n]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, string(rest[:j]))
	return t, err == nil
}

// countCommits counts the commits reachable from HEAD and not from base
// ("" counts every commit).
func countCommits(ctx context.Context, st *treecache.Status, base string) (int, error) {
	switch {
	case st.Head == "":
		return 0, nil
	case base == st.Head:
		// The first call of a prompt: no git call.
		return 0, nil
	}
	args := []string{"rev-list", "--count", "--end-of-options", "HEAD"}
	if base != "" {
		args = append(args, "^"+base)
	}
	out, err := treecache.Git(ctx, st.Dir, args...)
	if err != nil {
		return 0, fmt.Errorf("git-commits: %w", err)
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(out)))
	if err != nil {
		return 0, fmt.Errorf("git-commits: git rev-list --count printed %q", out)
	}
	return n, nil
}

// baselineName says what a configured baseline ("" if none) is.
func baselineName(b string) string {
	if b == "" {
		return "the prompt began"
	}
	return "`" + b + "`"
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

func commits(n int) string {
	if n == 0 {
		return "no commit"
	}
	return fmt.Sprintf("%d %s", n, plural(n, "commit", "commits"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
