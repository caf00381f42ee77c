package closer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/proctest"
)

// jsonLines decodes loop's --json output.
func jsonLines(t *testing.T, out string) (its []IterationEvent, sum SummaryEvent) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.NotEmpty(t, lines)
	for _, l := range lines[:len(lines)-1] {
		var ev IterationEvent
		require.NoError(t, json.Unmarshal([]byte(l), &ev), l)
		require.Equal(t, "iteration", ev.Event)
		its = append(its, ev)
	}
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &sum))
	require.Equal(t, "summary", sum.Event)
	return its, sum
}

func TestLoop(t *testing.T) {
	commitAndAnswer := func(t *testing.T) string {
		return "echo x >> work.txt; git add work.txt; git commit -qm work; cat <<'EOF'\n" + recorded(t, "result-text.json", map[string]any{"result": "Committed."}) + "\nEOF\n"
	}
	for _, tt := range []struct {
		name     string
		config   string
		calls    func(t *testing.T) map[string]string
		flags    []string
		wantCode int
		stopped  string
		iters    int
		commits  int
	}{
		{
			name: "the agent commits in the second iteration",
			calls: func(t *testing.T) map[string]string {
				return map[string]string{
					"1.json": recorded(t, "result-text.json", map[string]any{"result": "Working on it."}),
					"2.json": probeText(t, "working", "Still writing."),
					"3.sh":   commitAndAnswer(t),
				}
			},
			wantCode: 0, stopped: StoppedComplete, iters: 2, commits: 1,
		},
		{
			name: "an agent that never commits trips the circuit breaker",
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"last.json": probeText(t, "working", "Thinking.")}
			},
			flags:    []string{"--no-progress-limit", "2"},
			wantCode: 1, stopped: StoppedCircuitBreaker, iters: 2,
		},
		{
			name:   "commits, but the checks never pass: max iterations",
			config: `{"checkers":[{"type":"files","paths":["never.txt"]}]}`,
			calls: func(t *testing.T) map[string]string {
				return map[string]string{"1.sh": commitAndAnswer(t), "2.sh": commitAndAnswer(t)}
			},
			flags:    []string{"--max-iterations", "2"},
			wantCode: 1, stopped: StoppedMaxIterations, iters: 2, commits: 2,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo, _ := newRepo(t)
			if tt.config != "" {
				require.NoError(t, os.MkdirAll(filepath.Join(repo, ".claude"), 0o755))
				write(t, repo, ".claude/donegate.json", tt.config)
				gitT(t, repo, "add", ".claude")
				gitT(t, repo, "commit", "-qm", "config")
			}
			promptFile := filepath.Join(t.TempDir(), "prompt.md")
			require.NoError(t, os.WriteFile(promptFile, []byte("Write work.txt and commit it.\n"), 0o644))
			claude, calls := fakeClaude(t, tt.calls(t))
			args := append([]string{"loop", "--dir", repo, "--prompt-file", promptFile, "--claude", claude, "--max-probes", "1", "--probe-interval", "0s", "--json"}, tt.flags...)
			args = append(args, "--", "--permission-mode", "acceptEdits")
			code, out, stderr := run(t, args...)
			assert.Equal(t, tt.wantCode, code, "stderr: %s", stderr)
			its, sum := jsonLines(t, out)
			assert.Equal(t, tt.stopped, sum.Stopped)
			assert.Equal(t, tt.iters, sum.Iterations)
			assert.Len(t, its, tt.iters)
			assert.Equal(t, tt.commits, sum.Commits)

			first := callArgs(t, calls, "1")
			assert.Equal(t, []string{"-p", "Write work.txt and commit it.", "--output-format", "json", "--permission-mode", "acceptEdits"}, first)
			if tt.iters > 1 {
				// The second iteration continues with the retry prompt.
				n := "3"
				if its[0].SmartCheck.ProbesUsed == 0 {
					n = "2"
				}
				next := callArgs(t, calls, n)
				assert.Equal(t, []string{"--continue", "-p"}, next[:2])
				assert.Equal(t, nextPrompt(its[0]), next[2])
				assert.Equal(t, []string{"--output-format", "json", "--permission-mode", "acceptEdits"}, next[3:])
			}
			for i, ev := range its {
				assert.Equal(t, i+1, ev.Iteration)
			}
		})
	}
}

func TestLoopRetryPromptNamesWhatIsPending(t *testing.T) {
	ev := IterationEvent{
		SmartCheck: SmartReport{Status: StatusTimeout, Reason: "no commit since abc after 1 status probe(s)"},
		Check:      CheckReport{RetryPrompt: "The task is not done yet: 1 check(s) still fail."},
	}
	assert.Equal(t, "The task is not done yet: 1 check(s) still fail.\n\nNo commit was made in the last iteration (timeout: no commit since abc after 1 status probe(s)). Finish the task, then commit your work with git.", nextPrompt(ev))
}

func TestLoopTextOutput(t *testing.T) {
	repo, _ := newRepo(t)
	promptFile := filepath.Join(t.TempDir(), "prompt.md")
	require.NoError(t, os.WriteFile(promptFile, []byte("Do it."), 0o644))
	claude, _ := fakeClaude(t, map[string]string{"last.json": probeText(t, "working", "Thinking.")})
	code, out, _ := run(t, "loop", "--dir", repo, "--prompt-file", promptFile, "--claude", claude, "--max-probes", "1", "--probe-interval", "0s", "--no-progress-limit", "1")
	assert.Equal(t, 1, code)
	assert.Regexp(t, `^iteration 1/10 \d+s commits 0 ✗ incomplete: smart-check: timeout — no commit since [0-9a-f]{12} after 1 status probe\(s\)\n`, out)
	assert.Regexp(t, `loop stopped: circuit_breaker after 1 iteration\(s\), \d+s; 0 commit\(s\) since [0-9a-f]{12}, 0 rescue\(s\)\. No progress in 1 iterations in a row`, out)
}

// Ctrl-C (the context ending) stops the running claude with its process
// group and still prints the summary.
func TestLoopInterrupted(t *testing.T) {
	repo, _ := newRepo(t)
	promptFile := filepath.Join(t.TempDir(), "prompt.md")
	require.NoError(t, os.WriteFile(promptFile, []byte("Do it."), 0o644))
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	claude, _ := fakeClaude(t, map[string]string{"1.sh": "sleep 300 & echo $! > " + pidFile + "; wait"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var out, errOut bytes.Buffer
	var code int
	proctest.WithinAMinute(t, func() {
		code = Main(ctx, []string{"loop", "--dir", repo, "--prompt-file", promptFile, "--claude", claude, "--json"}, &out, &errOut,
			testEnv(map[string]string{"HOME": t.TempDir(), "DONEGATE_STATE_DIR": t.TempDir()}, false))
	})
	assert.Equal(t, ExitIncomplete, code, errOut.String())
	_, sum := jsonLines(t, out.String())
	assert.Equal(t, StoppedInterrupted, sum.Stopped)
	assert.Equal(t, 1, sum.Iterations)
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	var pid int
	_, err = fmt.Sscan(string(data), &pid)
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return proctest.Gone(pid) }, 20*time.Second, 20*time.Millisecond, "claude's child was killed")
}

func TestLoopBadInput(t *testing.T) {
	repo, _ := newRepo(t)
	promptFile := filepath.Join(t.TempDir(), "prompt.md")
	require.NoError(t, os.WriteFile(promptFile, []byte("Do it."), 0o644))
	empty := filepath.Join(t.TempDir(), "empty.md")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no prompt file", []string{"--dir", repo}, "--prompt-file FILE is required"},
		{"prompt file missing", []string{"--dir", repo, "--prompt-file", "nope.md"}, "--prompt-file: open nope.md: no such file or directory"},
		{"empty prompt", []string{"--dir", repo, "--prompt-file", empty}, "is empty"},
		{"not a repository", []string{"--dir", t.TempDir(), "--prompt-file", promptFile}, "is not a git repository"},
		{"zero iterations", []string{"--dir", repo, "--prompt-file", promptFile, "--max-iterations", "0"}, "--max-iterations 0: must be at least 1"},
		{"claude missing", []string{"--dir", repo, "--prompt-file", promptFile, "--claude", "/nonexistent/claude"}, `claude executable "/nonexistent/claude" not found`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := run(t, append([]string{"loop"}, tt.args...)...)
			assert.Equal(t, ExitUsage, code)
			assert.True(t, strings.HasPrefix(stderr, "closer loop: "), stderr)
			assert.Contains(t, stderr, tt.want)
			assert.Equal(t, 1, countLines(stderr), stderr)
		})
	}
}
