package closer

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// victimFile is a file outside the project that a hostile repository
// points a link at: init must leave it as it was.
func victimFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), ".bashrc")
	require.NoError(t, os.WriteFile(p, []byte("# the victim's shell rc\n"), 0o600))
	return p
}

// TestInitNeverWritesThroughALink: what a cloned repository holds at the
// paths init writes — links to files outside it, a link for .claude
// itself, dangling links, FIFOs, directories — is refused with exit 2,
// and nothing outside the project (nor inside it) is written. Issue 18:
// `git clone evil && closer init` overwrote ~/.bashrc through a
// committed link at .claude/settings.json.bak.
func TestInitNeverWritesThroughALink(t *testing.T) {
	for _, tt := range []struct {
		name  string
		force bool
		// setup makes the hostile files in the project dir, given the
		// victim's path.
		setup func(t *testing.T, dir, victim string)
		want  string
	}{
		{
			name: "a link at settings.json.bak",
			setup: func(t *testing.T, dir, victim string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(`{"model": "opus"}`), 0o644))
				require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude", "donegate.bak"), 0o755))
				linktest.Symlink(t, victim, backupPath(filepath.Join(dir, ".claude", "settings.json")))
			},
			want: "DIR/.claude/donegate.bak/settings.json: replace DIR/.claude/donegate.bak/settings.json: not a regular file (a symbolic link)",
		},
		{
			name:  "--force and a link at donegate.json.bak",
			force: true,
			setup: func(t *testing.T, dir, victim string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "donegate.json"), []byte(`{"checkers": [{"type": "plan"}], "x": "attacker's bytes"}`), 0o644))
				require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude", "donegate.bak"), 0o755))
				linktest.Symlink(t, victim, backupPath(filepath.Join(dir, ".claude", "donegate.json")))
			},
			want: "DIR/.claude/donegate.bak/donegate.json: replace DIR/.claude/donegate.bak/donegate.json: not a regular file (a symbolic link)",
		},
		{
			name: "settings.json a link to a file outside",
			setup: func(t *testing.T, dir, victim string) {
				require.NoError(t, os.WriteFile(victim, []byte("{}\n"), 0o600))
				linktest.Symlink(t, victim, filepath.Join(dir, ".claude", "settings.json"))
			},
			want: "outside DIR: init writes nothing outside the project",
		},
		{
			name:  "--force and donegate.json a link to a file outside",
			force: true,
			setup: func(t *testing.T, dir, victim string) {
				require.NoError(t, os.WriteFile(victim, []byte(`{"checkers": [{"type": "plan"}]}`), 0o600))
				linktest.Symlink(t, victim, filepath.Join(dir, ".claude", "donegate.json"))
			},
			want: "outside DIR: init writes nothing outside the project",
		},
		{
			name: ".claude a link to a directory outside",
			setup: func(t *testing.T, dir, victim string) {
				require.NoError(t, os.Remove(filepath.Join(dir, ".claude")))
				linktest.Symlink(t, filepath.Dir(victim), filepath.Join(dir, ".claude"))
			},
			want: "outside DIR",
		},
		{
			name: "a dangling link at settings.json",
			setup: func(t *testing.T, dir, victim string) {
				linktest.Symlink(t, victim+".new", filepath.Join(dir, ".claude", "settings.json"))
			},
			want: "which does not exist: init writes through a link only to an existing file",
		},
		{
			// The backup dir a link to a directory outside the project.
			name: "a link at donegate.bak",
			setup: func(t *testing.T, dir, victim string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(`{}`), 0o644))
				linktest.Symlink(t, filepath.Dir(victim), filepath.Join(dir, ".claude", "donegate.bak"))
			},
			want: "outside",
		},
		{
			name: "a FIFO at settings.json.bak",
			setup: func(t *testing.T, dir, victim string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(`{}`), 0o644))
				require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude", "donegate.bak"), 0o755))
				fifotest.Make(t, backupPath(filepath.Join(dir, ".claude", "settings.json")))
			},
			want: "not a regular file (a FIFO)",
		},
		{
			// Old init failed writing this .bak after it had created
			// donegate.json, and left it.
			name: "a directory at settings.json.bak",
			setup: func(t *testing.T, dir, victim string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(`{}`), 0o644))
				require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude", "donegate.bak"), 0o755))
				require.NoError(t, os.Mkdir(backupPath(filepath.Join(dir, ".claude", "settings.json")), 0o755))
			},
			want: "not a regular file (a directory)",
		},
		{
			name: "a directory at settings.json",
			setup: func(t *testing.T, dir, victim string) {
				require.NoError(t, os.Mkdir(filepath.Join(dir, ".claude", "settings.json"), 0o755))
			},
			want: ".claude/settings.json: not a regular file (a directory)",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectWith(t, map[string]string{"go.mod": "module x\n"})
			require.NoError(t, os.Mkdir(filepath.Join(dir, ".claude"), 0o755))
			victim := victimFile(t)
			tt.setup(t, dir, victim)
			outside := snapshot(t, filepath.Dir(victim))
			victimSt, err := os.Stat(victim)
			require.NoError(t, err)
			before := lsnapshot(t, dir)

			args := []string{"--dir", dir, "--portable"}
			if tt.force {
				args = append(args, "--force")
			}
			code, out, errOut := initRun(t, t.TempDir(), "", args...)
			assert.Equal(t, ExitUsage, code, out)
			assert.Contains(t, errOut, strings.ReplaceAll(tt.want, "DIR", dir))
			assert.Equal(t, outside, snapshot(t, filepath.Dir(victim)), "nothing outside the project is written")
			st, err := os.Stat(victim)
			require.NoError(t, err)
			assert.Equal(t, victimSt.Mode(), st.Mode())
			assert.Equal(t, before, lsnapshot(t, dir), "nothing in the project is written either")
		})
	}
}

// lsnapshot is every entry under dir, links as "-> target" and FIFOs
// by kind, the rest by content, never following a link or opening a
// FIFO.
func lsnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	require.NoError(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(p, dir)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(p)
			files[rel] = "-> " + target
			return err
		case info.IsDir():
			files[rel] = "dir"
		case !info.Mode().IsRegular():
			files[rel] = info.Mode().Type().String()
		default:
			data, err := os.ReadFile(p)
			files[rel] = info.Mode().Perm().String() + " " + string(data)
			return err
		}
		return nil
	}))
	return files
}

// TestInitWritesThroughALinkInsideTheProject: a project's settings file
// linked to another file of the project is written through the link,
// which stays a link (as the user's own settings linked from dotfiles).
func TestInitWritesThroughALinkInsideTheProject(t *testing.T) {
	dir := projectWith(t, map[string]string{"shared/settings.json": "{}\n"})
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".claude"), 0o755))
	linktest.Symlink(t, "../shared/settings.json", filepath.Join(dir, ".claude", "settings.json"))
	code, _, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable")
	require.Equal(t, ExitComplete, code, errOut)
	target, err := os.Readlink(filepath.Join(dir, ".claude", "settings.json"))
	require.NoError(t, err, "still a link")
	assert.Equal(t, "../shared/settings.json", target)
	assert.True(t, gjson.GetBytes(mustRead(t, filepath.Join(dir, "shared", "settings.json")), "hooks.Stop").Exists())
	assert.Equal(t, "{}\n", string(mustRead(t, backupPath(filepath.Join(dir, "shared", "settings.json")))))
}

// TestInitBackupIsNeverWiderThanTheFile: the .bak gets the mode of the
// file it copies, whatever an older .bak had. Issue 18: a 0600 settings
// file holding an API key, with an old 0644 .bak, left the key world
// readable.
func TestInitBackupIsNeverWiderThanTheFile(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		args       []string
	}{
		{"settings.json", "settings.json", nil},
		{"donegate.json with --force", "donegate.json", []string{"--force"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectWith(t, map[string]string{"go.mod": "module x\n"})
			path := filepath.Join(dir, ".claude", tt.file)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(`{"env": {"ANTHROPIC_API_KEY": "secret"}, "checkers": [{"type": "plan"}]}`), 0o600))
			require.NoError(t, os.MkdirAll(filepath.Dir(backupPath(path)), 0o755))
			require.NoError(t, os.WriteFile(backupPath(path), []byte("old\n"), 0o644))
			code, _, errOut := initRun(t, t.TempDir(), "", append([]string{"--dir", dir, "--portable"}, tt.args...)...)
			require.Equal(t, ExitComplete, code, errOut)
			assert.Contains(t, string(mustRead(t, backupPath(path))), "secret")
			if runtime.GOOS == "windows" {
				return // no Unix modes: a file's ACL is its directory's
			}
			st, err := os.Stat(backupPath(path))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
			st, err = os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the file keeps its mode")
		})
	}
}

// TestInitRefusesWhatItMustNotWrite: init refuses, with exit 2 and every
// file as it was, a settings file its owner made read-only (issue 18: it
// was replaced anyway, and its 0444 .bak then blocked the next run), and
// a settings file that donegate's hooks would grow past the 1 MiB init
// and doctor read (issue 18: written, then refused by the next run).
func TestInitRefusesWhatItMustNotWrite(t *testing.T) {
	big := `{"env": {"X": "` + strings.Repeat("a", maxSettingsBytes-200) + `"}}`
	for _, tt := range []struct {
		name     string
		settings string
		mode     os.FileMode
		want     string
	}{
		{"a read-only settings file", "{}\n", 0o444, ".claude/settings.json is read-only (mode 0444): init does not replace a file its owner made read-only"},
		{"a settings file the hooks grow past 1 MiB", big, 0o644, "with donegate's hooks it would be"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectWith(t, map[string]string{"go.mod": "module x\n", ".claude/settings.json": tt.settings})
			require.NoError(t, os.Chmod(filepath.Join(dir, ".claude", "settings.json"), tt.mode))
			before := lsnapshot(t, dir)
			code, _, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable")
			assert.Equal(t, ExitUsage, code)
			assert.Contains(t, errOut, tt.want)
			assert.Contains(t, errOut, "nothing was written")
			assert.Equal(t, before, lsnapshot(t, dir), "nothing written, not even the config")
		})
	}
}

// TestInitReplacesAReadOnlyBackup: an old .bak is init's own: a
// read-only one is replaced, not a reason to stop.
func TestInitReplacesAReadOnlyBackup(t *testing.T) {
	dir := projectWith(t, map[string]string{".claude/settings.json": "{}\n", ".claude/donegate.bak/settings.json": "old\n"})
	require.NoError(t, os.Chmod(backupPath(filepath.Join(dir, ".claude", "settings.json")), 0o444))
	code, _, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable")
	require.Equal(t, ExitComplete, code, errOut)
	assert.Equal(t, "{}\n", string(mustRead(t, backupPath(filepath.Join(dir, ".claude", "settings.json")))))
}

// TestInitUserWithoutHome: --user with neither HOME nor
// CLAUDE_CONFIG_DIR has no user settings to write: exit 2, nothing
// written. Issue 18: it wrote the project's .claude/settings.json (the
// relative ".claude" of cwd).
func TestInitUserWithoutHome(t *testing.T) {
	dir := projectWith(t, map[string]string{"go.mod": "module x\n"})
	t.Setenv("HOME", "")        // os.UserHomeDir, paths.Home's fallback, reads it
	t.Setenv("USERPROFILE", "") // and on Windows this
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.NoError(t, os.Chdir(dir))
	t.Cleanup(func() { require.NoError(t, os.Chdir(wd)) })

	code, _, errOut := initRun(t, "", "", "--dir", dir, "--portable", "--user")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, "--user: the user's settings dir is unknown (HOME is unset")
	assert.Equal(t, map[string]string{"/go.mod": "module x\n"}, snapshot(t, dir), "nothing written")
}
