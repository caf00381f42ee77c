package checkers_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
)

func TestGitClean(t *testing.T) {
	const head = "The git working tree is not clean: "
	const tail = " changed or untracked. Commit what belongs to the work, delete or .gitignore what does not, then check `git status` again:"
	tests := []struct {
		name   string
		change func(t *testing.T, dir string)
		want   checkers.Result
	}{
		{
			name: "clean",
			want: checkers.OK("The git working tree is clean."),
		},
		{
			name:   "ignored files do not count",
			change: func(t *testing.T, dir string) { writeFile(t, dir, "build/out.bin", "x") },
			want:   checkers.OK("The git working tree is clean."),
		},
		{
			name:   "untracked",
			change: func(t *testing.T, dir string) { writeFile(t, dir, "new/deep/x.go", "package x\n") },
			want:   checkers.Incomplete(head + "1 file" + tail + "\n- new/deep/x.go: untracked"),
		},
		{
			name: "staged and unstaged told apart",
			change: func(t *testing.T, dir string) {
				writeFile(t, dir, "a.go", "package a // staged\n")
				gitIn(t, dir, "add", "a.go")
				writeFile(t, dir, "a.go", "package a // and then more\n")
				writeFile(t, dir, "b.go", "package b // unstaged\n")
				writeFile(t, dir, "n.go", "package n\n")
				gitIn(t, dir, "add", "n.go")
			},
			want: checkers.Incomplete(head + "3 files" + tail +
				"\n- a.go: staged modified, unstaged modified\n- b.go: unstaged modified\n- n.go: staged added"),
		},
		{
			name: "renamed and deleted",
			change: func(t *testing.T, dir string) {
				gitIn(t, dir, "mv", "a.go", "moved.go")
				require.NoError(t, os.Remove(filepath.Join(dir, "b.go")))
				gitIn(t, dir, "rm", "-q", "c.go")
			},
			want: checkers.Incomplete(head + "3 files" + tail +
				"\n- b.go: unstaged deleted\n- c.go: staged deleted\n- moved.go: staged renamed from a.go"),
		},
		{
			name: "paths with spaces and newlines",
			change: func(t *testing.T, dir string) {
				writeFile(t, dir, "with space.txt", "x")
				writeFile(t, dir, "line\nbreak.txt", "x")
				writeFile(t, dir, " lead.txt", "x")
			},
			want: checkers.Incomplete(head + "3 files" + tail +
				"\n- \" lead.txt\": untracked\n- \"line\\nbreak.txt\": untracked\n- with space.txt: untracked"),
		},
		{
			// The shared look forces core.fileMode=true for the cache
			// key; the user's own git status, which git-clean follows,
			// does not show a chmod with core.fileMode=false.
			name: "chmod hidden by core.fileMode=false",
			change: func(t *testing.T, dir string) {
				gitIn(t, dir, "config", "core.fileMode", "false")
				require.NoError(t, os.Chmod(filepath.Join(dir, "a.go"), 0o755))
			},
			want: checkers.OK("The git working tree is clean."),
		},
		{
			name: "chmod seen with core.fileMode=true",
			change: func(t *testing.T, dir string) {
				require.NoError(t, os.Chmod(filepath.Join(dir, "a.go"), 0o755))
			},
			want: checkers.Incomplete(head + "1 file" + tail + "\n- a.go: unstaged modified"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := gitRepo(t, map[string]string{"a.go": "package a\n", "b.go": "package b\n", "c.go": "package c\n", ".gitignore": "build/\n"})
			if tt.change != nil {
				tt.change(t, dir)
			}
			c := &checkers.Context{ProjectDir: dir}
			r, err := typedChecker(t, "git-clean", &checkers.GitCleanOptions{}).Check(context.Background(), c)
			require.NoError(t, err)
			assertSaid(t, tt.want, "git-dirty", r)
		})
	}
}

// At most 20 files are named, and the rest counted; asked from a
// subdirectory, the paths are still the top level's.
func TestGitCleanListsAtMostTwenty(t *testing.T) {
	dir := gitRepo(t, nil)
	for i := range 23 {
		writeFile(t, dir, fmt.Sprintf("f%02d.txt", i), "x")
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	c := &checkers.Context{ProjectDir: filepath.Join(dir, "sub")}
	r, err := typedChecker(t, "git-clean", &checkers.GitCleanOptions{}).Check(context.Background(), c)
	require.NoError(t, err)
	assert.False(t, r.Complete)
	assert.Contains(t, r.Feedback, ": 23 files changed or untracked.")
	assert.Contains(t, r.Feedback, "\n- f19.txt: untracked\n- ... and 3 more")
	assert.NotContains(t, r.Feedback, "f20.txt")
}

// Outside a git work tree the check cannot run: an error, never "clean".
func TestGitCleanOutsideGitIsAnError(t *testing.T) {
	needGit(t)
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	_, err := typedChecker(t, "git-clean", &checkers.GitCleanOptions{}).Check(context.Background(), &checkers.Context{ProjectDir: dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not in a git work tree")
	assert.Contains(t, err.Error(), "not a git repository")
}

// A chain of cached commands and git-clean on an unchanged, clean tree
// runs one git process, its status: the look is shared, and nothing is
// hashed twice. In parallel too, where the members
// wait for the one look.
func TestChainSharesOneLookAtTheTree(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		t.Run(fmt.Sprintf("parallel=%v", parallel), func(t *testing.T) {
			dir := gitRepo(t, map[string]string{"a.go": "package a\n"})
			cacheDir := t.TempDir()
			chain := checkers.Composite{Parallel: parallel, Members: []checkers.Member{
				{Label: "test", Checker: checkers.Test{Command: "true", Cache: true}},
				{Label: "git-clean", Checker: typedChecker(t, "git-clean", &checkers.GitCleanOptions{})},
				{Label: "lint", Checker: checkers.Test{Command: "exit 0", Cache: true}},
			}}
			run := func() checkers.Result {
				c := &checkers.Context{Event: &hookio.Event{SessionID: "s"}, ProjectDir: dir, CacheDir: cacheDir, Budget: time.Minute}
				r, err := chain.Check(context.Background(), c)
				require.NoError(t, err)
				return r
			}
			log := gitLog(t)
			r := run()
			require.True(t, r.Complete, r.Feedback)
			if !parallel {
				// Three looks: before test's command; after it (did it
				// leave the tree as it was?), which git-clean and lint
				// then share; after lint's command. (Until 2026-11-23
				// the look after a command was not shared: four.)
				// Each passing test checker then compares the tests with
				// the baseline (weakening): a diff and a list of untracked
				// test files, which the next stop reuses.
				var status []string
				for _, c := range gitCalls(t, log) {
					if strings.Contains(c, " status ") {
						status = append(status, c)
					}
				}
				// Two where the tree stood still long enough for the
				// last look to be answered from its snapshot (a loaded
				// machine); never more than three.
				assert.LessOrEqual(t, len(status), 3, status)
				assert.GreaterOrEqual(t, len(status), 2, status)
			}
			gitCalls(t, log)
			r = run()
			require.True(t, r.Complete, r.Feedback)
			assert.Contains(t, r.Feedback, "donegate reused the result")
			// One status, or none where the tree's snapshot answered.
			calls := gitCalls(t, log)
			require.LessOrEqual(t, len(calls), 1, "%q", calls)
			for _, call := range calls {
				assert.Contains(t, call, " status --porcelain=v2 --branch --no-ahead-behind -z --untracked-files=all --no-renames --ignore-submodules=none")
			}
		})
	}
}
