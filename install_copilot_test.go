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

// fakeCopilotNpm stands in for npm install: it "installs" the platform
// package's copilot, which answers --version as the real one does (only
// when told not to reach the network or update itself), with its
// version line first and more after it, and logs each call. The lines
// after it once failed the script now and then: grep -q left at the
// first, the client was killed writing the next (SIGPIPE), and pipefail
// made that a binary that does not answer; a long tail makes it always.
const fakeCopilotNpm = `#!/bin/sh
echo "$*" >> "$NPM_LOG"
prefix= version=
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) prefix=$2; shift ;;
    @github/copilot@*) version=${1##*@} ;;
  esac
  shift
done
bin=$prefix/node_modules/@github/copilot-linux-x64
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

// installCopilot runs a copy of scripts/install-copilot in root (its
// .tools, not the shared one) with the fake npm: its last line, its
// output, its error.
func installCopilot(t *testing.T, root, version string) (string, string, error) {
	t.Helper()
	script := filepath.Join(root, "scripts", "install-copilot")
	if _, err := os.Stat(script); err != nil {
		data, err := os.ReadFile(filepath.Join("scripts", "install-copilot"))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(root, "scripts"), 0o755))
		require.NoError(t, os.WriteFile(script, data, 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(root, "bin"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "npm"), []byte(fakeCopilotNpm), 0o755))
	}
	cmd := exec.Command(script)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Join(root, "bin")+":/usr/bin:/bin", "NPM_LOG="+filepath.Join(root, "npm.log"), "COPILOT_VERSION="+version)
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1], string(out), err
}

// scripts/install-copilot installs each version in its own directory,
// prints the native binary, installs nothing that is there already, and
// tells 1.0.10 from 1.0.102.
func TestInstallCopilotKeepsEachVersion(t *testing.T) {
	root := t.TempDir()
	calls := func() int {
		data, _ := os.ReadFile(filepath.Join(root, "npm.log"))
		return strings.Count(string(data), "\n")
	}
	install := func(version string) string {
		t.Helper()
		last, out, err := installCopilot(t, root, version)
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
		root := t.TempDir()
		_, out, err := installCopilot(t, root, v)
		require.Error(t, err, v)
		assert.Contains(t, out, "is not a version such as", v)
		_, err = os.Stat(filepath.Join(root, "npm.log"))
		assert.ErrorIs(t, err, os.ErrNotExist, v)
	}
}
