//go:build e2e && !windows

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// promiseLoop is the README's promise loop: the agent must write
// <promise>DONE</promise>, and not before it has been sent back twice.
const promiseLoop = `{"checkers":[{"type":"composite","name":"promise loop","checkers":[
	{"type":"keyword","promise":"DONE"},
	{"type":"iterations","min":2}]}],
 "limits":{"max_blocks":4}}`

// A promise loop with the real CLI: an agent that says it is done without
// the promise is held and told the promise; one that writes it too early
// is held for the iterations left; the promise after two continuations
// lets it go. Three stops, two of them blocked.
func TestPromiseLoop(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		fakeapi.Say("I am done."),
		fakeapi.Say("Now it is finished.\n<promise>DONE</promise>"),
		fakeapi.Say("Went over it again and fixed an edge case.\n<promise> DONE </promise>"),
	)
	s := newSession(t, api)
	s.config(promiseLoop)
	s.useDonegate()
	r := s.run("Build the feature")

	assert.Contains(t, mainTurn(t, api, 1), heldWith+
		"Do not stop yet: when, and only when, the task is completely done, end your final message with <promise>DONE</promise>, exactly. "+
		"Until then keep working, and do not write the promise just to leave the loop.\n\n"+
		`Your last message ended: "I am done."`)
	assert.Contains(t, mainTurn(t, api, 2), heldWith+
		"Keep going: this task requires at least 2 rounds of work before you may stop, and 1 is left. "+
		"Go over what you have done against the task, find what is missing, wrong or could be better, and improve it; then finish again.\n\n"+
		"You have been sent back 1 time so far in this prompt.")
	assertEnded(t, api, r, "Went over it again and fixed an edge case.\n<promise> DONE </promise>", 3)

	// Three stops: two blocked, told to the model in the transcript, and
	// the last let through with the count cleared.
	data, err := os.ReadFile(s.transcriptPath(r.SessionID))
	require.NoError(t, err)
	// (additionalContext, which the CLI records as an attachment of type
	// hook_additional_context, not as a user line)
	assert.Equal(t, 2, strings.Count(string(data), `"type":"hook_additional_context"`), "blocked stops")
	states, err := filepath.Glob(filepath.Join(s.Home, "donegate-state", "*.json"))
	require.NoError(t, err)
	require.Len(t, states, 1)
	record, err := os.ReadFile(states[0])
	require.NoError(t, err)
	assert.Contains(t, string(record), `"counters":{}`, "the count is cleared once the loop is done")
}
