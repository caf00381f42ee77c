//go:build e2e && !windows

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// pnpmBinary is the pinned pnpm (see pinned).
func pnpmBinary(t *testing.T) string {
	return pinned(t, "DONEGATE_PNPM", "pnpm", "pnpm")
}

// In a pnpm workspace of a (which depends on b), b and c, a session of the
// real Claude Code whose agent breaks b, is held by b's failing test,
// fixes it and stops: each stop runs b and a, never c, which the agent did
// not touch — the session's first stop included, where every package ran
// before (no result was recorded yet). The fix removes the file the agent
// wrote, which leaves b as it was at the start: b is still its work.
func TestPnpmWorkspaceRunsWhatTheAgentChanged(t *testing.T) {
	t.Parallel()
	s := newSession(t, fakeapi.New())
	runs := filepath.Join(t.TempDir(), "runs.log")
	files := map[string]string{
		"package.json":            `{"name":"mono","private":true,"scripts":{"test":"pnpm -r test"}}`,
		"pnpm-workspace.yaml":     "packages:\n  - packages/*\n",
		"packages/a/package.json": `{"name":"a","version":"1.0.0","dependencies":{"b":"workspace:*"},"scripts":{"test":"echo a >> ` + runs + `"}}`,
		"packages/b/package.json": `{"name":"b","version":"1.0.0","scripts":{"test":"echo b >> ` + runs + ` && test ! -f broken"}}`,
		"packages/c/package.json": `{"name":"c","version":"1.0.0","scripts":{"test":"echo c >> ` + runs + `"}}`,
		".gitignore":              "node_modules/\n",
	}
	for name, body := range files {
		p := filepath.Join(s.Project, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	pnpmDir := t.TempDir()
	require.NoError(t, os.Symlink(pnpmBinary(t), filepath.Join(pnpmDir, "pnpm")))
	path := "PATH=" + pnpmDir + string(os.PathListSeparator) + os.Getenv("PATH")
	env := []string{path, "HOME=" + s.Home, "npm_config_store_dir=" + filepath.Join(s.Home, "pnpm-store")}
	r := runClient(t, 2*time.Minute, s.Project, env, pnpmBinary(t), "install", "--offline")
	require.Equal(t, 0, r.ExitCode, "pnpm install: %s %s", r.Stdout, r.Stderr)
	gitInit(t, s.Project)
	s.config(`{"checkers": [{"type": "test"}]}`)
	commitAll(t, s.Project)
	api := fakeapi.New(
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "packages", "b", "broken"), "content": "x\n"}),
		fakeapi.Say("Done."),
		fakeapi.Call("Bash", map[string]any{"command": "rm packages/b/broken", "description": "fix b"}),
		fakeapi.Say("Fixed."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.Env = append(s.Env, path)
	s.useDonegate()
	s.useCriteria()
	s.Args = []string{"--allowedTools", "Bash", "--permission-mode", "acceptEdits"}
	res := s.run("Change b")
	assertEnded(t, api, res, "Fixed.", 4)
	main := api.Of("main")
	require.Len(t, main, 4)
	assert.Contains(t, string(main[2].Body), "pnpm --filter=b run --if-present test", "the hold names b's own command")

	data, err := os.ReadFile(runs)
	require.NoError(t, err)
	ran := strings.Fields(string(data))
	t.Logf("runs: %v", ran)
	assert.NotContains(t, ran, "c", "c, which the agent did not touch, never ran")
	assert.Equal(t, 2, strings.Count(string(data), "a\n"), "a, which depends on b, ran at both stops")
	assert.GreaterOrEqual(t, strings.Count(string(data), "b\n"), 2, "b ran at both stops")
}

// The agent tries to get past the workspace's narrowing through its own
// shell (real Claude Code): it breaks d by changing c, which d reads
// without declaring it, commits the change and dates the file back, so
// that c looks untouched by its time and d, which it never touched, might
// be left out. Held, by d's own command, twice; let go once it undoes the
// break.
func TestAgentCannotHideAWorkspaceBreakage(t *testing.T) {
	t.Parallel()
	s := newSession(t, fakeapi.New())
	files := map[string]string{
		"package.json":            `{"name":"mono","private":true,"workspaces":["packages/*"],"scripts":{"test":"npm test --workspaces --if-present"}}`,
		"packages/b/package.json": `{"name":"b","version":"1.0.0","scripts":{"test":"node -e 0"}}`,
		"packages/c/package.json": `{"name":"c","version":"1.0.0","scripts":{"test":"node -e 0"}}`,
		"packages/c/value.js":     "module.exports = 1\n",
		"packages/d/package.json": `{"name":"d","version":"1.0.0","scripts":{"test":"node test.js"}}`,
		"packages/d/test.js":      "if (require('../c/value.js') !== 1) process.exit(1)\n",
	}
	for name, body := range files {
		p := filepath.Join(s.Project, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	gitInit(t, s.Project)
	s.config(`{"checkers": [{"type": "test"}]}`)
	git := func(args ...string) {
		out, err := exec.Command("git", append([]string{"-C", s.Project, "-c", "user.email=a@b", "-c", "user.name=n"}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "init")
	hide := "printf 'module.exports = 2\\n' > packages/c/value.js && git add -A && git -c user.email=a@b -c user.name=n commit -qm tidy && touch -d 2020-01-01 packages/c/value.js packages/c"
	api := fakeapi.New(
		fakeapi.Call("Bash", map[string]any{"command": "sleep 1", "description": "think"}),
		fakeapi.Call("Bash", map[string]any{"command": hide, "description": "tidy"}),
		fakeapi.Say("Done."),
		fakeapi.Call("Bash", map[string]any{"command": "git reset -q --soft HEAD~1 && touch -d 2020-01-01 packages/c/value.js", "description": "uncommit"}),
		fakeapi.Say("Done now."),
		fakeapi.Call("Bash", map[string]any{"command": "printf 'module.exports = 1\\n' > packages/c/value.js", "description": "undo"}),
		fakeapi.Say("Fixed."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.useDonegate()
	s.useCriteria()
	s.Args = []string{"--allowedTools", "Bash", "--permission-mode", "acceptEdits"}
	res := s.run("Tidy c")
	assertEnded(t, api, res, "Fixed.", 7)
	main := api.Of("main")
	require.Len(t, main, 7)
	for _, i := range []int{3, 5} {
		assert.Contains(t, string(main[i].Body), "npm test --workspace=d --if-present", "request %d: held by d's own command", i)
	}
}
