package closer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// TestInitRegistersNoHookThatRunsElsewhere: a hook that already runs from
// another settings file or an enabled plugin is not registered again, and
// init says where it runs. Issue 20: with the hooks in settings.local.json
// (or the plugin), init added a second registration and a stubborn agent
// was let go after 3 continuations instead of 5.
func TestInitRegistersNoHookThatRunsElsewhere(t *testing.T) {
	for _, tt := range []struct {
		name  string
		setup func(t *testing.T, home, dir string)
		// wantEvents are the events init registers in .claude/settings.json.
		wantEvents []string
		wantNote   string
	}{
		{
			name: "the four in settings.local.json: the criteria and the Bash entry are added",
			setup: func(t *testing.T, home, dir string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), []byte(exampleSettings), 0o644))
			},
			wantEvents: []string{"PostToolUse", "SessionStart", "UserPromptSubmit"},
			wantNote:   "Note: stop-hook at Stop, stop-hook at SubagentStop, posttooluse-hook at PreToolUse and posttooluse-hook at PostToolUse already run from local settings ",
		},
		{
			name: "the plugin enabled in the user's settings: nothing is added",
			setup: func(t *testing.T, home, dir string) {
				require.NoError(t, os.MkdirAll(filepath.Join(home, ".claude"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(`{"enabledPlugins": {"donegate@donegate": true}}`), 0o644))
			},
			wantNote: "already run from plugin donegate@donegate: not registered again in .claude/settings.json",
		},
		{
			name:       "nothing elsewhere: all six",
			setup:      func(t *testing.T, home, dir string) {},
			wantEvents: []string{"Stop", "SubagentStop", "PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			dir := projectWith(t, map[string]string{".claude/donegate.json": `{"checkers": [{"type": "plan"}]}`})
			tt.setup(t, home, dir)
			code, out, errOut := initRun(t, home, "", "--dir", dir)
			require.Equal(t, ExitComplete, code, errOut)
			if tt.wantNote != "" {
				assert.Contains(t, out, tt.wantNote)
			} else {
				assert.NotContains(t, out, "already run from")
			}
			data, err := os.ReadFile(filepath.Join(dir, ".claude", "settings.json"))
			if len(tt.wantEvents) == 0 {
				assert.ErrorIs(t, err, os.ErrNotExist, "no settings file written")
				return
			}
			require.NoError(t, err)
			var got []string
			gjson.GetBytes(data, "hooks").ForEach(func(k, _ gjson.Result) bool {
				got = append(got, k.Str)
				return true
			})
			assert.Equal(t, tt.wantEvents, got)

		})
	}
}

// TestInitBackupStaysOutOfGit: the backup of a committed settings file
// shows in no git status, so the user's own git-clean check still passes
// (issue 20: .claude/settings.json.bak was left untracked).
func TestInitBackupStaysOutOfGit(t *testing.T) {
	dir, _ := newRepo(t)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(`{"model": "opus"}`+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "donegate.json"), []byte(`{"checkers": [{"type": "plan"}]}`+"\n"), 0o644))
	gitT(t, dir, "add", ".")
	gitT(t, dir, "commit", "-q", "-m", "settings")

	code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir)
	require.Equal(t, ExitComplete, code, errOut)
	assert.Contains(t, out, "Updated .claude/settings.json (the old one is in .claude/donegate.bak/settings.json).")
	assert.Equal(t, `{"model": "opus"}`+"\n", string(mustRead(t, filepath.Join(dir, ".claude", "donegate.bak", "settings.json"))))
	assert.Equal(t, "M .claude/settings.json", gitT(t, dir, "status", "--porcelain", "--untracked-files=all"), "only the change itself")
	// The committed file names no path of this machine.
	settings := mustRead(t, filepath.Join(dir, ".claude", "settings.json"))
	assert.Equal(t, "stop-hook", gjson.GetBytes(settings, "hooks.Stop.0.hooks.0.command").Str)
}
