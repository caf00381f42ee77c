//go:build !windows

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

// wineFakes are the programs scripts/install-wine runs, standing in for
// Debian's: dpkg-query reads versions from $DPKG_DB/<package>; apt-get
// logs its arguments to $APT_LOG and "installs" pkg=version into the
// database, with the programs the package brings; id answers $FAKE_UID;
// wineboot makes the prefix's system32 unless FAKE_WINEBOOT_FAILS; go
// answers env GOVERSION and GOROOT from $FAKE_GOROOT.
var wineFakes = map[string]string{
	"dpkg-query": `#!/bin/sh
p=$3
[ -f "$DPKG_DB/$p" ] || exit 1
cat "$DPKG_DB/$p"
`,
	"apt-get": `#!/bin/sh
echo "$*" >> "$APT_LOG"
for a in "$@"; do
  case $a in
    *=*) p=${a%%=*}; printf '%s' "${a#*=}" > "$DPKG_DB/$p"
         case $p in
           wine) for prog in wine wineserver wineboot; do cp "$FAKES/$prog" "$BIN/$prog"; done ;;
           gcc-mingw-w64-x86-64) cp "$FAKES/x86_64-w64-mingw32-gcc" "$BIN/" ;;
         esac ;;
  esac
done
`,
	"id": "#!/bin/sh\necho \"$FAKE_UID\"\n",
	"go": "#!/bin/sh\ncase $2 in GOVERSION) echo go1.26.8 ;; GOROOT) echo \"$FAKE_GOROOT\" ;; esac\n",
}

// wineFakePrograms are what the packages bring, put on PATH by the fake
// apt-get (or at the start, for a package installed already).
var wineFakePrograms = map[string]string{
	"wine":       "#!/bin/sh\nexit 0\n",
	"wineserver": "#!/bin/sh\nexit 0\n",
	"wineboot": `#!/bin/sh
[ -n "$FAKE_WINEBOOT_FAILS" ] && { echo "wine: could not load kernel32.dll" >&2; exit 1; }
mkdir -p "$WINEPREFIX/drive_c/windows/system32"
`,
	"x86_64-w64-mingw32-gcc": `#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = -o ] && { echo dll > "$2"; shift; }; shift; done
`,
}

// wineRepo is an installerRepo for scripts/install-wine with the fakes,
// the packages of has installed (package=version), and the env to run it
// with: PATH the fakes' bin and the few tools the script uses.
func wineRepo(t *testing.T, has ...string) (root string, env []string) {
	t.Helper()
	root = installerRepo(t, "", "install-wine")
	for _, f := range []string{"wine/bcryptprimitives.c", "wine/bcryptprimitives.def"} {
		data, err := os.ReadFile(filepath.Join("scripts", f))
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Join(root, "scripts", "wine"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, "scripts", f), data, 0o644))
	}
	bin, fakes, db := filepath.Join(root, "bin"), filepath.Join(root, "fakes"), filepath.Join(root, "dpkg")
	require.NoError(t, os.MkdirAll(fakes, 0o755))
	require.NoError(t, os.MkdirAll(db, 0o755))
	for name, body := range wineFakes {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755))
	}
	for name, body := range wineFakePrograms {
		require.NoError(t, os.WriteFile(filepath.Join(fakes, name), []byte(body), 0o755))
	}
	for _, pv := range has {
		p, v, _ := strings.Cut(pv, "=")
		require.NoError(t, os.WriteFile(filepath.Join(db, p), []byte(v), 0o644))
		switch p {
		case "wine":
			for _, prog := range []string{"wine", "wineserver", "wineboot"} {
				require.NoError(t, os.WriteFile(filepath.Join(bin, prog), []byte(wineFakePrograms[prog]), 0o755))
			}
		case "gcc-mingw-w64-x86-64":
			require.NoError(t, os.WriteFile(filepath.Join(bin, "x86_64-w64-mingw32-gcc"), []byte(wineFakePrograms["x86_64-w64-mingw32-gcc"]), 0o755))
		}
	}
	goroot := filepath.Join(root, "goroot")
	at := filepath.Join(goroot, "src", "internal", "syscall", "windows")
	require.NoError(t, os.MkdirAll(at, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(at, "at_windows.go"), []byte("package windows\n\nvar TestDeleteatFallback bool\n"), 0o644))
	for _, tool := range []string{"bash", "sh", "dirname", "cat", "cp", "mkdir", "sha256sum", "cut", "sed", "grep", "ln", "chmod", "printf", "rm", "tail", "mktemp"} {
		p, err := exec.LookPath(tool)
		require.NoError(t, err, tool)
		require.NoError(t, os.Symlink(p, filepath.Join(bin, tool)))
	}
	env = []string{"PATH=" + bin, "DPKG_DB=" + db, "APT_LOG=" + filepath.Join(root, "apt.log"), "FAKES=" + fakes, "BIN=" + bin,
		"FAKE_UID=0", "FAKE_GOROOT=" + goroot, "DONEGATE_REQUIRE_DEBIAN="}
	return root, env
}

// pinnedWine is install-wine's Wine and mingw-w64 versions.
func pinnedWine(t *testing.T) (wine, mingw string) {
	data, err := os.ReadFile("scripts/install-wine")
	require.NoError(t, err)
	w := regexp.MustCompile(`(?m)^wine_version=(\S+)$`).FindSubmatch(data)
	m := regexp.MustCompile(`(?m)^mingw_version=(\S+)$`).FindSubmatch(data)
	require.NotNil(t, w)
	require.NotNil(t, m)
	return string(w[1]), string(m[1])
}

// A machine with wine64 and libwine but not wine (issue 45: wineserver
// missing, wineboot failing in silence): only wine is installed, apt-get
// waits for the package manager's lock, and a second run installs
// nothing.
func TestInstallWineFromAPartialState(t *testing.T) {
	wine, mingw := pinnedWine(t)
	root, env := wineRepo(t, "wine64="+wine, "libwine="+wine, "gcc-mingw-w64-x86-64="+mingw)
	last, out, err := runInstaller(root, "install-wine", env...)
	require.NoError(t, err, out)
	assert.Equal(t, filepath.Join(root, ".tools", "wine", "8.0", "exec"), last)
	log, err := os.ReadFile(filepath.Join(root, "apt.log"))
	require.NoError(t, err)
	assert.Equal(t, "-o DPkg::Lock::Timeout=300 update -qq\n-o DPkg::Lock::Timeout=300 install -y -qq wine="+wine+"\n", string(log))
	assert.DirExists(t, filepath.Join(root, ".tools", "wine", "8.0", "prefix", "drive_c", "windows", "system32"))

	last, out, err = runInstaller(root, "install-wine", env...)
	require.NoError(t, err, out)
	assert.Equal(t, filepath.Join(root, ".tools", "wine", "8.0", "exec"), last)
	log, _ = os.ReadFile(filepath.Join(root, "apt.log"))
	assert.Equal(t, 2, strings.Count(string(log), "\n"), "nothing more installed")
}

// Where Wine cannot be had, one line says why, exit 3, and --status says
// make test skips the tests under it; DONEGATE_REQUIRE_DEBIAN makes that a
// failure. A wineboot that makes no prefix fails, saying so.
func TestInstallWineSaysWhyNot(t *testing.T) {
	wine, mingw := pinnedWine(t)
	root, env := wineRepo(t, "wine64="+wine)
	env = append(env, "FAKE_UID=1000")
	_, out, err := runInstaller(root, "install-wine", env...)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitCode())
	assert.Equal(t, "install-wine: installing Debian's wine="+wine+" libwine="+wine+" gcc-mingw-w64-x86-64="+mingw+" needs root: sudo apt-get install wine="+wine+" libwine="+wine+" gcc-mingw-w64-x86-64="+mingw+"\n", out)

	status := exec.Command(filepath.Join(root, "scripts", "install-wine"), "--status")
	status.Env = append(os.Environ(), env...)
	got, err := status.CombinedOutput()
	require.NoError(t, err)
	assert.Equal(t, "make test: the Windows tests under Wine are skipped: installing Debian's wine="+wine+" libwine="+wine+" gcc-mingw-w64-x86-64="+mingw+" needs root: sudo apt-get install wine="+wine+" libwine="+wine+" gcc-mingw-w64-x86-64="+mingw+"\n", string(got))
	status = exec.Command(filepath.Join(root, "scripts", "install-wine"), "--status")
	status.Env = append(os.Environ(), append(env, "DONEGATE_REQUIRE_DEBIAN=1")...)
	got, err = status.CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(got), "required here (DONEGATE_REQUIRE_DEBIAN), and it cannot be had")

	// No apt-get at all (not Debian).
	require.NoError(t, os.Remove(filepath.Join(root, "bin", "apt-get")))
	require.NoError(t, os.Remove(filepath.Join(root, "bin", "dpkg-query")))
	_, out, err = runInstaller(root, "install-wine", env...)
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitCode())
	assert.Contains(t, out, "come from Debian 12's packages")
	assert.Contains(t, out, "this machine has no apt-get")

	// wineboot fails: exit 1, and what to try.
	root, env = wineRepo(t, "wine="+wine, "wine64="+wine, "libwine="+wine, "gcc-mingw-w64-x86-64="+mingw)
	_, out, err = runInstaller(root, "install-wine", append(env, "FAKE_WINEBOOT_FAILS=1")...)
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 1, exit.ExitCode())
	assert.Contains(t, out, "install-wine: wineboot --init did not make the prefix")
}

// scripts/install-debian-tools, as install-wine: only the packages
// missing are installed, apt-get waiting for the lock; where they cannot
// be had, one line says why, exit 3, and --status says what make test
// skips, a failure with DONEGATE_REQUIRE_DEBIAN.
func TestInstallDebianTools(t *testing.T) {
	script, err := os.ReadFile("scripts/install-debian-tools")
	require.NoError(t, err)
	version := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `_version=(\S+)$`).FindSubmatch(script)
		require.NotNil(t, m, name)
		return string(m[1])
	}
	bw, so, tm, bz, py := version("bubblewrap"), version("socat"), version("tmux"), version("bazel"), version("pytest")
	root, env := wineRepo(t, "bubblewrap="+bw)
	require.NoError(t, os.WriteFile(filepath.Join(root, "scripts", "install-debian-tools"), script, 0o755))
	// The fake apt-get brings the programs as the packages would.
	for _, p := range []string{"bwrap", "socat", "tmux", "bazel", "pytest"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, "fakes", p), []byte("#!/bin/sh\n"), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "bwrap"), []byte("#!/bin/sh\n"), 0o755))
	apt := strings.Replace(wineFakes["apt-get"], "           gcc-mingw-w64-x86-64)", "           socat) cp \"$FAKES/socat\" \"$BIN/\" ;;\n           tmux) cp \"$FAKES/tmux\" \"$BIN/\" ;;\n           bazel-bootstrap) cp \"$FAKES/bazel\" \"$BIN/\" ;;\n           python3-pytest) cp \"$FAKES/pytest\" \"$BIN/\" ;;\n           gcc-mingw-w64-x86-64)", 1)
	require.NoError(t, os.WriteFile(filepath.Join(root, "bin", "apt-get"), []byte(apt), 0o755))

	nonRoot := append(append([]string{}, env...), "FAKE_UID=1000")
	_, out, err := runInstaller(root, "install-debian-tools", nonRoot...)
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 3, exit.ExitCode())
	assert.Equal(t, "install-debian-tools: installing Debian's socat="+so+" tmux="+tm+" bazel-bootstrap="+bz+" python3-pytest="+py+" needs root: sudo apt-get install socat="+so+" tmux="+tm+" bazel-bootstrap="+bz+" python3-pytest="+py+"\n", out)
	status := exec.Command(filepath.Join(root, "scripts", "install-debian-tools"), "--status")
	status.Env = append(os.Environ(), nonRoot...)
	got, err := status.CombinedOutput()
	require.NoError(t, err)
	assert.Equal(t, "make test: the sandbox, terminal, Bazel and pytest tests are skipped: installing Debian's socat="+so+" tmux="+tm+" bazel-bootstrap="+bz+" python3-pytest="+py+" needs root: sudo apt-get install socat="+so+" tmux="+tm+" bazel-bootstrap="+bz+" python3-pytest="+py+"\n", string(got))
	status = exec.Command(filepath.Join(root, "scripts", "install-debian-tools"), "--status")
	status.Env = append(os.Environ(), append(nonRoot, "DONEGATE_REQUIRE_DEBIAN=1")...)
	_, err = status.CombinedOutput()
	require.Error(t, err)

	last, out, err := runInstaller(root, "install-debian-tools", env...)
	require.NoError(t, err, out)
	assert.Equal(t, filepath.Join(root, "bin", "tmux"), last)
	log, err := os.ReadFile(filepath.Join(root, "apt.log"))
	require.NoError(t, err)
	assert.Equal(t, "-o DPkg::Lock::Timeout=300 update -qq\n-o DPkg::Lock::Timeout=300 install -y -qq socat="+so+" tmux="+tm+" bazel-bootstrap="+bz+" python3-pytest="+py+"\n", string(log))
}
