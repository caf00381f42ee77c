//go:build e2e && !windows

package e2e

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// 10. The race at the StructuredOutput gate. The model writes its plan and
// calls StructuredOutput in one message, so at PreToolUse the TodoWrite
// and the gated call reach the transcript together, after the hook has
// started (measured: 16-33 ms after, in 5 of 6 sessions). Read at once,
// the transcript holds no plan and the early call is accepted; the hook
// must wait for the call's tool_use_id and then see the open item.
func TestStructuredOutputGateWaitsForTheTranscript(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		loadTools("TodoWrite"),
		fakeapi.Turn{Tools: []fakeapi.ToolCall{
			{Name: "TodoWrite", Input: map[string]any{"todos": []any{todo("Write tests", "pending")}}},
			{Name: "StructuredOutput", Input: map[string]any{"name": "early"}},
		}},
		fakeapi.Call("TodoWrite", map[string]any{"todos": []any{todo("Write tests", "completed")}}),
		fakeapi.Call("StructuredOutput", map[string]any{"name": "final"}),
	)
	s := newSession(t, api)
	s.Env = todoWrite
	s.Args = []string{"--json-schema", `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`}
	s.useDonegate()
	r := s.run("Name it")

	assert.Contains(t, mainTurn(t, api, 2), "PreToolUse:StructuredOutput hook error: ")
	assert.Contains(t, mainTurn(t, api, 2), "You have 1 incomplete task(s) out of 1. "+planAdvice+"Write tests")
	assert.Equal(t, 1, strings.Count(mainTurn(t, api, 3), "hook error"), "the final call is not denied")
	assert.JSONEq(t, `{"name":"final"}`, string(r.StructuredOutput))
	assert.False(t, api.Exhausted())
	assert.Len(t, api.Of("main"), 4)
}
