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

// fakeCopilotNpm stands in for npm install: it "installs" the platform
// package's copilot, which answers --version as the real one does (only
// when told not to reach the network or update itself), with its
// version line first and more after it, and logs each call. The lines
// after it once failed the script now and then: grep -q left at the
// first, the client was killed writing the next (SIGPIPE), and pipefail
// made that a binary that does not answer; a long tail makes it always.
const fakeCopilotNpm = fakeNpmHead + `bin=$prefix/node_modules/@github/copilot-linux-x64
mkdir -p "$bin"
cat > "$bin/copilot" <<END
#!/bin/sh
[ "\$COPILOT_OFFLINE" = true ] && [ "\$COPILOT_AUTO_UPDATE" = false ] || exit 3
echo "GitHub Copilot CLI $version."
i=0
while [ \$i -lt 2000 ]; do echo "Run 'copilot update' to check for updates."; i=\$((i+1)); done
END
chmod +x "$bin/copilot"
`

// copilotInstaller is an installerRepo with scripts/install-copilot
// and the fake npm.
func copilotInstaller(t *testing.T) (root string) {
	t.Helper()
	return installerRepo(t, fakeCopilotNpm, "install-copilot")
}

// installCopilot runs root's install-copilot for version: its last
// line, its output, its error.
func installCopilot(root, version string) (string, string, error) {
	return runInstaller(root, "install-copilot", withSystemPath(root), "COPILOT_VERSION="+version)
}

// scripts/install-copilot installs each version in its own directory,
// prints the native binary, installs nothing that is there already, and
// tells 1.0.10 from 1.0.102.
func TestInstallCopilotKeepsEachVersion(t *testing.T) {
	root := copilotInstaller(t)
	calls := func() int { return npmCalls(root) }
	install := func(version string) string {
		t.Helper()
		last, out, err := installCopilot(root, version)
		require.NoError(t, err, "%s", out)
		return last
	}
	pinned := install("1.0.102")
	assert.Equal(t, filepath.Join(root, ".tools", "copilot", "1.0.102", "node_modules", "@github", "copilot-linux-x64", "copilot"), pinned)
	assert.Equal(t, 1, calls())
	older := install("1.0.10")
	assert.Equal(t, filepath.Join(root, ".tools", "copilot", "1.0.10", "node_modules", "@github", "copilot-linux-x64", "copilot"), older)
	assert.Equal(t, 2, calls())
	assert.FileExists(t, pinned, "installing another version keeps the pinned one")
	assert.Equal(t, pinned, install("1.0.102"))
	assert.Equal(t, older, install("1.0.10"))
	assert.Equal(t, 2, calls(), "both are installed: no network")
}

func TestInstallCopilotRefusesANameThatIsNotAVersion(t *testing.T) {
	for _, v := range []string{"..", "../x", "1.0", "latest"} {
		root := copilotInstaller(t)
		_, out, err := installCopilot(root, v)
		require.Error(t, err, v)
		assert.Contains(t, out, "is not a version such as", v)
		_, err = os.Stat(filepath.Join(root, "npm.log"))
		assert.ErrorIs(t, err, os.ErrNotExist, v)
	}
}
