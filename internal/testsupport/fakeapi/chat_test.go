package fakeapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

const chatRequest = `{"model":"fake-model","stream":true,"tools":[{"type":"function","function":{"name":"todo_write"}}],
 "messages":[{"role":"system","content":"You are Qwen Code."},
             {"role":"user","content":"Do it"},
             {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"todo_write","arguments":"{}"}}]},
             {"role":"tool","tool_call_id":"c1","content":"Todos have been modified"},
             {"role":"user","content":[{"type":"text","text":"keep going"}]}]}`

// chunk is the part of a chat.completion.chunk the tests look at.
type chunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage map[string]int `json:"usage"`
}

// stream reads a streamed answer: the chunks, and whether it ended in
// data: [DONE].
func stream(t *testing.T, url, body string) ([]chunk, bool) {
	t.Helper()
	var chunks []chunk
	done := false
	for _, ev := range post(t, url, body) {
		assert.Empty(t, ev.Name, "Chat Completions streams data lines only")
		if ev.Data == "[DONE]" {
			done = true
			continue
		}
		var c chunk
		require.NoError(t, json.Unmarshal([]byte(ev.Data), &c), ev.Data)
		assert.Equal(t, "chat.completion.chunk", c.Object)
		chunks = append(chunks, c)
	}
	return chunks, done
}

func TestChatPlaysTheScriptAsQwenReadsIt(t *testing.T) {
	api := fakeapi.NewChat(
		fakeapi.Call("todo_write", map[string]any{"todos": []any{map[string]any{"id": "1", "content": "Write it", "status": "pending"}}}),
		fakeapi.Say("All done."),
	)
	defer api.Close()
	require.True(t, strings.HasSuffix(api.URL(), "/v1"), api.URL())

	tests := []struct {
		name, text, tool, args, finish string
	}{
		{"a tool call", "", "todo_write", `{"todos":[{"content":"Write it","id":"1","status":"pending"}]}`, "tool_calls"},
		{"a text", "All done.", "", "", "stop"},
		{"past the script: Done.", "Done.", "", "", "stop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunks, done := stream(t, api.URL()+"/chat/completions", chatRequest)
			assert.True(t, done, "ends in data: [DONE]")
			require.NotEmpty(t, chunks)
			assert.Equal(t, "assistant", chunks[0].Choices[0].Delta.Role)
			var text, tool, args, finish string
			usage := false
			for _, c := range chunks {
				if c.Usage != nil {
					usage = true
				}
				for _, ch := range c.Choices {
					text += ch.Delta.Content
					for _, call := range ch.Delta.ToolCalls {
						assert.NotEmpty(t, call.ID)
						tool, args = call.Function.Name, call.Function.Arguments
					}
					if ch.FinishReason != nil {
						finish = *ch.FinishReason
					}
				}
			}
			assert.Equal(t, tt.text, text)
			assert.Equal(t, tt.tool, tool)
			assert.Equal(t, tt.args, args)
			assert.Equal(t, tt.finish, finish)
			assert.True(t, usage, "a usage chunk")
		})
	}
	assert.True(t, api.Exhausted())
	assert.Len(t, api.Of("main"), 3)
}

func TestChatAnswersWithoutStreamAndSideCalls(t *testing.T) {
	api := fakeapi.NewChat(fakeapi.Call("todo_write", map[string]any{"todos": []any{}}))
	defer api.Close()

	// A side call asking for JSON gets JSON, and the script is kept.
	resp, err := http.Post(api.URL()+"/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"who speaks next?"}],"response_format":{"type":"json_object"}}`))
	require.NoError(t, err)
	var answer struct {
		Choices []struct {
			Message struct {
				Content   string            `json:"content"`
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&answer))
	resp.Body.Close()
	require.Len(t, answer.Choices, 1)
	assert.Equal(t, "{}", answer.Choices[0].Message.Content)

	// The main loop, not streamed: the scripted call as a whole message.
	resp, err = http.Post(api.URL()+"/chat/completions", "application/json", strings.NewReader(strings.Replace(chatRequest, `"stream":true`, `"stream":false`, 1)))
	require.NoError(t, err)
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&answer))
	resp.Body.Close()
	assert.Len(t, answer.Choices[0].Message.ToolCalls, 1)
	assert.Equal(t, "tool_calls", answer.Choices[0].FinishReason)

	assert.Len(t, api.Of("side"), 1)
	assert.Len(t, api.Of("main"), 1)
	assert.False(t, api.Exhausted())
}

func TestChatTail(t *testing.T) {
	assert.Equal(t, "Todos have been modified\nkeep going", fakeapi.ChatTail([]byte(chatRequest)))
	assert.Equal(t, "Do it", fakeapi.ChatTail([]byte(`{"messages":[{"role":"system","content":"rules"},{"role":"user","content":"Do it"}]}`)))
	assert.Empty(t, fakeapi.ChatTail([]byte(`nope`)))
}

// A turn with From is made from the request it answers: what the client
// sent before (an id it made up) can be named in the call.
func TestTurnFromTheRequest(t *testing.T) {
	api := fakeapi.NewChat(fakeapi.Turn{From: func(r fakeapi.Request) fakeapi.Turn {
		return fakeapi.Say(fmt.Sprintf("turn %d of %d bytes", r.Turn, len(r.Body)))
	}})
	defer api.Close()
	chunks, _ := stream(t, api.URL()+"/chat/completions", chatRequest)
	var text string
	for _, c := range chunks {
		for _, ch := range c.Choices {
			text += ch.Delta.Content
		}
	}
	assert.Equal(t, fmt.Sprintf("turn 0 of %d bytes", len(chatRequest)), text)
	assert.False(t, api.Exhausted())
}

// The Messages stand-in honours From too.
func TestTurnFromTheRequestOnTheMessagesAPI(t *testing.T) {
	api := fakeapi.New(fakeapi.Turn{From: func(r fakeapi.Request) fakeapi.Turn {
		return fakeapi.Say(fmt.Sprintf("turn %d", r.Turn))
	}})
	defer api.Close()
	resp, err := http.Post(api.URL()+"/v1/messages", "application/json", strings.NewReader(`{"model":"m","tools":[{"name":"Bash"}],"messages":[]}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	var msg struct {
		Content []struct{ Text string } `json:"content"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&msg))
	require.Len(t, msg.Content, 1)
	assert.Equal(t, "turn 0", msg.Content[0].Text)
}
