//go:build !windows

// The end-to-end tests of the Linux binaries (sh, FIFOs, process groups);
// the Windows binaries have their own, under Wine (e2e/windows_test.go).

package donegate_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeClientNpm stands in for npm install of the other hosts' clients: it
// writes a package.json with the version asked for and, for the two CLIs,
// an entry that answers --version as the real one does (codex: "codex-cli
// VERSION"; qwen: "VERSION").
const fakeClientNpm = fakeNpmHead + `dir=$prefix/node_modules/$package
mkdir -p "$dir/bin"
printf '{\n  "name": "%s",\n  "version": "%s"\n}\n' "$package" "$version" > "$dir/package.json"
case $package in
  @openai/codex) printf '#!/bin/sh\necho "codex-cli %s"\n' "$version" > "$dir/bin/codex.js"; chmod +x "$dir/bin/codex.js" ;;
  opencode-ai) printf '#!/bin/sh\necho "%s"\n' "$version" > "$dir/bin/opencode.exe"; chmod +x "$dir/bin/opencode.exe" ;;
  @qwen-code/qwen-code) printf '#!/bin/sh\necho "%s"\n' "$version" > "$dir/cli-entry.js"; chmod +x "$dir/cli-entry.js" ;;
  pnpm) printf '#!/bin/sh\necho "%s"\n' "$version" > "$dir/pnpm"; chmod +x "$dir/pnpm" ;;
  @yarnpkg/cli-dist) printf '#!/bin/sh\necho "%s"\n' "$version" > "$dir/bin/yarn.js"; chmod +x "$dir/bin/yarn.js" ;;
  yarn) printf '#!/bin/sh\necho "%s"\n' "$version" > "$dir/bin/yarn.js"; chmod +x "$dir/bin/yarn.js" ;;
  turbo) printf '#!/bin/sh\necho "%s"\n' "$version" > "$dir/bin/turbo"; chmod +x "$dir/bin/turbo" ;;
  nx) mkdir -p "$dir/dist/bin"; echo 'console.log()' > "$dir/dist/bin/nx.js" ;;
  *) echo 'export {}' > "$dir/sdk.mjs" ;;
esac
`

// clientInstallers is an installerRepo with the clients' install
// scripts, and the fake npm when withNpm.
func clientInstallers(t *testing.T, withNpm bool) (root string) {
	t.Helper()
	npm := ""
	if withNpm {
		npm = fakeClientNpm
	}
	root = installerRepo(t, npm, "install-npm-client", "install-codex", "install-qwen", "install-agent-sdk", "install-pnpm", "install-yarn", "install-opencode", "install-turbo", "install-nx", "install-yarn-classic")
	// PATH is bin alone: the machine's own npm must never run here. The
	// tools the scripts use are linked in.
	for _, tool := range []string{"bash", "sh", "dirname", "grep", "rm", "mkdir", "printf", "chmod", "cat"} {
		p, err := exec.LookPath(tool)
		require.NoError(t, err, tool)
		require.NoError(t, os.Symlink(p, filepath.Join(root, "bin", tool)))
	}
	return root
}

// Each client is installed once per version, beside the others, and the
// path printed last is what the e2e tests run or import.
func TestInstallClientsKeepEachVersion(t *testing.T) {
	tests := []struct {
		script, versionVar, entry string
		calls                     int // npm installs per version (OpenCode: the CLI and its plugin package)
	}{
		{"install-codex", "CODEX_VERSION", "codex/%s/node_modules/@openai/codex/bin/codex.js", 1},
		{"install-qwen", "QWEN_CODE_VERSION", "qwen/%s/node_modules/@qwen-code/qwen-code/cli-entry.js", 1},
		{"install-agent-sdk", "AGENT_SDK_VERSION", "agent-sdk/%s/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs", 1},
		{"install-pnpm", "PNPM_VERSION", "pnpm/%s/node_modules/pnpm/pnpm", 1},
		{"install-yarn", "YARN_VERSION", "yarn/%s/node_modules/@yarnpkg/cli-dist/bin/yarn.js", 1},
		{"install-turbo", "TURBO_VERSION", "turbo/%s/node_modules/turbo/bin/turbo", 1},
		{"install-nx", "NX_VERSION", "nx/%s/node_modules/nx/dist/bin/nx.js", 1},
		{"install-yarn-classic", "YARN_CLASSIC_VERSION", "yarn-classic/%s/node_modules/yarn/bin/yarn.js", 1},
		{"install-opencode", "OPENCODE_VERSION", "opencode/%s/node_modules/opencode-ai/bin/opencode.exe", 2},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			pinned := pinnedVersion(t, tt.script, tt.versionVar)
			other := pinned + "-rc.1" // another version, beside it
			root := clientInstallers(t, true)
			install := func(env ...string) string {
				t.Helper()
				last, out, err := runInstaller(root, tt.script, env...)
				require.NoError(t, err, "%s", out)
				return last
			}
			path := func(v string) string {
				return filepath.Join(root, ".tools", strings.Replace(tt.entry, "%s", v, 1))
			}
			assert.Equal(t, path(pinned), install(), "the pinned version")
			assert.Equal(t, tt.calls, npmCalls(root))
			assert.Equal(t, path(other), install(tt.versionVar+"="+other))
			assert.Equal(t, 2*tt.calls, npmCalls(root))
			assert.FileExists(t, path(pinned), "installing another version keeps the pinned one")
			assert.Equal(t, path(pinned), install())
			assert.Equal(t, 2*tt.calls, npmCalls(root), "both are installed: no network")
		})
	}
}

// installQwenOver puts a Qwen Code entry of the pinned version's
// directory that runs script, then runs install-qwen, which must succeed
// and print that entry: the repository, the entry.
func installQwenOver(t *testing.T, script string) (root, entry string) {
	t.Helper()
	root = clientInstallers(t, true)
	entry = filepath.Join(root, ".tools", "qwen", pinnedVersion(t, "install-qwen", "QWEN_CODE_VERSION"), "node_modules", "@qwen-code", "qwen-code", "cli-entry.js")
	require.NoError(t, os.MkdirAll(filepath.Dir(entry), 0o755))
	require.NoError(t, os.WriteFile(entry, []byte(script), 0o755))
	last, out, err := runInstaller(root, "install-qwen")
	require.NoError(t, err, out)
	assert.Equal(t, entry, last)
	return root, entry
}

// A copy that is not the version asked for (a package.json or --version
// that says another) is installed again, not used.
func TestInstallClientsReinstallAnotherVersionInTheirDirectory(t *testing.T) {
	pinned := pinnedVersion(t, "install-qwen", "QWEN_CODE_VERSION")
	root, entry := installQwenOver(t, "#!/bin/sh\necho "+pinned+"-rc.1\n")
	assert.Equal(t, 1, npmCalls(root))
	v, err := exec.Command(entry, "--version").Output()
	require.NoError(t, err)
	assert.Equal(t, pinned+"\n", string(v))
}

// Without npm, or with a name that is not a version, each script says so
// on stderr and fails; nothing is removed.
func TestInstallClientsFailClearly(t *testing.T) {
	root := clientInstallers(t, false)
	_, out, err := runInstaller(root, "install-codex")
	require.Error(t, err)
	assert.Contains(t, out, "install-codex: npm is needed to install @openai/codex@"+pinnedVersion(t, "install-codex", "CODEX_VERSION"))

	root = clientInstallers(t, true)
	for _, v := range []string{"..", "../x", "0.24", "latest"} {
		_, out, err := runInstaller(root, "install-qwen", "QWEN_CODE_VERSION="+v)
		require.Error(t, err, v)
		assert.Contains(t, out, "is not a version such as", v)
	}
	assert.Equal(t, 0, npmCalls(root))
}

// A client that writes more after its version line is still found
// installed: with --version piped into grep -q, grep stopped reading at
// the match, the client died of SIGPIPE writing the rest, and pipefail
// called it missing (the same fault was found in install-copilot).
func TestInstallClientsReadTheWholeVersionOutput(t *testing.T) {
	// The version, then more than a pipe holds (64 KiB on Linux).
	root, _ := installQwenOver(t, "#!/bin/sh\necho "+pinnedVersion(t, "install-qwen", "QWEN_CODE_VERSION")+"\ni=0\nwhile [ $i -lt 4000 ]; do echo 'a notice the client prints after its version, line after line'; i=$((i+1)); done\n")
	assert.Equal(t, 0, npmCalls(root), "installed: no npm")
}

// pinnedVersion is the version scripts/script installs by default (its
// ${VAR:-VERSION}): a pin bump is that one edit, the tests follow it.
func pinnedVersion(t *testing.T, script, versionVar string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("scripts", script))
	require.NoError(t, err)
	m := regexp.MustCompile(`\$\{` + versionVar + `:-([0-9][^}]*)\}`).FindSubmatch(data)
	require.NotNil(t, m, "scripts/%s names no default %s", script, versionVar)
	return string(m[1])
}
