//go:build e2e && !windows

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// A session that ran without the gate is seen: with the real Claude Code,
// a session with donegate's hooks and one without them in the same
// project; with the real Codex, `codex exec` with the project's hooks
// trusted and without (Codex exec skips hooks it does not trust, and says
// nothing). closer log --ungated lists the ungated sessions from the
// hosts' own records, and exits 1; the gated ones are not listed.
func TestUngatedSessionsAreListed(t *testing.T) {
	t.Parallel()
	ungated := func(t *testing.T, home, stateDir string, env ...string) (clientRun, []string) {
		t.Helper()
		r := runClient(t, time.Minute, t.TempDir(), append([]string{"HOME=" + home, "DONEGATE_STATE_DIR=" + stateDir}, env...),
			closerBinary(t), "log", "--ungated", "--json")
		var sessions []string
		for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			if line != "" {
				sessions = append(sessions, line)
			}
		}
		return r, sessions
	}

	t.Run("Claude Code", func(t *testing.T) {
		s := newSession(t, fakeapi.New(fakeapi.Say("Done.")))
		gitInit(t, s.Project)
		s.config(`{"checkers": [{"type": "plan"}]}`)
		s.useDonegate()
		gated := s.run("Say done")
		require.Equal(t, 0, gated.ExitCode, gated.Stderr)
		api := fakeapi.New(fakeapi.Say("Done."))
		t.Cleanup(api.Close)
		s.API, s.Hooks = api, map[string][]hookEntry{} // no hooks: the gate does not run
		bare := s.run("Say done")
		require.Equal(t, 0, bare.ExitCode, bare.Stderr)
		require.NotEqual(t, gated.SessionID, bare.SessionID)

		r, lines := ungated(t, s.Home, filepath.Join(s.Home, "donegate-state"))
		assert.Equal(t, 1, r.ExitCode, "ungated sessions fail the run: %s %s", r.Stdout, r.Stderr)
		require.Len(t, lines, 1, r.Stdout)
		assert.Contains(t, lines[0], `"session":"`+bare.SessionID+`"`)
		assert.Contains(t, lines[0], `"host":"claude"`)
	})

	t.Run("Codex", func(t *testing.T) {
		s := newCodexSession(t, fakeapi.Say("Done."), fakeapi.Say("Done."))
		s.config(`{"checkers": [{"type": "plan"}]}`)
		trusted := s.run("Say done")
		require.Equal(t, 0, trusted.ExitCode, trusted.Stderr)
		// Without --dangerously-bypass-hook-trust, as a CI job might run it.
		codex := clientPath(t, "DONEGATE_CODEX", "install-codex")
		env := []string{"HOME=" + s.Home, "CODEX_HOME=" + s.codexHome(), "FAKE_API_KEY=fake-key-for-tests", "DONEGATE_STATE_DIR=" + s.stateDir()}
		untrusted := runClient(t, 2*time.Minute, s.Project, env, codex, "exec", "--json", "--trust", "Say done")
		require.Equal(t, 0, untrusted.ExitCode, untrusted.Stderr)

		rollouts, _ := filepath.Glob(filepath.Join(s.codexHome(), "sessions", "*", "*", "*", "rollout-*.jsonl"))
		require.Len(t, rollouts, 2, "a rollout per session")
		r, lines := ungated(t, s.Home, s.stateDir(), "CODEX_HOME="+s.codexHome())
		assert.Equal(t, 1, r.ExitCode, "ungated sessions fail the run: %s %s", r.Stdout, r.Stderr)
		require.Len(t, lines, 1, "the untrusted run's session alone: %s", r.Stdout)
		assert.Contains(t, lines[0], `"host":"codex"`)
		data, err := os.ReadFile(filepath.Join(s.stateDir(), "decisions.jsonl"))
		require.NoError(t, err)
		assert.Equal(t, 1, strings.Count(string(data), `"event":"Stop"`), "donegate answered the trusted run's stop only")
	})
}
