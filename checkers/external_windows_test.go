package checkers_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// TestExternalAnswersWindows is TestExternalAnswers as Windows runs the
// checker: a shell command through cmd.exe (whose echo prints quotes as
// they are, so a JSON answer needs none), a .cmd script by its path.
func TestExternalAnswersWindows(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "check.cmd"),
		[]byte("@echo off\r\necho checking 1>&2\r\necho {\"complete\": false, \"feedback\": \"from check.cmd: %1\"}\r\n"), 0o644))
	for _, tt := range []struct {
		name    string
		command config.Argv
		budget  time.Duration
		want    checkers.Result
		err     []string
	}{
		{name: "complete with feedback", command: config.Argv{Shell: `echo {"complete": true, "feedback": "all 3 endpoints answer"}`},
			want: checkers.OK("all 3 endpoints answer")},
		{name: "incomplete, stderr is not the answer", command: config.Argv{Shell: `echo noise 1>&2& echo {"complete": false, "feedback": "Sign the release."}`},
			want: checkers.Incomplete("Sign the release.")},
		{name: "a .cmd script with an argument", command: config.Argv{Args: []string{`.\check.cmd`, "x"}},
			want: checkers.Incomplete("from check.cmd: x")},
		{name: "exit code other than 0", command: config.Argv{Shell: `echo {"complete": true}& echo db unreachable 1>&2& exit /b 3`},
			err: []string{"exited with code 3", "Its stderr ends:\ndb unreachable"}},
		{name: "not JSON", command: config.Argv{Shell: `echo all good`},
			err: []string{"exited 0 but its stdout is not an answer", `"all good"`}},
		{name: "shell cannot find the command", command: config.Argv{Shell: `no-such-checker-donegate --x`},
			err: []string{`command: the shell could not find it (exit code 9009)`}},
		{name: "budget ends first", command: config.Argv{Shell: `ping -n 30 127.0.0.1`}, budget: 500 * time.Millisecond,
			err: []string{"did not finish within the hook's time budget (limits.budget 500ms)"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.budget > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.budget)
				defer cancel()
			}
			ch := typedChecker(t, "external", &checkers.ExternalOptions{Command: tt.command})
			r, err := ch.Check(ctx, &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, Reason: checkers.ReasonStop, Budget: tt.budget})
			if tt.err != nil {
				require.Error(t, err)
				for _, part := range tt.err {
					assert.Contains(t, err.Error(), part)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want.Complete, r.Complete)
			assert.Equal(t, tt.want.Feedback, r.Feedback)
		})
	}
}

// TestExternalInputWindows: the checker gets its input on stdin and the
// session guard in its environment under cmd.exe too.
func TestExternalInputWindows(t *testing.T) {
	dir := t.TempDir()
	const stop = `{"session_id": "s1", "hook_event_name": "Stop"}`
	ch := typedChecker(t, "external", &checkers.ExternalOptions{Command: config.Argv{
		Shell: `more > input.json& echo %DONEGATE_CHECKING_SESSION%> guard& echo {"complete": true}`}})
	c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, RawEvent: []byte(stop + "\n"), ProjectDir: dir, Reason: checkers.ReasonStop}
	r, err := ch.Check(context.Background(), c)
	require.NoError(t, err)
	assert.True(t, r.Complete, r.Feedback)
	input, err := os.ReadFile(filepath.Join(dir, "input.json"))
	require.NoError(t, err)
	assert.Contains(t, string(input), `{"event":`+stop+`,"project_dir":"`+jsonText(dir)+`","reason":"stop"}`)
	guard, err := os.ReadFile(filepath.Join(dir, "guard"))
	require.NoError(t, err)
	assert.Equal(t, "s1\r\n", string(guard))
}

// jsonText is s as it stands between the quotes of a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
