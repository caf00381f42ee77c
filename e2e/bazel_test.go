//go:build e2e && !windows

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// In a Bazel workspace (bazel_workspace.txtar's: a WORKSPACE, sh_tests,
// the stand-ins of the repositories every Bazel test needs offline), a
// session of the real Claude Code whose agent breaks b's test is held by
// `bazel test //...` — detected, allowed by the person, run by the real
// Bazel (Debian's bazel-bootstrap) — naming the failed target, fixes it
// and is let go.
func TestBazelWorkspaceHoldsUntilFixed(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "bazel")
	s := newSession(t, fakeapi.New())
	root := t.TempDir()
	ar, err := txtar.ParseFile(filepath.Join(repoRoot(t), "testdata", "script", "bazel_workspace.txtar"))
	require.NoError(t, err)
	for _, f := range ar.Files {
		var path string
		switch {
		case f.Name == "repo/start.json", f.Name == "repo/stop.json", f.Name == "repo/narrowed.bazelrc":
			continue // the script's events and its agent's narrowing
		case strings.HasPrefix(f.Name, "repo/"):
			path = filepath.Join(s.Project, strings.TrimPrefix(f.Name, "repo/"))
		case strings.HasPrefix(f.Name, "stubs/"):
			path = filepath.Join(root, f.Name)
		default:
			continue
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(string(f.Data), "$WORK", root)), 0o755))
	}
	gitInit(t, s.Project)
	commitAll(t, s.Project)
	t.Cleanup(func() {
		// The Bazel server writes under HOME until it ends.
		cmd := exec.Command("bazel", "shutdown")
		cmd.Dir, cmd.Env = s.Project, []string{"HOME=" + s.Home, "PATH=" + os.Getenv("PATH")}
		_ = cmd.Run()
	})
	failing := "#!/bin/sh\necho \"b: want 3, got 4\"\nexit 1\n"
	api := fakeapi.New(
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "b", "b_test.sh"), "content": failing}),
		fakeapi.Say("Done."),
		fakeapi.Call("Bash", map[string]any{"command": "git checkout b/b_test.sh", "description": "fix b"}),
		fakeapi.Say("Fixed."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.useDonegate()
	s.Args = []string{"--allowedTools", "Bash", "--permission-mode", "acceptEdits"}
	start := time.Now()
	res := s.run("Change b")
	t.Logf("the session took %v", time.Since(start).Round(time.Millisecond))
	assertEnded(t, api, res, "Fixed.", 4)
	held := mainTurn(t, api, 2)
	assert.Contains(t, held, "The test command `bazel test //...` failed")
	assert.Contains(t, held, "//b:b_test")
}
