package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Chat is a scripted stand-in for the OpenAI Chat Completions API as Qwen
// Code 0.24 uses it with --auth-type openai: POST /v1/chat/completions
// with "stream": true, answered as server-sent "data:" chunks
// (chat.completion.chunk: the role, the text, each tool call whole in one
// delta, the finish_reason, a usage chunk), then "data: [DONE]". A request
// that offers tools is the agent's main loop and gets the next scripted
// turn; one without tools (Qwen's side calls: a session title, the
// next-speaker check) gets a short text, or "{}" when it asks for JSON.
type Chat struct {
	scripted
}

// NewChat starts the stand-in on 127.0.0.1, playing main to the agent.
func NewChat(main ...Turn) *Chat {
	c := &Chat{}
	c.start(main, "/v1/chat/completions", c.handle)
	return c
}

func (c *Chat) handle(w http.ResponseWriter, req Request) {
	var parsed struct {
		Model          string            `json:"model"`
		Stream         bool              `json:"stream"`
		Tools          []json.RawMessage `json:"tools"`
		ResponseFormat json.RawMessage   `json:"response_format"`
	}
	_ = json.Unmarshal(req.Body, &parsed)
	side := "ok"
	if len(parsed.ResponseFormat) > 0 {
		side = "{}"
	}
	turn := c.answer(req, len(parsed.Tools) > 0, side)
	model := modelOr(parsed.Model)
	id := fmt.Sprintf("chatcmpl-fake-%03d", c.callID())
	finish := "stop"
	var calls []map[string]any
	for i, t := range turn.Tools {
		args, _ := json.Marshal(t.Input)
		calls = append(calls, map[string]any{
			"index": i, "id": fmt.Sprintf("call_fake_%03d", c.callID()), "type": "function",
			"function": map[string]any{"name": t.Name, "arguments": string(args)},
		})
		finish = "tool_calls"
	}
	usage := map[string]int{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}

	if !parsed.Stream {
		msg := map[string]any{"role": "assistant", "content": turn.Text}
		if len(calls) > 0 {
			for _, call := range calls {
				delete(call, "index")
			}
			msg["tool_calls"] = calls
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": id, "object": "chat.completion", "created": 1795500000, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   usage,
		})
		return
	}
	send := eventStream(w)
	chunk := func(delta map[string]any, finishReason any, usage any) {
		data := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 1795500000, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finishReason}},
		}
		if usage != nil {
			data["choices"], data["usage"] = []any{}, usage
		}
		b, _ := json.Marshal(data)
		send("data: %s\n\n", b)
	}
	chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)
	if turn.Text != "" {
		chunk(map[string]any{"content": turn.Text}, nil, nil)
	}
	for _, call := range calls {
		chunk(map[string]any{"tool_calls": []any{call}}, nil, nil)
	}
	chunk(map[string]any{}, finish, nil)
	chunk(nil, nil, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// ChatTail returns the text of every message of a Chat Completions
// request after the model's last one (tool results, user messages): what
// the client told the model since it last spoke, a Stop hook's reason
// among it.
func ChatTail(body []byte) string {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	start := 0
	for i, m := range req.Messages {
		if m.Role == "assistant" {
			start = i + 1
		}
	}
	var parts []string
	for _, m := range req.Messages[start:] {
		if m.Role == "system" {
			continue
		}
		if t := (responsesInput{Type: "message", Content: m.Content}).text(); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}
