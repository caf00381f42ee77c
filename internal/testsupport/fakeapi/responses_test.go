package fakeapi_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// sseEvent is one server-sent event: its name (empty for data-only
// streams) and its data.
type sseEvent struct {
	Name string
	Data string
}

// post sends body to url and returns the events of the streamed answer.
func post(t *testing.T, url, body string) []sseEvent {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var events []sseEvent
	var cur sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.Data = strings.TrimPrefix(line, "data: ")
		case line == "":
			events = append(events, cur)
			cur = sseEvent{}
		}
	}
	require.NoError(t, sc.Err())
	return events
}

const responsesRequest = `{"model":"fake-model","stream":true,"tools":[{"type":"function","name":"update_plan"},{"type":"function","name":"exec_command"}],
 "input":[{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]},
          {"type":"message","role":"user","content":[{"type":"input_text","text":"Do it"}]},
          {"type":"function_call","name":"update_plan","arguments":"{}","call_id":"c1"},
          {"type":"function_call_output","call_id":"c1","output":"Plan updated"},
          {"type":"message","role":"user","content":[{"type":"input_text","text":"<hook_prompt>go on</hook_prompt>"}]}]}`

func TestResponsesPlaysTheScriptAsCodexReadsIt(t *testing.T) {
	api := fakeapi.NewResponses(
		fakeapi.Call("update_plan", map[string]any{"plan": []any{map[string]any{"step": "Write it", "status": "pending"}}}),
		fakeapi.Say("All done."),
	)
	defer api.Close()
	require.True(t, strings.HasSuffix(api.URL(), "/v1"), api.URL())

	tests := []struct {
		name  string
		items []map[string]any // what each response.output_item.done carries
	}{
		{"a tool call", []map[string]any{{"type": "function_call", "name": "update_plan",
			"arguments": `{"plan":[{"status":"pending","step":"Write it"}]}`}}},
		{"a text", []map[string]any{{"type": "message", "role": "assistant"}}},
		{"past the script: Done.", []map[string]any{{"type": "message", "role": "assistant"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			events := post(t, api.URL()+"/responses", responsesRequest)
			require.GreaterOrEqual(t, len(events), 3)
			assert.Equal(t, "response.created", events[0].Name)
			last := events[len(events)-1]
			assert.Equal(t, "response.completed", last.Name)
			var completed struct {
				Type     string `json:"type"`
				Response struct {
					ID    string         `json:"id"`
					Usage map[string]any `json:"usage"`
				} `json:"response"`
			}
			require.NoError(t, json.Unmarshal([]byte(last.Data), &completed))
			assert.Equal(t, "response.completed", completed.Type, "the data names its own type, as the real API's does")
			assert.NotEmpty(t, completed.Response.ID)
			assert.Contains(t, completed.Response.Usage, "input_tokens")

			// Each item streamed as the real API streams it: added,
			// its text or arguments as deltas, done (OpenCode builds its
			// message from these; Codex reads the done items).
			var names []string
			var done []sseEvent
			for _, e := range events[1 : len(events)-1] {
				names = append(names, e.Name)
				if e.Name == "response.output_item.done" {
					done = append(done, e)
				}
			}
			want := []string{"response.output_item.added", "response.content_part.added", "response.output_text.delta",
				"response.output_text.done", "response.content_part.done", "response.output_item.done"}
			if tt.items[0]["type"] == "function_call" {
				want = []string{"response.output_item.added", "response.function_call_arguments.delta",
					"response.function_call_arguments.done", "response.output_item.done"}
			}
			assert.Equal(t, want, names)
			require.Len(t, done, len(tt.items))
			for i, want := range tt.items {
				var ev struct {
					Item map[string]any `json:"item"`
				}
				require.NoError(t, json.Unmarshal([]byte(done[i].Data), &ev))
				for k, v := range want {
					assert.Equal(t, v, ev.Item[k], k)
				}
				if ev.Item["type"] == "function_call" {
					assert.NotEmpty(t, ev.Item["call_id"], "Codex answers the call by its call_id")
				}
			}
		})
	}
	assert.True(t, api.Exhausted())
	main := api.Of("main")
	require.Len(t, main, 3)
	assert.Equal(t, []int{0, 1, -1}, []int{main[0].Turn, main[1].Turn, main[2].Turn})
}

func TestResponsesSideCallsAndOtherPathsDoNotPlayTheScript(t *testing.T) {
	api := fakeapi.NewResponses(fakeapi.Say("scripted"))
	defer api.Close()
	events := post(t, api.URL()+"/responses", `{"model":"m","stream":true,"input":[]}`)
	require.Len(t, events, 8)
	assert.Contains(t, events[6].Data, `"text":"ok"`)

	resp, err := http.Get(api.URL() + "/models")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	assert.Len(t, api.Of("side"), 1)
	assert.Len(t, api.Of("other"), 1)
	assert.Empty(t, api.Of("main"))
	assert.False(t, api.Exhausted())
}

func TestResponsesTail(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"after the last call: its output and the hook's prompt", responsesRequest, "Plan updated\n<hook_prompt>go on</hook_prompt>"},
		{"the first request: the prompt, not the instructions", `{"input":[{"type":"message","role":"developer","content":"rules"},{"type":"message","role":"user","content":[{"type":"input_text","text":"Do it"}]}]}`, "Do it"},
		{"not JSON", `nope`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, fakeapi.ResponsesTail([]byte(tt.body)))
		})
	}
}

func TestToolNamesReadsBothOpenAIShapes(t *testing.T) {
	assert.Equal(t, []string{"update_plan", "exec_command"}, fakeapi.ToolNames([]byte(responsesRequest)))
	assert.Equal(t, []string{"todo_write", "web_search"}, fakeapi.ToolNames([]byte(
		`{"tools":[{"type":"function","function":{"name":"todo_write"}},{"type":"web_search"}]}`)))
	assert.Empty(t, fakeapi.ToolNames([]byte(`{}`)))
}
