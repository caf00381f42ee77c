//go:build !windows

// The end-to-end tests of the Linux binaries (sh, FIFOs, process groups);
// the Windows binaries have their own, under Wine (e2e/windows_test.go).

package donegate_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeNpmHead begins each fake npm install: it logs the call to
// NPM_LOG and sets prefix (--prefix), package and version from the one
// package@version the install scripts ask for.
const fakeNpmHead = `#!/bin/sh
echo "$*" >> "$NPM_LOG"
prefix= spec=
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift ;;
    @*|[a-z]*@[0-9]*) spec=$1 ;;
  esac
  shift
done
version=${spec##*@}
package=${spec%@*}
`

// installerRepo makes a temporary repository with copies of the named
// scripts and a bin holding npm, a fake one (none when npm is ""): run
// in this repository, the scripts would install into its .tools, which
// other worktrees share. The fake logs each call to NPM_LOG.
func installerRepo(t *testing.T, npm string, scripts ...string) (root string) {
	t.Helper()
	root = t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "scripts"), 0o755))
	for _, name := range scripts {
		script, err := os.ReadFile(filepath.Join("scripts", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(root, "scripts", name), script, 0o755))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	if npm != "" {
		require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "npm"), []byte(npm), 0o755))
	}
	return root
}

// runInstaller runs scripts/NAME of an installerRepo with PATH its bin
// alone and NPM_LOG its npm.log, then env (a PATH there overrides):
// its last line, all its output, its error.
func runInstaller(root, name string, env ...string) (string, string, error) {
	cmd := exec.Command(filepath.Join(root, "scripts", name))
	cmd.Env = append(append(os.Environ(), "PATH="+filepath.Join(root, "bin"), "NPM_LOG="+filepath.Join(root, "npm.log")), env...)
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], string(out), err
}

// withSystemPath is the env for runInstaller that lets a script find
// the machine's tools in /usr/bin and /bin, after the fakes in root's bin.
func withSystemPath(root string) string {
	return "PATH=" + filepath.Join(root, "bin") + ":/usr/bin:/bin"
}

// npmCalls is how many times the fake npm of an installerRepo ran.
func npmCalls(root string) int {
	data, _ := os.ReadFile(filepath.Join(root, "npm.log"))
	return strings.Count(string(data), "\n")
}
