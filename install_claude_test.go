//go:build !windows

// The end-to-end tests of the Linux binaries (sh, FIFOs, process groups);
// the Windows binaries have their own, under Wine (e2e/windows_test.go).

package donegate_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeNpm stands in for npm install: it "installs" a claude that answers
// --version with the version asked for, under --prefix, and logs each call.
const fakeNpm = fakeNpmHead + `bin=$prefix/node_modules/@anthropic-ai/claude-code/bin
mkdir -p "$bin"
printf '#!/bin/sh\necho "%s (Claude Code)"\n' "$version" > "$bin/claude.exe"
chmod +x "$bin/claude.exe"
`

// claudeInstaller is a copy of scripts/install-claude in a temporary
// repository, with a fake npm and a 2.1.330 in the old layout: the real
// script, run in the repository, would install into its .tools, which
// other worktrees share.
type claudeInstaller struct {
	root, legacy string
}

func newClaudeInstaller(t *testing.T) *claudeInstaller {
	t.Helper()
	root := installerRepo(t, fakeNpm, "install-claude")
	ci := &claudeInstaller{root: root,
		legacy: filepath.Join(root, ".tools", "claude-code", "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe")}
	require.NoError(t, os.MkdirAll(filepath.Dir(ci.legacy), 0o755))
	require.NoError(t, os.WriteFile(ci.legacy, []byte("#!/bin/sh\necho '2.1.330 (Claude Code)'\n"), 0o755))
	return ci
}

// install runs the script for version: its last line, its output, its error.
func (ci *claudeInstaller) install(version string) (string, string, error) {
	return runInstaller(ci.root, "install-claude", withSystemPath(ci.root), "CLAUDE_CODE_VERSION="+version)
}

func (ci *claudeInstaller) npmCalls() int { return npmCalls(ci.root) }

// scripts/install-claude installs each version beside the others: with
// another CLAUDE_CODE_VERSION it once removed the pinned copy, and the next
// make test needed the network again. A copy in the old layout (directly
// in .tools/claude-code) is used, and kept.
func TestInstallClaudeKeepsEachVersion(t *testing.T) {
	ci := newClaudeInstaller(t)
	root, legacy := ci.root, ci.legacy
	install := func(version string) string {
		t.Helper()
		last, out, err := ci.install(version)
		require.NoError(t, err, "%s", out)
		return last
	}
	npmCalls := ci.npmCalls

	assert.Equal(t, legacy, install("2.1.330"), "the old layout's copy")
	assert.Equal(t, 0, npmCalls())

	newer := install("2.1.331")
	assert.Equal(t, filepath.Join(root, ".tools", "claude-code", "2.1.331", "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe"), newer)
	assert.Equal(t, 1, npmCalls())
	assert.FileExists(t, legacy, "installing another version keeps the old one")

	assert.Equal(t, legacy, install("2.1.330"))
	assert.Equal(t, newer, install("2.1.331"))
	assert.Equal(t, 1, npmCalls(), "both are installed: no network")
}

// A version names a directory that a failed install removes: only a
// version is taken, and nothing is installed or removed for another name.
func TestInstallClaudeRefusesANameThatIsNotAVersion(t *testing.T) {
	for _, v := range []string{"..", "../x", "2.1", "latest"} {
		ci := newClaudeInstaller(t)
		_, out, err := ci.install(v)
		require.Error(t, err, v)
		assert.Contains(t, out, "is not a version such as", v)
		assert.Equal(t, 0, ci.npmCalls(), v)
		assert.FileExists(t, ci.legacy, v)
	}
}
