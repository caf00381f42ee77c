package checkers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/treecache"
)

// IssueClosedOptions are the options of an issue-closed checker.
type IssueClosedOptions struct {
	// Issue is the issue's number.
	Issue int `json:"issue" validate:"required,gt=0"`
	// Repo is the repository, "owner/name" or "host/owner/name". Left
	// out: the one gh finds from the project dir's git remotes.
	Repo string `json:"repo,omitempty"`
}

// repoForm reports whether repo is gh's [HOST/]OWNER/REPO, each part
// made of what GitHub's owner and repository names (and host names) hold:
// letters, digits, '-', '_' and '.'. Not a regexp: a package-level one
// would be compiled at every hook call's start-up.
func repoForm(repo string) bool {
	parts := strings.Split(repo, "/")
	if len(parts) != 2 && len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.IndexFunc(p, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
		}) >= 0 {
			return false
		}
	}
	return true
}

// CheckOptions implements config.OptionsChecker: repo's form, which gh
// would only refuse when the check runs.
func (o *IssueClosedOptions) CheckOptions() []config.Problem {
	if o.Repo != "" && !repoForm(o.Repo) {
		return []config.Problem{{Path: "repo", Message: fmt.Sprintf(`must be "owner/name" (or "host/owner/name"), got %q`, o.Repo)}}
	}
	return nil
}

// The issue-closed checker type.
var _ = declare("issue-closed", func() *Type {
	t := register(Type{
		Name:         "issue-closed",
		ProjectState: true,
		Summary:      "`gh issue view ISSUE --json state` says the issue is CLOSED",
		DefaultOn:    projectReasons,
		Patterns:     []string{"issue-open"},
		Example:      `{"type": "issue-closed", "issue": 3, "repo": "o/r"}`,
	}, func(o *IssueClosedOptions) (Checker, error) {
		return issueClosedChecker{Issue: o.Issue, Repo: o.Repo}, nil
	}, func(o *IssueClosedOptions) string {
		return issueClosedChecker{Issue: o.Issue, Repo: o.Repo}.name() + " is closed"
	})
	commands(t, func(o *IssueClosedOptions, _ string) ([]ProjectCommand, error) {
		return []ProjectCommand{issueClosedChecker{Issue: o.Issue, Repo: o.Repo}.project()}, nil
	})
	return t
})

// project is the gh call as consent names it.
func (i issueClosedChecker) project() ProjectCommand {
	return ProjectCommand{Checker: "issue-closed", Command: strings.Join(i.args(), " ")}
}

// args is the gh call that asks for the issue's state.
func (i issueClosedChecker) args() []string {
	args := []string{"gh", "issue", "view", strconv.Itoa(i.Issue), "--json", "state"}
	if i.Repo != "" {
		args = append(args, "--repo", i.Repo)
	}
	return args
}

// issueClosedChecker is complete when a GitHub issue is closed, as the GitHub
// CLI, gh, says: the work is tracked in an issue the agent (or a person)
// closes when it is done.
//
// An open issue is asked about again at every check, since the agent may
// close it at any time. A closed one is remembered for the session (in
// the result cache, when the Context has one): reopening it is rare, and
// a Stop hook that fires on every turn would otherwise ask GitHub every
// time. Whatever keeps gh from answering — not installed, not logged in,
// no network, no such issue — is an error, never "complete".
type issueClosedChecker struct {
	Issue int
	Repo  string // "" means the project dir's repository
}

// ghTimeout bounds one gh call: it is one API request, usually under a
// second; a minute means the network is gone.
const ghTimeout = time.Minute

// ghExitAuth is gh's exit code when it has no credentials (its ghcmd's
// exitAuth).
const ghExitAuth = 4

// Check implements Checker.
func (i issueClosedChecker) Check(ctx context.Context, c *Context) (Result, error) {
	if r, ok := c.mayRun(i.project()); !ok {
		return r, nil
	}
	key, remember := i.cacheKey(c)
	cache := c.cache()
	if remember {
		if e, ok := cache.Get(key); ok && e.Complete {
			c.reused.Add(1)
			return OK(fmt.Sprintf("GitHub %s is closed (gh said so at %s, in this session).", i.name(), e.At.UTC().Format(time.RFC3339))), nil
		}
	}
	state, err := i.state(ctx, c)
	if err != nil {
		return Result{}, fmt.Errorf("issue-closed %s: %w", i.name(), err)
	}
	switch state {
	case "CLOSED":
		r := OK(fmt.Sprintf("GitHub %s is closed.", i.name()))
		if remember {
			// Failing to remember only costs another gh call next time.
			_ = cache.Put(key, treecache.Entry{Complete: true, Feedback: r.Feedback, At: time.Now()})
		}
		return r, nil
	case "OPEN":
		// issue-open: Issue, its number; Repo, "owner/name" as
		// configured ("": the project's own).
		return c.Fail("issue-open", map[string]any{"Issue": i.Issue, "Repo": i.Repo}), nil
	}
	return Result{}, fmt.Errorf("issue-closed %s: gh says its state is %q; expected OPEN or CLOSED", i.name(), state)
}

// state asks gh for the issue's state.
func (i issueClosedChecker) state(ctx context.Context, c *Context) (string, error) {
	args := i.args()
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("gh not run: %w", err)
	}
	runCtx, cancel, ownFirst := within(ctx, ghTimeout)
	defer cancel()
	// gh must never wait for a person: no prompt, no update notice.
	env := append([]string{"GH_PROMPT_DISABLED=1", "GH_NO_UPDATE_NOTIFIER=1"}, c.Env...)
	out, err := c.runner().Run(runCtx, proc.Command{Args: args, Dir: c.ProjectDir, Env: env, SplitStdout: true})
	if errors.Is(err, exec.ErrNotFound) {
		return "", fmt.Errorf("gh, the GitHub CLI, is not installed (not found in PATH); install it from https://cli.github.com and run `gh auth login`: %w", err)
	}
	if err != nil {
		return "", err
	}
	stderr := lastLines(out.Output, stderrLines)
	switch {
	case out.Ended && ownFirst:
		return "", fmt.Errorf("`%s` timed out after %s (%w): %s", strings.Join(args, " "), ghTimeout, context.DeadlineExceeded, stderr)
	case out.Ended:
		return "", fmt.Errorf("`%s` %s (%w)", strings.Join(args, " "), overBudget(c.Budget), context.DeadlineExceeded)
	case out.Signal != "":
		return "", fmt.Errorf("`%s` was killed by %s: %s", strings.Join(args, " "), out.Signal, stderr)
	case out.ExitCode == ghExitAuth:
		return "", fmt.Errorf("gh is not logged in (exit code %d); run `gh auth login` or set GH_TOKEN: %s", out.ExitCode, stderr)
	case out.ExitCode != 0:
		return "", fmt.Errorf("`%s` failed with exit code %d: %s", strings.Join(args, " "), out.ExitCode, stderr)
	case out.StdoutCut:
		return "", fmt.Errorf("`%s` printed more than %d bytes, not {\"state\": ...}", strings.Join(args, " "), proc.MaxStdoutBytes)
	}
	var answer struct {
		State *string `json:"state"`
	}
	if err := json.Unmarshal(out.Stdout, &answer); err != nil || answer.State == nil {
		return "", fmt.Errorf("`%s` printed %q, not {\"state\": ...}", strings.Join(args, " "), preview(out.Stdout))
	}
	return *answer.State, nil
}

// cacheKey is where a closed answer is remembered, and whether it may be:
// only within a session, for this project (gh finds the repository from
// it when Repo is "").
func (i issueClosedChecker) cacheKey(c *Context) (string, bool) {
	if c.CacheDir == "" || c.Event == nil || c.Event.SessionID == "" {
		return "", false
	}
	return treecache.Key("issue-closed", c.Event.SessionID, c.ProjectDir, i.Repo, strconv.Itoa(i.Issue)), true
}

// name is how messages name the issue: "issue #12", "issue owner/name#12".
func (i issueClosedChecker) name() string {
	if i.Repo != "" {
		return fmt.Sprintf("issue %s#%d", i.Repo, i.Issue)
	}
	return fmt.Sprintf("issue #%d", i.Issue)
}
