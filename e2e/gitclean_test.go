//go:build e2e && !windows

package e2e

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// git-clean: the scripted agent writes a file through the real Bash tool
// and stops; it is held and told the file is untracked, commits it
// through Bash, and is then let go.
func TestGitCleanHoldsTheAgentUntilCommitted(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		fakeapi.Call("Bash", map[string]any{"command": "echo done > work.txt", "description": "Write work.txt"}),
		fakeapi.Say("I wrote work.txt."),
		fakeapi.Call("Bash", map[string]any{"command": "git add work.txt && git commit -qm 'add work.txt'", "description": "Commit work.txt"}),
		fakeapi.Say("Committed work.txt."),
	)
	s := newSession(t, api)
	s.Env = []string{"GIT_AUTHOR_NAME=Agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=Agent", "GIT_COMMITTER_EMAIL=agent@example.com"}
	s.Args = []string{"--allowedTools", "Bash"}
	s.config(`{"checkers":[{"type":"git-clean"}]}`)
	s.gitRepo()
	s.git("add", ".claude/donegate.json")
	s.git("commit", "-q", "-m", "donegate config")
	s.useDonegate()
	r := s.run("Write work.txt and commit it")

	assert.NotContains(t, mainTurn(t, api, 1), heldBy)
	assert.Contains(t, mainTurn(t, api, 2), heldWith+"The git working tree is not clean: 1 file changed or untracked.")
	assert.Contains(t, mainTurn(t, api, 2), "\n- work.txt: untracked")
	assertEnded(t, api, r, "Committed work.txt.", 4)
	assert.Equal(t, "add work.txt", s.git("log", "-1", "--format=%s"))
	assert.Empty(t, s.git("status", "--porcelain"))
}
