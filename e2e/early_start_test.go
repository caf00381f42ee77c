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
	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// The agent writes a file, spends a while on something else, and stops.
// With stop-hook --start registered in the background at PostToolUse of
// the edit tools (settings.example.json), the suite starts as the Write
// returns: the stop finds it running, joins it and takes its result, so
// the suite runs once, and the stop waits only for what is left of it.
// Claude Code runs the entry in the background: the Write's tool call
// does not wait for the suite (the next request to the model comes as
// soon as without the entry). Without the entry the stop runs the suite
// itself, whole.
func TestChecksStartedAfterTheAgentsEditsAreJoined(t *testing.T) {
	t.Parallel()
	const suite = 6 * time.Second
	for _, early := range []bool{true, false} {
		name := "without --start: the stop runs the suite"
		if early {
			name = "with --start: the stop joins the run the edit started"
		}
		t.Run(name, func(t *testing.T) {
			runs := filepath.Join(t.TempDir(), "runs.log")
			command := "echo run >> " + runs + " && sleep " + strings.TrimSuffix(suite.String(), "s") + " && test -f done.txt"
			s := newSession(t, fakeapi.New())
			api := fakeapi.New(
				fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "done.txt"), "content": "done\n"}),
				fakeapi.Call("Bash", map[string]any{"command": "sleep 3", "description": "something else meanwhile"}),
				fakeapi.Say("Done."),
			)
			s.API = api
			t.Cleanup(api.Close)
			gitInit(t, s.Project)
			s.config(`{"hold_unchanged": true, "checkers": [{"type": "test", "command": "` + command + `"}]}`)
			s.useDonegate()
			if early {
				s.startChecksEarly()
			}
			s.Args = []string{"--allowedTools", "Bash", "--permission-mode", "acceptEdits"}
			r := s.run("Write done.txt")
			assertEnded(t, api, r, "Done.", 3)

			data, err := os.ReadFile(runs)
			require.NoError(t, err)
			assert.Equal(t, 1, strings.Count(string(data), "run\n"), "one run of the suite")
			log := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, "DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state")},
				closerBinary(t), "log", "--json")
			var stop gjson.Result
			for _, line := range strings.Split(strings.TrimSpace(log.Stdout), "\n") {
				if gjson.Get(line, "event").Str == "Stop" {
					stop = gjson.Get(line, "checks.0")
				}
			}
			require.True(t, stop.Exists(), "the stop's record: %s", log.Stdout)
			assert.True(t, stop.Get("complete").Bool(), "the suite passed: %s", stop.Raw)
			assert.Equal(t, early, stop.Get("reused").Bool(), "the stop took the early run's result: %s", stop.Raw)

			main := api.Of("main")
			require.Len(t, main, 3)
			write := main[1].At.Sub(main[0].At)
			t.Logf("the Write's round trip to the model: %s; the stop's check: %d ms", write.Round(time.Millisecond), stop.Get("tookMs").Int())
			assert.Less(t, write, suite, "the Write did not wait for the suite")
		})
	}
}
