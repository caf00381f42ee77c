package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Responses is a scripted stand-in for the OpenAI Responses API, the one
// wire API Codex CLI 0.169 speaks ("chat" is refused by its config). It
// serves POST /v1/responses as server-sent events, the least Codex needs
// (measured, ../shared/hosts.md): response.created, one
// response.output_item.done per item (an assistant message, a
// function_call, a freeform tool's custom_tool_call), then response.completed with the response id and usage.
// A request that offers tools is the agent's main loop and gets the next
// scripted turn; one without tools (a side call) gets a short text.
type Responses struct {
	scripted
}

// NewResponses starts the stand-in on 127.0.0.1, playing main to the agent.
func NewResponses(main ...Turn) *Responses {
	r := &Responses{}
	r.start(main, "/v1/responses", r.handle)
	return r
}

func (r *Responses) handle(w http.ResponseWriter, req Request) {
	var parsed struct {
		Model string            `json:"model"`
		Tools []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(req.Body, &parsed)
	turn := r.answer(req, len(parsed.Tools) > 0, "ok")
	model := modelOr(parsed.Model)

	send := eventStream(w)
	seq := 0
	event := func(name string, data map[string]any) {
		data["type"], data["sequence_number"] = name, seq
		seq++
		b, _ := json.Marshal(data)
		send("event: %s\ndata: %s\n\n", name, b)
	}
	id := fmt.Sprintf("resp_fake_%03d", r.callID())
	created := map[string]any{"id": id, "object": "response", "created_at": 1795700000, "model": model, "status": "in_progress", "output": []any{}}
	event("response.created", map[string]any{"response": created})
	var output []any
	if turn.Text != "" || len(turn.Tools) == 0 {
		item := map[string]any{
			"type": "message", "id": id + "_msg", "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": turn.Text, "annotations": []any{}}},
		}
		streamItem(event, len(output), item, turn.Text)
		output = append(output, item)
	}
	for _, c := range turn.Tools {
		n := r.callID()
		var item map[string]any
		var text string
		if in, ok := c.Input.(string); ok {
			// A freeform tool's call (Codex's apply_patch): its input is
			// the text itself.
			item = map[string]any{
				"type": "custom_tool_call", "id": fmt.Sprintf("ctc_fake_%03d", n), "status": "completed",
				"name": c.Name, "input": in, "call_id": fmt.Sprintf("call_fake_%03d", n),
			}
			text = in
		} else {
			args, _ := json.Marshal(c.Input)
			item = map[string]any{
				"type": "function_call", "id": fmt.Sprintf("fc_fake_%03d", n), "status": "completed",
				"name": c.Name, "arguments": string(args), "call_id": fmt.Sprintf("call_fake_%03d", n),
			}
			text = string(args)
		}
		streamItem(event, len(output), item, text)
		output = append(output, item)
	}
	event("response.completed", map[string]any{"response": map[string]any{
		"id": id, "object": "response", "created_at": 1795700000, "model": model, "status": "completed", "output": output,
		"incomplete_details": nil,
		"usage": map[string]any{
			"input_tokens": 100, "input_tokens_details": map[string]int{"cached_tokens": 0},
			"output_tokens": 20, "output_tokens_details": map[string]int{"reasoning_tokens": 0},
			"total_tokens": 120,
		},
	}})
}

// streamItem sends output item i as the real API streams it: added
// (empty), its text (a message's, or a call's arguments) as one delta,
// done. Codex reads the done items alone; OpenCode's own Responses reader
// (1.18.33) builds text and tool calls from the added items and the
// deltas.
func streamItem(event func(string, map[string]any), i int, item map[string]any, text string) {
	id, _ := item["id"].(string)
	switch item["type"] {
	case "message":
		event("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{
			"type": "message", "id": id, "role": "assistant", "status": "in_progress", "content": []any{},
		}})
		part := map[string]any{"type": "output_text", "text": "", "annotations": []any{}}
		event("response.content_part.added", map[string]any{"output_index": i, "item_id": id, "content_index": 0, "part": part})
		event("response.output_text.delta", map[string]any{"output_index": i, "item_id": id, "content_index": 0, "delta": text, "logprobs": []any{}})
		event("response.output_text.done", map[string]any{"output_index": i, "item_id": id, "content_index": 0, "text": text, "logprobs": []any{}})
		event("response.content_part.done", map[string]any{"output_index": i, "item_id": id, "content_index": 0,
			"part": map[string]any{"type": "output_text", "text": text, "annotations": []any{}}})
	case "function_call", "custom_tool_call":
		// A call's text streams as its arguments, a freeform call's as
		// its input.
		field, stream := "arguments", "response.function_call_arguments"
		if item["type"] == "custom_tool_call" {
			field, stream = "input", "response.custom_tool_call_input"
		}
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		added[field], added["status"] = "", "in_progress"
		event("response.output_item.added", map[string]any{"output_index": i, "item": added})
		event(stream+".delta", map[string]any{"output_index": i, "item_id": id, "delta": text})
		event(stream+".done", map[string]any{"output_index": i, "item_id": id, field: text})
	}
	event("response.output_item.done", map[string]any{"output_index": i, "item": item})
}

// responsesInput is an item of a Responses request's input.
type responsesInput struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name"`
	Output  json.RawMessage `json:"output"`
}

func (in responsesInput) text() string {
	switch in.Type {
	case "function_call_output", "custom_tool_call_output":
		var s string
		if json.Unmarshal(in.Output, &s) == nil {
			return s
		}
		return string(in.Output)
	case "message", "":
		var s string
		if json.Unmarshal(in.Content, &s) == nil {
			return s
		}
		var parts []struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(in.Content, &parts)
		var out []string
		for _, p := range parts {
			out = append(out, p.Text)
		}
		return strings.Join(out, "\n")
	}
	return ""
}

// ResponsesTail returns the text of every input item of a Responses
// request after the model's last output (its last assistant message or
// function call): what the client told the model since it last spoke —
// tool outputs and user messages, a Stop hook's reason among them.
func ResponsesTail(body []byte) string {
	var req struct {
		Input []responsesInput `json:"input"`
	}
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	start := 0
	for i, in := range req.Input {
		if in.Type == "function_call" || in.Type == "custom_tool_call" || (in.Type == "message" && in.Role == "assistant") {
			start = i + 1
		}
	}
	var parts []string
	for _, in := range req.Input[start:] {
		if in.Role == "developer" || in.Role == "system" {
			continue // instructions, not what the agent was told
		}
		if t := in.text(); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolNames returns the names of the tools a request offers the model,
// for both OpenAI shapes: Responses ({"type":"function","name":...}) and
// Chat Completions ({"type":"function","function":{"name":...}}).
func ToolNames(body []byte) []string {
	var req struct {
		Tools []struct {
			Type     string `json:"type"`
			Name     string `json:"name"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	var names []string
	for _, t := range req.Tools {
		switch {
		case t.Name != "":
			names = append(names, t.Name)
		case t.Function.Name != "":
			names = append(names, t.Function.Name)
		default:
			names = append(names, t.Type)
		}
	}
	return names
}
