//go:build e2e && !windows

package e2e

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// updateCloser rewrites internal/closer/testdata/claude/ from the real CLI.
var updateCloser = flag.Bool("update-closer", false, "record the real CLI's -p --output-format json results as closer's fixtures")

// closerBinary is cmd/closer, built with the hooks (hookBinaries).
func closerBinary(t *testing.T) string {
	t.Helper()
	return filepath.Join(hookBinaries(t), "closer")
}

// baseEnv is the environment the harness gives the CLI: nothing of the
// developer's own, the stand-in as the API.
func (s *session) baseEnv() []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.Home,
		"TMPDIR=" + s.t.TempDir(),
		"LANG=C.UTF-8",
		"ANTHROPIC_BASE_URL=" + s.API.URL(),
		"ANTHROPIC_API_KEY=sk-ant-fake-key-for-tests",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
		"DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state"),
		"GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.com",
	}, s.Env...)
}

// closerRun is one run of closer.
type closerRun struct {
	Stdout, Stderr string
	Code           int
	Elapsed        time.Duration
}

// closer runs the closer binary in the project with the session's
// environment, killed with its process group after limit.
func (s *session) closer(limit time.Duration, args ...string) closerRun {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	if len(args) > 0 && args[0] == "loop" {
		s.consent() // loop runs the agent, whose hooks need it
	}
	cmd := exec.CommandContext(ctx, closerBinary(s.t), args...)
	cmd.Dir = s.Project
	cmd.Env = s.baseEnv()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := closerRun{Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("run closer: %v\nstderr: %s", err, stderr.String())
	}
	s.t.Logf("closer %s\nexit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.Code, r.Stdout, r.Stderr)
	if ctx.Err() != nil {
		s.t.Fatalf("closer did not finish within %s\nstdout: %s\nstderr: %s", limit, stdout.String(), stderr.String())
	}
	return r
}

// gitRepo makes the project a git repository with one commit.
func (s *session) gitRepo() string {
	s.t.Helper()
	s.git("init", "-q", "-b", "main")
	require.NoError(s.t, os.WriteFile(filepath.Join(s.Project, "README.md"), []byte("# project\n"), 0o644))
	s.git("add", "README.md")
	s.git("commit", "-q", "-m", "initial")
	return s.git("rev-parse", "HEAD")
}

// git runs git in the project and returns its trimmed output.
func (s *session) git(args ...string) string {
	s.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = s.Project
	cmd.Env = s.baseEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(s.t, err, "git %v: %s", args, out)
	return string(bytes.TrimSpace(out))
}

// projectHooks registers the donegate hooks in the project's own
// .claude/settings.json, where a user keeps them.
func (s *session) projectHooks() {
	s.t.Helper()
	s.useDonegate()
	data, err := os.ReadFile(s.settingsFile())
	require.NoError(s.t, err)
	dir := filepath.Join(s.Project, ".claude")
	require.NoError(s.t, os.MkdirAll(dir, 0o755))
	require.NoError(s.t, os.WriteFile(filepath.Join(dir, "settings.json"), data, 0o644))
	s.Hooks = map[string][]hookEntry{}
}
