package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// What gh 2.x prints, recorded: `gh issue view N --json state` writes one
// compact JSON object when stdout is not a terminal; without credentials
// it exits 4 (its exitAuth) with the sign-in advice on stderr.
const (
	ghClosed  = `{"state":"CLOSED"}`
	ghOpen    = `{"state":"OPEN"}`
	ghNoLogin = "To get started with GitHub CLI, please run:  gh auth login\n" +
		"Alternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token."
	ghNoIssue = "GraphQL: Could not resolve to an issue or pull request with the number of 999. (repository.issue)"
	ghNoRepo  = "failed to run git: fatal: not a git repository (or any of the parent directories): .git"
	ghOldCLI  = "unknown flag: --json\n\nUsage:  gh issue view {<number> | <url>} [flags]"
)

// fakeGh puts a gh first on PATH. It records its arguments and
// environment in dir/args and dir/env, then prints dir/stdout and
// dir/stderr, waits dir/sleep seconds, is killed if dir/kill exists, and
// exits with dir/code: set gh.answer to change them between checks.
type fakeGh struct{ dir string }

func newFakeGh(t *testing.T) fakeGh {
	t.Helper()
	dir := t.TempDir()
	body := `#!/bin/sh
d=` + dir + `
echo "$@" >> "$d/args"
env > "$d/env"
[ -f "$d/sleep" ] && sleep "$(cat "$d/sleep")"
[ -f "$d/stdout" ] && cat "$d/stdout"
[ -f "$d/stderr" ] && cat "$d/stderr" >&2
[ -f "$d/kill" ] && kill -9 $$
exit "$(cat "$d/code" 2>/dev/null || echo 0)"
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gh"), []byte(body), 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return fakeGh{dir}
}

// answer sets what the next calls print and their exit code.
func (g fakeGh) answer(t *testing.T, stdout, stderr string, code int) {
	t.Helper()
	for name, content := range map[string]string{"stdout": stdout + "\n", "stderr": stderr + "\n", "code": strconv.Itoa(code)} {
		require.NoError(t, os.WriteFile(filepath.Join(g.dir, name), []byte(content), 0o644))
	}
}

// calls returns the argument lists gh was called with.
func (g fakeGh) calls(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(g.dir, "args"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func TestIssueClosed(t *testing.T) {
	needSh(t)
	tests := []struct {
		name           string
		repo           string
		stdout, stderr string
		code           int
		sleep          bool // gh hangs (the network is gone)
		kill           bool // gh is killed by a signal
		want           checkers.Result
		err            []string
		args           string
	}{
		{name: "closed", stdout: ghClosed, want: checkers.OK("GitHub issue #12 is closed."),
			args: "issue view 12 --json state"},
		{name: "closed, pretty-printed", repo: "acme/app", stdout: "{\n  \"state\": \"CLOSED\"\n}",
			want: checkers.OK("GitHub issue acme/app#12 is closed."), args: "issue view 12 --json state --repo acme/app"},
		{name: "open", stdout: ghOpen,
			want: checkers.Incomplete("GitHub issue #12 is still open. Finish the work it asks for, then close it (`gh issue close 12`).")},
		{name: "open, another host", repo: "ghe.example.com/acme/app", stdout: ghOpen,
			want: checkers.Incomplete("GitHub issue ghe.example.com/acme/app#12 is still open. Finish the work it asks for, then close it (`gh issue close 12 --repo ghe.example.com/acme/app`)."),
			args: "issue view 12 --json state --repo ghe.example.com/acme/app"},
		{name: "not logged in", stderr: ghNoLogin, code: 4,
			err: []string{"issue-closed issue #12: gh is not logged in (exit code 4); run `gh auth login` or set GH_TOKEN", "GH_TOKEN environment variable"}},
		{name: "no such issue", stderr: ghNoIssue, code: 1,
			err: []string{"`gh issue view 12 --json state` failed with exit code 1: GraphQL: Could not resolve"}},
		{name: "not in a repository", stderr: ghNoRepo, code: 1,
			err: []string{"failed with exit code 1: failed to run git: fatal: not a git repository"}},
		{name: "gh without --json", stderr: ghOldCLI, code: 1,
			err: []string{"failed with exit code 1: unknown flag: --json"}},
		{name: "an answer without a state", stdout: `{"title":"x"}`,
			err: []string{"printed \"{\\\"title\\\":\\\"x\\\"}\", not {\"state\": ...}"}},
		{name: "a state it should not have", stdout: `{"state":"MERGED"}`,
			err: []string{`gh says its state is "MERGED"; expected OPEN or CLOSED`}},
		{name: "gh killed", stdout: ghClosed, kill: true,
			err: []string{"`gh issue view 12 --json state` was killed by killed"}},
		{name: "gh hangs past the budget", stdout: ghClosed, sleep: true,
			err: []string{"did not finish within the hook's time budget (limits.budget 300ms)", "context deadline exceeded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gh := newFakeGh(t)
			gh.answer(t, tt.stdout, tt.stderr, tt.code)
			if tt.kill {
				require.NoError(t, os.WriteFile(filepath.Join(gh.dir, "kill"), nil, 0o644))
			}
			ctx := context.Background()
			if tt.sleep {
				require.NoError(t, os.WriteFile(filepath.Join(gh.dir, "sleep"), []byte("30"), 0o644))
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
				defer cancel()
			}
			ch := typedChecker(t, "issue-closed", &checkers.IssueClosedOptions{Issue: 12, Repo: tt.repo})
			c := &checkers.Context{ProjectDir: t.TempDir(), Reason: checkers.ReasonStop, Budget: 300 * time.Millisecond,
				Event: &hookio.Event{SessionID: "s1"}, CacheDir: t.TempDir()}
			r, err := ch.Check(ctx, c)
			if tt.err != nil {
				require.Error(t, err)
				for _, part := range tt.err {
					assert.Contains(t, err.Error(), part)
				}
				return
			}
			require.NoError(t, err)
			assertSaid(t, tt.want, "issue-open", r)
			if tt.args != "" {
				assert.Equal(t, []string{tt.args}, gh.calls(t))
			}
			env, err := os.ReadFile(filepath.Join(gh.dir, "env"))
			require.NoError(t, err)
			assert.Contains(t, string(env), "GH_PROMPT_DISABLED=1", "gh must never prompt")
		})
	}
}

func TestIssueClosedWithoutGh(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ch := typedChecker(t, "issue-closed", &checkers.IssueClosedOptions{Issue: 3})
	_, err := ch.Check(context.Background(), &checkers.Context{ProjectDir: t.TempDir()})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "issue-closed issue #3: gh, the GitHub CLI, is not installed (not found in PATH)")
}

// TestIssueClosedAsksAgainUntilClosed: the agent may close the issue at
// any time, so an open answer is never reused; a closed one is, within
// the session, even if the issue is reopened.
func TestIssueClosedAsksAgainUntilClosed(t *testing.T) {
	needSh(t)
	gh := newFakeGh(t)
	cache, project := t.TempDir(), t.TempDir()
	ch := typedChecker(t, "issue-closed", &checkers.IssueClosedOptions{Issue: 7, Repo: "acme/app"})
	check := func(session, cacheDir string) checkers.Result {
		t.Helper()
		r, err := ch.Check(context.Background(), &checkers.Context{ProjectDir: project, Event: &hookio.Event{SessionID: session}, CacheDir: cacheDir})
		require.NoError(t, err)
		return r
	}
	steps := []struct {
		name     string
		answer   string
		session  string
		cache    string
		complete bool
		calls    int
	}{
		{name: "open", answer: ghOpen, session: "s1", cache: cache, calls: 1},
		{name: "still open: asked again", answer: ghOpen, session: "s1", cache: cache, calls: 2},
		{name: "closed by the agent", answer: ghClosed, session: "s1", cache: cache, complete: true, calls: 3},
		{name: "reopened: remembered closed in the session", answer: ghOpen, session: "s1", cache: cache, complete: true, calls: 3},
		{name: "another session asks", answer: ghOpen, session: "s2", cache: cache, calls: 4},
		{name: "no result cache: asks", answer: ghOpen, session: "s1", calls: 5},
	}
	for _, s := range steps {
		gh.answer(t, s.answer, "", 0)
		r := check(s.session, s.cache)
		assert.Equal(t, s.complete, r.Complete, s.name)
		assert.Len(t, gh.calls(t), s.calls, s.name)
		if s.name == "reopened: remembered closed in the session" {
			assert.Contains(t, r.Feedback, "in this session", s.name)
		}
	}
}

// TestIssueClosedFailureIsNotRemembered: a gh that cannot answer is
// asked again, and never taken for a closed issue.
func TestIssueClosedFailureIsNotRemembered(t *testing.T) {
	needSh(t)
	gh := newFakeGh(t)
	c := &checkers.Context{ProjectDir: t.TempDir(), Event: &hookio.Event{SessionID: "s1"}, CacheDir: t.TempDir()}
	ch := typedChecker(t, "issue-closed", &checkers.IssueClosedOptions{Issue: 7})
	gh.answer(t, "", ghNoLogin, 4)
	_, err := ch.Check(context.Background(), c)
	require.Error(t, err)
	gh.answer(t, ghOpen, "", 0)
	r, err := ch.Check(context.Background(), c)
	require.NoError(t, err)
	assert.False(t, r.Complete)
	assert.Len(t, gh.calls(t), 2)
}

func TestIssueClosedOptions(t *testing.T) {
	tests := []struct {
		name string
		opts checkers.IssueClosedOptions
		want []config.Problem
	}{
		{name: "issue alone", opts: checkers.IssueClosedOptions{Issue: 1}},
		{name: "owner/name", opts: checkers.IssueClosedOptions{Issue: 1, Repo: "donegate/donegate"}},
		{name: "host/owner/name", opts: checkers.IssueClosedOptions{Issue: 1, Repo: "ghe.example.com/acme/my_app.go"}},
		{name: "name alone", opts: checkers.IssueClosedOptions{Issue: 1, Repo: "donegate"},
			want: []config.Problem{{Path: "repo", Message: `must be "owner/name" (or "host/owner/name"), got "donegate"`}}},
		{name: "a URL", opts: checkers.IssueClosedOptions{Issue: 1, Repo: "https://github.com/acme/app"},
			want: []config.Problem{{Path: "repo", Message: `must be "owner/name" (or "host/owner/name"), got "https://github.com/acme/app"`}}},
		{name: "spaces", opts: checkers.IssueClosedOptions{Issue: 1, Repo: "acme/ app"},
			want: []config.Problem{{Path: "repo", Message: `must be "owner/name" (or "host/owner/name"), got "acme/ app"`}}},
		{name: "empty part", opts: checkers.IssueClosedOptions{Issue: 1, Repo: "acme/"},
			want: []config.Problem{{Path: "repo", Message: `must be "owner/name" (or "host/owner/name"), got "acme/"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.opts.CheckOptions())
		})
	}
}

// TestOptionTags: the options' validate tags say what the types need, as
// validator/v10, the reference the config's own rules are held to, reads
// them: a missing or non-positive issue, a missing command, a negative
// timeout.
func TestOptionTags(t *testing.T) {
	v := validator.New(validator.WithRequiredStructEnabled())
	tests := []struct {
		name string
		opts any
		tag  string // the broken rule; "" for none
	}{
		{name: "issue given", opts: &checkers.IssueClosedOptions{Issue: 12}},
		{name: "issue missing", opts: &checkers.IssueClosedOptions{Repo: "a/b"}, tag: "required"},
		{name: "issue negative", opts: &checkers.IssueClosedOptions{Issue: -1}, tag: "gt"},
		{name: "command given", opts: &checkers.ExternalOptions{Command: config.Argv{Args: []string{"x"}}}},
		{name: "command missing", opts: &checkers.ExternalOptions{}, tag: "required"},
		{name: "negative timeout", opts: &checkers.ExternalOptions{Command: config.Argv{Shell: "x"}, Timeout: -1}, tag: "gte"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Struct(tt.opts)
			if tt.tag == "" {
				assert.NoError(t, err)
				return
			}
			var verrs validator.ValidationErrors
			require.ErrorAs(t, err, &verrs)
			require.Len(t, verrs, 1)
			assert.Equal(t, tt.tag, verrs[0].Tag())
		})
	}
}

// TestTypesRegistered: the config knows both types, with the events they
// run at by default: not at a subagent's stop.
func TestTypesRegistered(t *testing.T) {
	for _, name := range []string{"external", "issue-closed"} {
		ct, ok := config.LookupType(name)
		require.True(t, ok, name)
		assert.Equal(t, []string{config.OnStop, config.OnToolUse, config.OnManual}, ct.DefaultOn, name)
		typ, ok := checkers.LookupType(name)
		require.True(t, ok, name)
		assert.NotEmpty(t, typ.Summary, name)
	}
	ext, _ := checkers.LookupType("external")
	assert.Equal(t, "the external checker `[./check --strict]` answers that the work is complete",
		ext.Describe(config.Checker{Type: "external", Options: &checkers.ExternalOptions{Command: config.Argv{Args: []string{"./check", "--strict"}}}}))
	issue, _ := checkers.LookupType("issue-closed")
	assert.Equal(t, "issue acme/app#12 is closed",
		issue.Describe(config.Checker{Type: "issue-closed", Options: &checkers.IssueClosedOptions{Issue: 12, Repo: "acme/app"}}))
}
