//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// TestCodexPersonReleasesMidTurnInTheTerminal: in the real Codex CLI's
// TUI (tmux), the person types "donegate release" while the agent's slow
// command runs. Codex holds the message until the tool call ends ("to be
// submitted after next tool call"), then fires UserPromptSubmit with it
// and the running turn's turn_id, before the turn's Stop: stop-hook
// --criteria releases the turn, and its stop, whose work is open (the
// agent wrote a file, and never.txt is missing), is let go unchecked.
func TestCodexPersonReleasesMidTurnInTheTerminal(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "tmux")
	s := newCodexSession(t,
		fakeapi.Call("exec_command", map[string]any{"cmd": "sleep 8; echo slow job done > job.txt"}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done again."),
	)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}]}`)
	allowProject(t, s.Home, s.stateDir(), s.Project)
	rec := recorder(t, s.Events)
	writeJSON(t, filepath.Join(s.Project, ".codex", "hooks.json"), map[string]any{"hooks": claudeShapedHooks(map[string]string{
		"UserPromptSubmit": rec + " " + filepath.Join(hookBinaries(t), "stop-hook") + " --criteria",
		"Stop":             rec + " " + filepath.Join(hookBinaries(t), "stop-hook"),
	})})
	// The TUI asks nothing of a project the config trusts.
	cfg := filepath.Join(s.codexHome(), "config.toml")
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("\n[projects." + strconv.Quote(s.Project) + "]\ntrust_level = \"trusted\"\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())

	term := newTerminal(t, "donegate-codex-"+filepath.Base(s.Home), s.Project,
		[]string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.Home, "CODEX_HOME=" + s.codexHome(), "FAKE_API_KEY=fake-key-for-tests",
			"DONEGATE_STATE_DIR=" + s.stateDir(), "TMPDIR=" + t.TempDir(), "TERM=xterm-256color", "LANG=C.UTF-8"},
		clientPath(t, "DONEGATE_CODEX", "install-codex"), "--dangerously-bypass-hook-trust")
	screen, waitFor, typeLine := term.screen, term.waitFor, term.typeLine
	waitFor("the prompt", func() bool { return strings.Contains(screen(), "Ask Codex to do anything") })
	typeLine("Run the slow job")
	waitFor("the slow command", func() bool { return len(s.API.Of("main")) >= 1 && strings.Contains(screen(), "esc to interrupt") })
	time.Sleep(time.Second)
	typeLine("donegate release")
	waitFor("the turn's end", func() bool {
		return len(ofEvent(clientEvents(t, s.Events), "Stop")) >= 1 && strings.Contains(screen(), "Worked for")
	})

	prompts := ofEvent(clientEvents(t, s.Events), "UserPromptSubmit")
	require.Len(t, prompts, 2, "the screen:\n%s", screen())
	assert.Equal(t, "donegate release", prompts[1].Fields["prompt"])
	assert.Equal(t, prompts[0].Fields["turn_id"], prompts[1].Fields["turn_id"], "the running turn's")
	c := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, "DONEGATE_STATE_DIR=" + s.stateDir()}, closerBinary(t), "explain", "--last", "--json")
	var rep struct{ Why string }
	require.NoError(t, json.Unmarshal([]byte(c.Stdout), &rep), c.Stdout+c.Stderr)
	assert.Equal(t, "released by the person (the person's message): not checked", rep.Why, "the screen:\n%s", screen())
	assert.Len(t, s.API.Of("main"), 2, "never held: the tool call's result, then Done.")
	assert.NotContains(t, screen(), "Blocked by hook")
}
