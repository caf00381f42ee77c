package checkers_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// commitAt commits everything in dir with the given date, which git also
// writes into HEAD's reflog, and returns the commit.
func commitAt(t *testing.T, dir, date, msg string) string {
	t.Helper()
	for _, args := range [][]string{{"add", "-A"}, {"-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "--allow-empty", "-m", msg}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE="+date, "GIT_AUTHOR_DATE="+date)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	return gitIn(t, dir, "rev-parse", "HEAD")
}

// transcriptFrom writes a transcript whose first line is stamped at.
func transcriptFrom(t *testing.T, at string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	line := `{"type":"queue-operation","operation":"enqueue","timestamp":"` + at + `","sessionId":"s"}` + "\n"
	require.NoError(t, os.WriteFile(p, []byte(line), 0o644))
	return p
}

func TestGitCommitsWithABaseline(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.go": "package a\n"})
	gitIn(t, dir, "checkout", "-q", "-b", "feature")
	commitAt(t, dir, "2026-01-03T00:00:00Z", "one")
	commitAt(t, dir, "2026-01-03T00:00:01Z", "two")
	tests := []struct {
		name string
		opts checkers.GitCommitsOptions
		want checkers.Result
	}{
		{"min defaults to 1", checkers.GitCommitsOptions{Baseline: "main"}, checkers.OK("2 commits since `main`.")},
		{"exactly min", checkers.GitCommitsOptions{Baseline: "main", Min: 2}, checkers.OK("2 commits since `main`.")},
		{"fewer than min", checkers.GitCommitsOptions{Baseline: "main", Min: 3}, checkers.Incomplete(
			"The work is not committed: 2 commits since `main`, and at least 3 are required. Commit your changes (`git add` and `git commit`) before you finish.")},
		{"none", checkers.GitCommitsOptions{Baseline: "feature"}, checkers.Incomplete(
			"The work is not committed: no commit since `feature`, and at least 1 is required. Commit your changes (`git add` and `git commit`) before you finish.")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A command-line check: no session, no state dir.
			c := &checkers.Context{ProjectDir: dir, Reason: checkers.ReasonManual}
			r, err := typedChecker(t, "git-commits", &tt.opts).Check(context.Background(), c)
			require.NoError(t, err)
			assertSaid(t, tt.want, "no-commits", r)
		})
	}
}

func TestGitCommitsErrors(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.go": "package a\n"})
	outside := t.TempDir()
	tests := []struct {
		name string
		dir  string
		opts checkers.GitCommitsOptions
		ev   *hookio.Event
		want string
	}{
		{"no session and no baseline", dir, checkers.GitCommitsOptions{}, nil, `give the checker a "baseline"`},
		{"a baseline git does not know", dir, checkers.GitCommitsOptions{Baseline: "nope"}, nil, "git rev-list --count --end-of-options HEAD ^nope"},
		{"not a repository", outside, checkers.GitCommitsOptions{Baseline: "main"}, nil, "is not in a git work tree"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &checkers.Context{ProjectDir: tt.dir, Event: tt.ev, StateDir: t.TempDir()}
			_, err := typedChecker(t, "git-commits", &tt.opts).Check(context.Background(), c)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// Without a baseline, the first hook call of a prompt records one: HEAD
// when the session began, by the reflog and the transcript's first line,
// so that an agent that committed before its first stop is not told it
// committed nothing; the next prompt starts where the last left HEAD.
func TestGitCommitsRecordsABaselinePerPrompt(t *testing.T) {
	type step struct {
		commit string // a commit's date before the call; "" none
		prompt string
		want   bool // complete
	}
	tests := []struct {
		name       string
		empty      bool   // no commit before the session
		transcript string // the first line's time; "" no transcript
		steps      []step
	}{
		{
			name:       "committed before the first stop",
			transcript: "2026-01-02T00:00:00Z",
			steps:      []step{{"2026-01-03T00:00:00Z", "p1", true}, {"", "p1", true}, {"", "p2", false}, {"2026-01-04T00:00:00Z", "p2", true}},
		},
		{
			name:       "nothing committed",
			transcript: "2026-01-02T00:00:00Z",
			steps:      []step{{"", "p1", false}, {"", "p1", false}, {"2026-01-03T00:00:00Z", "p1", true}},
		},
		{
			name:  "no transcript: HEAD at the first call",
			steps: []step{{"2026-01-03T00:00:00Z", "p1", false}, {"2026-01-04T00:00:00Z", "p1", true}},
		},
		{
			name:       "the session made the first commit",
			empty:      true,
			transcript: "2025-12-31T00:00:00Z",
			steps:      []step{{"2026-01-03T00:00:00Z", "p1", true}},
		},
		{
			name:  "no commit at all yet",
			empty: true,
			steps: []step{{"", "p1", false}, {"2026-01-03T00:00:00Z", "p1", true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			needGit(t)
			dir := t.TempDir()
			t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
			gitIn(t, dir, "init", "-q")
			if !tt.empty {
				commitAt(t, dir, "2026-01-01T00:00:00Z", "before the session")
			}
			tp := ""
			if tt.transcript != "" {
				tp = transcriptFrom(t, tt.transcript)
			}
			stateDir := t.TempDir()
			ch := typedChecker(t, "git-commits", &checkers.GitCommitsOptions{})
			for i, s := range tt.steps {
				if s.commit != "" {
					writeFile(t, dir, "f.txt", s.commit)
					commitAt(t, dir, s.commit, "work")
				}
				c := &checkers.Context{ProjectDir: dir, StateDir: stateDir, Reason: checkers.ReasonStop,
					Event: &hookio.Event{SessionID: "s", PromptID: s.prompt, TranscriptPath: tp}}
				r, err := ch.Check(context.Background(), c)
				require.NoError(t, err, "step %d", i)
				assert.Equal(t, s.want, r.Complete, "step %d: %s", i, r.Feedback)
				if !s.want {
					assert.True(t, strings.HasPrefix(r.Feedback, "The work is not committed: no commit since "), r.Feedback)
				}
			}
		})
	}
}

func TestGitCommitsOptions(t *testing.T) {
	assert.Equal(t, []config.Problem{{Path: "baseline", Message: `"--all" is not a commit, branch or tag: it starts with '-'`}},
		(&checkers.GitCommitsOptions{Baseline: "--all"}).CheckOptions())
	assert.Empty(t, (&checkers.GitCommitsOptions{Baseline: "origin/main"}).CheckOptions())
	ty, ok := checkers.LookupType("git-commits")
	require.True(t, ok)
	assert.Equal(t, "the work is committed: at least 2 commits since `main`",
		ty.Describe(config.Checker{Type: "git-commits", Options: &checkers.GitCommitsOptions{Min: 2, Baseline: "main"}}))
}
