package closer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// gitTimeout bounds every git call.
var gitTimeout = 10 * time.Second

// git runs git in dir and returns its stdout. A non-zero exit, a timeout or
// a missing git is an error naming the command and what git said.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmdline := "git " + strings.Join(args, " ")
	res, err := runProgram(ctx, dir, gitTimeout, []string{"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0"}, "git", args...)
	switch {
	case errors.Is(err, errNotFound):
		return "", errorf(ErrEnv, "git is not installed or not on PATH")
	case err != nil:
		return "", fmt.Errorf("%s: %w", cmdline, err)
	case res.Interrupted:
		return "", fmt.Errorf("%s: %w", cmdline, ctx.Err())
	case res.TimedOut:
		return "", fmt.Errorf("%s: timed out after %s and was stopped", cmdline, gitTimeout)
	case res.ExitCode != 0:
		return "", fmt.Errorf("%s: exit code %d: %s", cmdline, res.ExitCode, tailText(res.Stderr, 3))
	}
	return string(res.Stdout), nil
}

// requireRepo fails with ErrEnv when dir is not inside a git work tree.
func requireRepo(ctx context.Context, dir string) error {
	out, err := git(ctx, dir, "rev-parse", "--is-inside-work-tree")
	if err != nil || strings.TrimSpace(out) != "true" {
		if errors.Is(err, ErrEnv) || ctx.Err() != nil {
			return err
		}
		return errorf(ErrEnv, "%s is not a git repository (git rev-parse --is-inside-work-tree failed)", dir)
	}
	return nil
}

// resolveCommit returns the full id of the commit rev names, or an ErrEnv
// error saying that it is not one.
func resolveCommit(ctx context.Context, dir, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", errorf(ErrUsage, "--baseline %q is not a commit", rev)
	}
	out, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		if errors.Is(err, ErrEnv) || ctx.Err() != nil {
			return "", err
		}
		return "", errorf(ErrEnv, "--baseline %s is not a commit in %s", rev, dir)
	}
	return strings.TrimSpace(out), nil
}

// head returns HEAD's commit id, "" in a repository without commits.
func head(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		if _, statusErr := git(ctx, dir, "status", "--porcelain"); statusErr == nil {
			return "", nil // an unborn branch
		}
		return "", err
	}
	return strings.TrimSpace(out), nil
}

// commitsSince counts the commits reachable from HEAD and not from base.
func commitsSince(ctx context.Context, dir, base string) (int, error) {
	out, err := git(ctx, dir, "rev-list", "--count", base+"..HEAD")
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		return 0, fmt.Errorf("git rev-list --count %s..HEAD: unexpected output %q", base, strings.TrimSpace(out))
	}
	return n, nil
}

// Changes are the uncommitted changes of a work tree, by kind.
type Changes struct {
	Staged    []string `json:"staged"`
	Unstaged  []string `json:"unstaged"`
	Untracked []string `json:"untracked"`
}

// Any reports whether there is anything to commit.
func (c Changes) Any() bool {
	return len(c.Staged)+len(c.Unstaged)+len(c.Untracked) > 0
}

// changes reads `git status --porcelain`: the first column is the index
// (staged), the second the work tree (unstaged); ?? is untracked.
func changes(ctx context.Context, dir string) (Changes, error) {
	out, err := git(ctx, dir, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return Changes{}, err
	}
	return parseStatus(out), nil
}

// parseStatus parses `git status --porcelain=v1 -z`.
func parseStatus(out string) Changes {
	c := Changes{Staged: []string{}, Unstaged: []string{}, Untracked: []string{}}
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		e := fields[i]
		if len(e) < 4 {
			continue
		}
		x, y, path := e[0], e[1], e[3:]
		if x == 'R' || x == 'C' {
			i++ // the next field is the original path
		}
		if x == '?' {
			c.Untracked = append(c.Untracked, path)
			continue
		}
		if x != ' ' && x != '!' {
			c.Staged = append(c.Staged, path)
		}
		if y != ' ' && y != '!' {
			c.Unstaged = append(c.Unstaged, path)
		}
	}
	return c
}
