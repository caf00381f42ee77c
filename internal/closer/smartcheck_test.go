package closer

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSmartCheck(t *testing.T) {
	const commit = "git add -A && git commit -qm rescued"
	for _, tt := range []struct {
		name string
		// setup changes the repository after the baseline.
		setup    func(t *testing.T, repo string)
		calls    func(t *testing.T) map[string]string
		flags    []string
		wantCode int
		want     SmartReport // the fields compared: Complete, Status, NewCommits, ProbesUsed, Rescued, Changes
		wantArgs []string    // of the first probe, after the prompt
	}{
		{
			name: "commits since the baseline: complete without asking",
			setup: func(t *testing.T, repo string) {
				write(t, repo, "a.go", "x")
				gitT(t, repo, "add", "a.go")
				gitT(t, repo, "commit", "-qm", "a")
			},
			calls:    func(t *testing.T) map[string]string { return nil },
			wantCode: 0,
			want:     SmartReport{Complete: true, Status: StatusCommitsCreated, NewCommits: 1},
		},
		{
			name: "the agent is complete and there is nothing to commit",
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"1.json": probeText(t, "complete", "All done.")}
			},
			wantCode: 0,
			want:     SmartReport{Complete: true, Status: StatusNothingToDo, ProbesUsed: 1},
			wantArgs: []string{"--output-format", "json", "--settings", noHooks},
		},
		{
			name:  "complete with changes: the rescue commits them",
			setup: func(t *testing.T, repo string) { write(t, repo, "new.txt", "n") },
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"1.json": probeText(t, "complete", "Done.")}
			},
			flags:    []string{"--rescue-command", commit},
			wantCode: 0,
			want:     SmartReport{Complete: true, Status: StatusRescued, NewCommits: 1, ProbesUsed: 1, Rescued: true, RescueRan: true},
		},
		{
			name: "complete with changes and no rescue command: staged, unstaged and untracked told apart",
			setup: func(t *testing.T, repo string) {
				write(t, repo, "staged.txt", "s")
				gitT(t, repo, "add", "staged.txt")
				write(t, repo, "README", "changed")
				write(t, repo, "new.txt", "n")
			},
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"1.json": probeText(t, "complete", "Done.")}
			},
			wantCode: 1,
			want: SmartReport{Status: StatusUncommitted, ProbesUsed: 1,
				Changes: Changes{Staged: []string{"staged.txt"}, Unstaged: []string{"README"}, Untracked: []string{"new.txt"}}},
		},
		{
			name:  "complete, but the rescue makes no commit",
			setup: func(t *testing.T, repo string) { write(t, repo, "new.txt", "n") },
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"1.json": probeText(t, "complete", "Done.")}
			},
			flags:    []string{"--rescue-command", "echo cannot commit; exit 4"},
			wantCode: 1,
			want:     SmartReport{Status: StatusRescueFailed, ProbesUsed: 1, RescueRan: true, Changes: Changes{Untracked: []string{"new.txt"}}},
		},
		{
			name: "working until the probes run out",
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"last.json": probeText(t, "working", "Still on it.")}
			},
			flags:    []string{"--max-probes", "3"},
			wantCode: 1,
			want:     SmartReport{Status: StatusTimeout, ProbesUsed: 3},
		},
		{
			name:  "waiting until the probes run out, then the final rescue commits",
			setup: func(t *testing.T, repo string) { write(t, repo, "new.txt", "n") },
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"last.json": probeText(t, "waiting", "Waiting for CI.")}
			},
			flags:    []string{"--max-probes", "2", "--rescue-command", commit},
			wantCode: 0,
			want:     SmartReport{Complete: true, Status: StatusRescuedFinal, NewCommits: 1, ProbesUsed: 2, Rescued: true, RescueRan: true},
		},
		{
			name: "working, and the agent commits meanwhile",
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"1.sh": "echo x > late.txt; git add late.txt; git commit -qm late; cat <<'EOF'\n" + probeText(t, "working", "Committing.") + "\nEOF\n"}
			},
			wantCode: 0,
			want:     SmartReport{Complete: true, Status: StatusCommitsCreated, NewCommits: 1, ProbesUsed: 1},
		},
		{
			name: "a probe answer that cannot be read",
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"1.json": probeText(t, "finished", "Done.")}
			},
			wantCode: 1,
			want:     SmartReport{Status: StatusProbeError, ProbesUsed: 1},
		},
		{
			name:     "a probe that prints garbage",
			calls:    func(t *testing.T) map[string]string { return map[string]string{"1.sh": "echo '\x1b[31mpanic\x1b[0m'"} },
			wantCode: 1,
			want:     SmartReport{Status: StatusProbeError, ProbesUsed: 1},
		},
		{
			name:     "a probe that hangs is stopped at --probe-timeout",
			calls:    func(t *testing.T) map[string]string { return map[string]string{"1.sh": "sleep 300"} },
			flags:    []string{"--probe-timeout", "300ms"},
			wantCode: 1,
			want:     SmartReport{Status: StatusProbeError, ProbesUsed: 1},
		},
		{
			name: "--session resumes that session",
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"1.json": probeText(t, "complete", "All done.")}
			},
			flags:    []string{"--session", "abc-123"},
			wantCode: 0,
			want:     SmartReport{Complete: true, Status: StatusNothingToDo, ProbesUsed: 1},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo, base := newRepo(t)
			if tt.setup != nil {
				tt.setup(t, repo)
			}
			claude, calls := fakeClaude(t, tt.calls(t))
			args := append([]string{"smart-check", "--dir", repo, "--baseline", base, "--claude", claude, "--probe-interval", "0s", "--json"}, tt.flags...)
			code, out, stderr := run(t, args...)
			require.Equal(t, tt.wantCode, code, "stdout: %s\nstderr: %s", out, stderr)
			var got SmartReport
			require.NoError(t, json.Unmarshal([]byte(out), &got), out)
			for _, l := range []*[]string{&tt.want.Changes.Staged, &tt.want.Changes.Unstaged, &tt.want.Changes.Untracked} {
				if *l == nil {
					*l = []string{}
				}
			}
			assert.Equal(t, tt.want, SmartReport{Complete: got.Complete, Status: got.Status, NewCommits: got.NewCommits,
				ProbesUsed: got.ProbesUsed, Rescued: got.Rescued, RescueRan: got.RescueRan, Changes: got.Changes}, "reason: %s", got.Reason)
			assert.Equal(t, base, got.Baseline)
			assert.NotEmpty(t, got.Reason)
			if got.ProbesUsed > 0 {
				a := callArgs(t, calls, "1")
				want := []string{"--continue", "-p", statusProbe}
				for i, f := range tt.flags {
					if f == "--session" {
						want = []string{"--resume", tt.flags[i+1], "-p", statusProbe}
					}
				}
				assert.Equal(t, append(want, "--output-format", "json", "--settings", noHooks), a)
				pwd, err := os.ReadFile(filepath.Join(calls, "1.pwd"))
				require.NoError(t, err)
				assert.Equal(t, repo+"\n", string(pwd), "the probe runs in DIR")
			} else {
				assert.NoFileExists(t, filepath.Join(calls, "count"), "no probe when there are commits")
			}
			if got.Status == StatusProbeError {
				assert.Nil(t, got.Probe)
				assert.Contains(t, got.Reason, "the status probe gave no answer: ")
			}
		})
	}
}

func TestSmartCheckReasons(t *testing.T) {
	repo, base := newRepo(t)
	claude, _ := fakeClaude(t, map[string]string{"1.sh": "sleep 300", "2.json": probeText(t, "finished", "x")})
	_, out, _ := run(t, "smart-check", "--dir", repo, "--baseline", base, "--claude", claude, "--probe-timeout", "300ms")
	assert.Contains(t, out, "✗ smart-check: probe_error — the status probe gave no answer: "+claude+" timed out after 300ms and was stopped with its process group\n")
	assert.Contains(t, out, "Incomplete. Next: check that `claude --continue` works in this directory")
	_, out, _ = run(t, "smart-check", "--dir", repo, "--baseline", base, "--claude", claude)
	assert.Contains(t, out, `the status probe gave no answer: the answer cannot be used: answer is malformed: status must be one of complete waiting working, not "finished"`)
}

func TestSmartCheckBadInput(t *testing.T) {
	repo, base := newRepo(t)
	notRepo := t.TempDir()
	claude, _ := fakeClaude(t, map[string]string{"last.json": probeText(t, "complete", "x")})
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no baseline", []string{"--dir", repo}, "--baseline COMMIT is required"},
		{"baseline not a commit", []string{"--dir", repo, "--baseline", "0123456789abcdef0123456789abcdef01234567"}, "--baseline 0123456789abcdef0123456789abcdef01234567 is not a commit in " + repo},
		{"baseline a tree, not a commit", []string{"--dir", repo, "--baseline", base + "^{tree}"}, "--baseline " + base + "^{tree} is not a commit in"},
		{"baseline an option", []string{"--dir", repo, "--baseline", "--all"}, `--baseline "--all" is not a commit`},
		{"not a repository", []string{"--dir", notRepo, "--baseline", base}, notRepo + " is not a git repository"},
		{"claude missing", []string{"--dir", repo, "--baseline", base, "--claude", "/nonexistent/claude"}, `claude executable "/nonexistent/claude" not found`},
		{"negative probes", []string{"--dir", repo, "--baseline", base, "--max-probes", "-1"}, "--max-probes -1: must not be negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := run(t, append([]string{"smart-check", "--claude", claude}, tt.args...)...)
			assert.Equal(t, ExitUsage, code)
			assert.Empty(t, out)
			assert.Contains(t, stderr, "closer smart-check: "+tt.want)
			assert.Equal(t, 1, countLines(stderr), stderr)
		})
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
}

// TestRescueReportsItsLastOutputInOrder: the rescue's last lines are the
// last it wrote, stdout and stderr interleaved as they came (they were
// stdout's, then stderr's).
func TestRescueReportsItsLastOutputInOrder(t *testing.T) {
	repo, base := newRepo(t)
	r := &runCtx{dir: repo, env: testEnv(nil, false)}
	po := probeOptions{rescueCommand: "echo first; sleep 0.05; echo second >&2; sleep 0.05; echo third; exit 3", rescueTimeout: time.Minute}
	var rep SmartReport
	rescued, out, err := r.rescue(context.Background(), po, base, &rep)
	require.NoError(t, err)
	assert.False(t, rescued)
	assert.Equal(t, "`"+po.rescueCommand+"` exited with code 3: first second third", out)
}
