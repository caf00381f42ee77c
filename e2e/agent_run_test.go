//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/fakeapi"
)

// The agent writes a file, runs the suite itself through Bash (it
// passes), and says it is done. Claude Code tells posttooluse-hook, at
// PostToolUse of Bash, that the run exited 0 (it sends PostToolUse for a
// Bash call only then): the pass stands for the test checker's run on
// that tree, and the stop does not run the suite again. Without the
// PostToolUse registration of Bash (an install from before closer init
// wrote it), the stop runs it a second time.
func TestAgentsOwnPassingRunIsNotRepeated(t *testing.T) {
	for _, registered := range []bool{true, false} {
		name := "not registered at Bash: the stop runs it again"
		if registered {
			name = "registered at Bash: the stop reuses the agent's run"
		}
		t.Run(name, func(t *testing.T) {
			runs := filepath.Join(t.TempDir(), "runs.log")
			command := "echo run >> " + runs + " && test -f done.txt"
			s := newSession(t, fakeapi.New())
			api := fakeapi.New(
				fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "done.txt"), "content": "done\n"}),
				fakeapi.Call("Bash", map[string]any{"command": command, "description": "run the tests"}),
				fakeapi.Say("Done: the tests pass."),
			)
			s.API = api
			t.Cleanup(api.Close)
			gitInit(t, s.Project)
			s.config(`{"hold_unchanged": true, "checkers": [{"type": "test", "command": "` + command + `"}]}`)
			s.useDonegate() // as settings.example.json: at PostToolUse of Bash too
			if !registered {
				s.Hooks["PostToolUse"] = slices.DeleteFunc(s.Hooks["PostToolUse"], func(e hookEntry) bool { return e.Matcher == "Bash" })
			}
			s.Args = []string{"--allowedTools", "Bash", "--permission-mode", "acceptEdits"}
			r := s.run("Write done.txt and run the tests")
			assertEnded(t, api, r, "Done: the tests pass.", 3)

			data, err := os.ReadFile(runs)
			require.NoError(t, err)
			n := strings.Count(string(data), "run\n")
			explain := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, "DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state")},
				closerBinary(t), "log", "--json")
			if registered {
				assert.Equal(t, 1, n, "the agent's run only")
				assert.Contains(t, explain.Stdout, `"reused":true`, "the stop reused the agent's run")
			} else {
				assert.Equal(t, 2, n, "the agent's run and the stop's")
			}
		})
	}
}
