//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/testsupport/fakeapi"
	"github.com/donegate/donegate/internal/testsupport/proctest"
)

// TestPersonReleasesMidTurnInTheTerminal: the person's route, in the real
// Claude Code's interactive terminal (tmux). While the agent runs a slow
// Bash call, the person types "donegate release" and Enter: Claude Code
// queues it for the model but hands it to stop-hook --criteria at once
// (UserPromptSubmit, with the running turn's prompt_id), and the turn's
// stop, which the failing check would hold, is let go.
func TestPersonReleasesMidTurnInTheTerminal(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "tmux")
	s := newSession(t, fakeapi.New())
	api := fakeapi.New(
		fakeapi.Call("Bash", map[string]any{"command": "sleep 6; echo slow job done", "description": "slow job"}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}]}`)
	s.useDonegate()
	s.Hooks["UserPromptSubmit"] = append(s.Hooks["UserPromptSubmit"], hookEntry{Command: filepath.Join(hookBinaries(t), "stop-hook") + " --criteria"})
	s.consent()

	term := startTerminal(t, s, api)
	term.typeLine("Run the slow job")
	term.waitFor("the slow Bash call", func() bool { return len(api.Of("main")) >= 1 && strings.Contains(term.screen(), "slow job") })
	time.Sleep(time.Second)
	term.typeLine("donegate release")
	term.waitFor("the turn's end", func() bool { return len(api.Of("main")) >= 2 && !strings.Contains(term.screen(), "esc to interrupt") })
	time.Sleep(2 * time.Second)

	c := s.closer(time.Minute, "explain", "--last", "--json")
	var rep struct{ Why string }
	require.NoError(t, json.Unmarshal([]byte(c.Stdout), &rep), c.Stdout+c.Stderr)
	assert.Equal(t, "released by the person (the person's message): not checked", rep.Why, "the screen:\n%s", term.screen())
	assert.NotContains(t, mainTurn(t, api, len(api.Of("main"))-1), heldWith, "never held")
}

// terminal is the real Claude Code's interactive CLI in tmux, run for the
// session s against its stand-in, with extra variables in its environment.
type terminal struct {
	t      *testing.T
	name   string
	socket string
}

func startTerminal(t *testing.T, s *session, api *fakeapi.Server, extra ...string) *terminal {
	t.Helper()
	// The interactive CLI's first-run questions answered as a person
	// who set it up before would have: onboarding done, the key approved,
	// the folder trusted.
	key := "sk-ant-fake-key-for-tests"
	state := map[string]any{
		"hasCompletedOnboarding": true,
		"customApiKeyResponses":  map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}},
		"projects":               map[string]any{s.Project: map[string]any{"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true}},
	}
	data, err := json.Marshal(state)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.Home, ".claude.json"), data, 0o600))

	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + s.Home, "TMPDIR=" + t.TempDir(), "LANG=C.UTF-8", "TERM=xterm-256color",
		"ANTHROPIC_BASE_URL=" + api.URL(), "ANTHROPIC_API_KEY=" + key,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		"DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state"),
	}
	env = append(env, extra...)
	term := newTerminal(t, "donegate-"+filepath.Base(s.Home), s.Project, env,
		claudeBinary(t), "--settings", s.settingsFile(), "--allowedTools", "Bash", "--permission-mode", "default")
	term.waitFor("the prompt", func() bool { return strings.Contains(term.screen(), "❯") })
	return term
}

// newTerminal runs program with args in tmux, in dir, with env alone as
// its environment, and kills it and what it started at the test's end.
func newTerminal(t *testing.T, name, dir string, env []string, program string, args ...string) *terminal {
	t.Helper()
	term := &terminal{t: t, name: name, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	command := "env -i"
	for _, kv := range env {
		command += " " + cli.ShellQuote(kv)
	}
	for _, a := range append([]string{program}, args...) {
		command += " " + cli.ShellQuote(a)
	}
	term.tmux("new-session", "-d", "-s", name, "-x", "160", "-y", "50", "-c", dir, command)
	pid, err := strconv.Atoi(strings.TrimSpace(term.tmux("display-message", "-p", "-t", name, "#{pane_pid}")))
	require.NoError(t, err)
	t.Cleanup(func() {
		// The CLI (env execs it: the pane's process, leading its own
		// group) and what it started are killed and waited for before the
		// temporary dirs they write in are removed.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = exec.Command("tmux", "-S", term.socket, "kill-server").Run()
		assert.Eventually(t, func() bool { return proctest.Gone(pid) }, 10*time.Second, 50*time.Millisecond, "the CLI must end")
	})
	return term
}

func (term *terminal) tmux(args ...string) string {
	term.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", term.socket}, args...)...).CombinedOutput()
	require.NoError(term.t, err, "tmux %v: %s", args, out)
	return string(out)
}

// screen is what the terminal shows.
func (term *terminal) screen() string { return term.tmux("capture-pane", "-p", "-t", term.name) }

// typeLine types text as the person does, and Enter a moment later
// (Codex's TUI takes an Enter that comes with the text as part of a
// paste).
func (term *terminal) typeLine(text string) {
	term.tmux("send-keys", "-t", term.name, "-l", text)
	time.Sleep(300 * time.Millisecond)
	term.tmux("send-keys", "-t", term.name, "Enter")
}

// waitFor waits up to 60 s for ok.
func (term *terminal) waitFor(what string, ok func() bool) {
	term.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			term.t.Fatalf("waited 60 s for %s; the screen:\n%s", what, term.screen())
		}
		time.Sleep(200 * time.Millisecond)
	}
}
