package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// TestCommandCheckerWindows is TestCommandChecker as Windows runs its
// commands: through cmd.exe, where a missing command exits 9009, output
// lines end in CRLF, and .cmd scripts run as npm.cmd does.
func TestCommandCheckerWindows(t *testing.T) {
	no := false
	for _, tt := range []struct {
		name     string
		opts     checkers.CommandOptions
		complete bool
		says     []string
	}{
		{name: "exit 0 by default", opts: checkers.CommandOptions{Command: "echo fine"}, complete: true,
			says: []string{"The command `echo fine` passed: it had to exit with code 0 and did."}},
		{name: "exit 1 by default", opts: checkers.CommandOptions{Command: "echo lint: 2 problems& exit /b 1"},
			says: []string{"but it exited with code 1", "Last 40 lines of output:\nlint: 2 problems"}},
		{name: "a chosen exit code is met", opts: checkers.CommandOptions{Command: "exit /b 3", SuccessWhen: "exit_code:3"}, complete: true},
		{name: "a .cmd script", opts: checkers.CommandOptions{Command: "lint.cmd"},
			says: []string{"exited with code 4", "\nlint.cmd: 1 problem"}},
		{name: "empty: output on stderr counts", opts: checkers.CommandOptions{Command: "echo TODO left 1>&2", SuccessWhen: "empty"},
			says: []string{"must print nothing", "TODO left"}},
		{name: "contains", opts: checkers.CommandOptions{Command: "echo ALL OK& exit /b 1", SuccessWhen: "contains:ALL OK"}, complete: true},
		{name: "matches: any line, as grep (CRLF ends)", opts: checkers.CommandOptions{Command: "echo building& echo v12& echo done", SuccessWhen: `matches:^v[0-9]+$`}, complete: true},
		{name: "a command the shell cannot find", opts: checkers.CommandOptions{Command: "donegate-no-such-tool --check", Cache: &no},
			says: []string{"exited with code 9009", `Exit code 9009 is the shell's "command not found"`, "donegate-no-such-tool"}},
		{name: "its own timeout", opts: checkers.CommandOptions{Command: "ping -n 30 127.0.0.1", Timeout: config.Duration(500 * time.Millisecond)},
			says: []string{"timed out after 500ms and was stopped"}},
		{name: "the session guard is in its environment", opts: checkers.CommandOptions{Command: `echo guard=%DONEGATE_CHECKING_SESSION%`, SuccessWhen: "contains:guard=s1"}, complete: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "lint.cmd"), []byte("@echo off\r\necho lint.cmd: 1 problem\r\nexit /b 4\r\n"), 0o644))
			c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, Budget: time.Minute}
			r, err := typedChecker(t, "command", &tt.opts).Check(context.Background(), c)
			require.NoError(t, err)
			assert.Equal(t, tt.complete, r.Complete, r.Feedback)
			for _, s := range tt.says {
				assert.Contains(t, r.Feedback, s)
			}
			assert.NotContains(t, r.Feedback, "\r", "CRLF read as lines")
			assert.False(t, strings.Contains(r.Feedback, "It printed nothing") && len(tt.says) > 1, r.Feedback)
		})
	}
}
