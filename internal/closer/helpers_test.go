package closer

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// run runs closer in-process and returns its exit code and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, &out, &errOut, testEnv(map[string]string{
		"HOME": t.TempDir(), "DONEGATE_STATE_DIR": t.TempDir(),
	}, false))
	return code, unixView(out.String(), args), unixView(errOut.String(), args)
}

// newRepo makes a git repository with one commit and returns it and the
// commit's id.
func newRepo(t *testing.T) (string, string) {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	t.Setenv("GIT_AUTHOR_NAME", "T")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "T")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	gitT(t, dir, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README"), []byte("x\n"), 0o644))
	gitT(t, dir, "add", "README")
	gitT(t, dir, "commit", "-q", "-m", "initial")
	return dir, gitT(t, dir, "rev-parse", "HEAD")
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	needGit(t)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// fakeClaude installs testdata/fakeclaude/claude for one test: calls are
// answered in order by the files of calls ("1.json" or "1.sh" ...). It
// returns the fake's path and its directory (with n.args of each call).
func fakeClaude(t *testing.T, calls map[string]string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, content := range calls {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	t.Setenv("FAKE_CLAUDE_DIR", dir)
	bin, err := filepath.Abs("testdata/fakeclaude/claude")
	require.NoError(t, err)
	return bin, dir
}

// recorded returns the real CLI's recorded result (testdata/claude/, see
// e2e.TestCloserFixturesAreTheRealCLIsOutput) with fields replaced: what
// a fake claude prints.
func recorded(t *testing.T, name string, set map[string]any) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "claude", name))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	for k, v := range set {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return string(out)
}

// probeText is a text result whose answer is a status probe.
func probeText(t *testing.T, status, message string) string {
	return recorded(t, "result-text.json", map[string]any{
		"result": "Status:\n```json\n{\"status\": \"" + status + "\", \"message\": \"" + message + "\", \"tasks_pending\": 1}\n```",
	})
}

// args returns the arguments of fake call n.
func callArgs(t *testing.T, dir, n string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, n+".args"))
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

// needGit skips a test that needs git where no git can be had: Windows
// under Wine, which runs only Windows programs and has no Windows git
// (docs/development.md, Tests of the Windows build). Everywhere else a
// missing git fails the test.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil && runtime.GOOS == "windows" {
		t.Skip("no git on PATH: this test runs where git does")
	}
}

// fakeExe is the file writeExecutable writes for path.
func fakeExe(path string) string {
	if runtime.GOOS == "windows" && filepath.Ext(path) != ".cmd" {
		return path + ".cmd"
	}
	return path
}

// bySystem is unix, or windows on Windows: what one case expects on each.
func bySystem(unix, windows string) string {
	if runtime.GOOS == "windows" {
		return windows
	}
	return unix
}

// binRoot is a new directory for fake programs: t.TempDir() but on
// Windows, where it is a directory named without the test's name (which
// may hold a comma, and cmd.exe splits a .cmd file's path at a comma).
func binRoot(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "closer-test")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// writeExecutable writes a program at path that prints out (when it is
// not empty) and exits 0, and returns the file it wrote: a sh script at
// path, or on Windows path.cmd (Windows runs a file by its extension, and
// finds stop-hook.cmd for stop-hook on PATH as it finds stop-hook.exe;
// a path that ends in .cmd is written as it is).
func writeExecutable(t *testing.T, path, out string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	script := "#!/bin/sh\n"
	if out != "" {
		script += "echo '" + out + "'\n"
	}
	path = fakeExe(path)
	if runtime.GOOS == "windows" {
		script = "@echo off\r\n"
		if out != "" {
			script += "echo " + strings.NewReplacer("^", "^^", "&", "^&", "|", "^|", "<", "^<", ">", "^>", "%", "%%").Replace(out) + "\r\n"
		}
	}
	require.NoError(t, os.WriteFile(path, []byte(script), 0o755))
	return path
}

// unixView is closer's text output as the tests' expectations spell it:
// on Windows with / for its paths' separators and without the .cmd of
// the fake programs (writeExecutable), so that one table of expected
// lines serves every system; elsewhere, and for --json output (whose
// backslashes are JSON's escapes), out as it is. A test that compares
// output with a path it made reads the path through filepath.ToSlash.
func unixView(out string, args []string) string {
	if runtime.GOOS != "windows" || slices.Contains(args, "--json") {
		return out
	}
	return strings.ReplaceAll(filepath.ToSlash(out), ".cmd", "")
}
