package checkers_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
)

// needGit skips t without git.
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

// needSh skips t where the hooks run commands through cmd.exe, not sh:
// on Windows. Its commands are sh scripts; the *Windows tests run their
// Windows twins (command_windows_test.go, external_windows_test.go).
func needSh(t testing.TB) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("sh commands: on Windows the hooks run commands through cmd.exe (the *Windows tests)")
	}
}

// gitIn runs git in dir with an identity, whatever the user's config says,
// and returns its trimmed output.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=n", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

// writeFile writes content at dir/name, making its directory.
func writeFile(t testing.TB, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// gitRepo makes a repository with one commit of files and returns its dir.
func gitRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	// A ceiling, so no repository above the temp dir is ever found.
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	gitIn(t, dir, "init", "-q")
	for name, content := range files {
		writeFile(t, dir, name, content)
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
	return dir
}

// typedChecker builds a registered type's checker from its options, as the
// config decoder will.
func typedChecker(t testing.TB, typ string, opts any) checkers.Checker {
	t.Helper()
	ty, ok := checkers.LookupType(typ)
	require.True(t, ok, "type %q registered", typ)
	ch, err := ty.New(config.Checker{Type: typ, Options: opts})
	require.NoError(t, err)
	return ch
}

// gitLog puts a git first on PATH that logs each call's arguments to the
// returned file and then runs the real git.
func gitLog(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("git")
	require.NoError(t, err)
	bin := t.TempDir()
	log := filepath.Join(bin, "calls")
	script := fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\nexec %q \"$@\"\n", log, real)
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// gitCalls returns the calls logged since the last look.
func gitCalls(t *testing.T, log string) []string {
	t.Helper()
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	require.NoError(t, os.Remove(log))
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}
