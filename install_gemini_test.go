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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeGeminiNpm stands in for npm install: it "installs" a gemini that
// answers --version with the version asked for (or, with NPM_FAIL set,
// leaves a half-made directory and fails), and logs each call.
const fakeGeminiNpm = `#!/bin/sh
echo "$*" >> "$NPM_LOG"
prefix= version=
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift ;;
    @google/gemini-cli@*) version=${1##*@} ;;
  esac
  shift
done
mkdir -p "$prefix/node_modules/.bin"
[ -n "$NPM_FAIL" ] && exit 1
printf '#!/bin/sh\necho "%s"\n' "$version" > "$prefix/node_modules/.bin/gemini"
chmod +x "$prefix/node_modules/.bin/gemini"
`

// installGemini runs a copy of scripts/install-gemini in a temporary
// repository with a fake npm (the real script, run in the repository,
// would install into its .tools, which other worktrees share): its last
// line, its output, its error.
func installGemini(t *testing.T, root, version string, env ...string) (string, string, error) {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("scripts", "install-gemini"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "scripts"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "scripts", "install-gemini"), script, 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "npm"), []byte(fakeGeminiNpm), 0o755))
	cmd := exec.Command(filepath.Join(root, "scripts", "install-gemini"))
	cmd.Env = append([]string{"PATH=" + filepath.Join(root, "bin") + ":/usr/bin:/bin", "NPM_LOG=" + filepath.Join(root, "npm.log"),
		"GEMINI_CLI_VERSION=" + version}, env...)
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], string(out), err
}

func geminiNpmCalls(root string) int {
	data, _ := os.ReadFile(filepath.Join(root, "npm.log"))
	return strings.Count(string(data), "\n")
}

// scripts/install-gemini installs each version in its own directory,
// prints the executable last, and asks npm only for what is missing.
func TestInstallGeminiKeepsEachVersion(t *testing.T) {
	root := t.TempDir()
	install := func(version string) string {
		t.Helper()
		last, out, err := installGemini(t, root, version)
		require.NoError(t, err, "%s", out)
		return last
	}
	pinned := install("0.61.0")
	assert.Equal(t, filepath.Join(root, ".tools", "gemini-cli", "0.61.0", "node_modules", ".bin", "gemini"), pinned)
	other := install("0.60.1")
	assert.Equal(t, 2, geminiNpmCalls(root))
	assert.FileExists(t, pinned, "installing another version keeps the pinned one")
	assert.Equal(t, pinned, install("0.61.0"))
	assert.Equal(t, other, install("0.60.1"))
	assert.Equal(t, 2, geminiNpmCalls(root), "both are installed: no network")
}

// A failed npm install fails the script (make test must fail, not skip),
// and the half-made directory it left is not taken for an install; a name that is not a version is
// refused before anything is installed or removed.
func TestInstallGeminiFails(t *testing.T) {
	root := t.TempDir()
	_, out, err := installGemini(t, root, "0.61.0", "NPM_FAIL=1")
	require.Error(t, err)
	assert.Contains(t, out, "npm install @google/gemini-cli@0.61.0 failed")
	last, out, err := installGemini(t, root, "0.61.0")
	require.NoError(t, err, "%s", out)
	assert.Equal(t, filepath.Join(root, ".tools", "gemini-cli", "0.61.0", "node_modules", ".bin", "gemini"), last)
	assert.Equal(t, 2, geminiNpmCalls(root), "the second run installs again")

	for _, v := range []string{"..", "../x", "0.61", "latest"} {
		root := t.TempDir()
		_, out, err := installGemini(t, root, v)
		require.Error(t, err, v)
		assert.Contains(t, out, "is not a version such as", v)
		assert.Equal(t, 0, geminiNpmCalls(root), v)
	}
}
