//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// judgeMarker begins the judge's prompt: fakeapi tells the judge's
// requests from the agent's by it.
const judgeMarker = "You are a strict reviewer."

// The stop-hook's judge checker runs the real CLI as the judge, against
// the same stand-in as the agent: it holds the agent with the criterion
// the judge finds not met and the judge's reason, and lets it stop once
// the judge agrees. The project's own hooks (donegate's, in
// .claude/settings.json) do not run in the judge: its StructuredOutput is
// taken at once, and it does not judge itself.
func TestJudgeCheckerHoldsUntilTheJudgeAgrees(t *testing.T) {
	t.Parallel()
	s := newSession(t, fakeapi.New())
	s.gitRepo()
	hello := filepath.Join(s.Project, "hello.txt")
	api := fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Write", map[string]any{"file_path": hello, "content": "hello\n"}),
		fakeapi.Say("hello.txt says hello now."),
	).WithSubagent(judgeMarker,
		fakeapi.Call("StructuredOutput", judgeAnswer(false,
			criterion("1", "hello.txt says hello", false, "there is no hello.txt"))),
		fakeapi.Call("StructuredOutput", judgeAnswer(true,
			criterion("1", "hello.txt says hello", true, "hello.txt holds 'hello'"))),
	)
	s.API = api
	t.Cleanup(api.Close)
	cfg, err := json.Marshal(map[string]any{
		"checkers": []any{map[string]any{"type": "judge", "criteria": "- hello.txt says hello", "claude": claudeBinary(t), "timeout": "40s"}},
		// The settings give each hook 60 s.
		"limits": map[string]any{"budget": "50s"},
	})
	require.NoError(t, err)
	s.config(string(cfg))
	s.projectHooks()
	s.Args = []string{"--permission-mode", "acceptEdits"}
	r := s.run("Write hello.txt")

	fb := mainTurn(t, api, 1)
	assert.Contains(t, fb, heldWith+"An LLM judge found 1 of 1 completion criterion not met. Do this, then finish again:\n- finish hello.txt says hello\n\nNot met, with the judge's reasons:\n- hello.txt says hello: there is no hello.txt")
	assertEnded(t, api, r, "hello.txt says hello now.", 3)

	judged := api.Of("subagent")
	require.Len(t, judged, 2, "one request per judge: its StructuredOutput was accepted at once, no hook held it")
	first := string(fakeapi.FirstUserText(judged[0].Body))
	assert.Contains(t, first, "## Completion criteria\n\n1. hello.txt says hello\n\n## Changes\n\ngit diff --stat ")
	assert.Contains(t, first, "(the working tree against HEAD):\n(no changes to tracked files)\nUntracked files:\n .claude/donegate.json\n .claude/settings.json\n")
	assert.Contains(t, first, "## The agent's plan\n\nThe agent made no plan.")
	assert.Contains(t, string(fakeapi.FirstUserText(judged[1].Body)), " hello.txt\n", "the second judge sees the new file")
	_, err = os.Stat(hello)
	assert.NoError(t, err)
}
