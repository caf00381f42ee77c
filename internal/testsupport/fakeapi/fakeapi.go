// Package fakeapi is a scripted stand-in for the Anthropic Messages API,
// for driving the real Claude Code CLI offline in tests. It serves
// POST /v1/messages as the real API streams it (server-sent events:
// message_start, content_block_start/delta/stop, message_delta,
// message_stop, then the connection is closed), plays a list of scripted
// turns to the agent's main-loop requests, and records every request so a
// test can assert what the model was told.
//
// A main-loop request is one that carries tools. Requests without tools
// (titles, summaries and other side calls the CLI makes) get a short text.
// A subagent's requests also carry tools; they are told apart by a marker
// the test puts in the subagent's prompt, and get their own script.
package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Turn is one scripted model answer: optional text, then tool calls. A
// turn with tool calls ends with stop_reason tool_use, else end_turn.
type Turn struct {
	Text  string
	Tools []ToolCall
	// From, when set, makes the turn from the request it answers: a
	// call that names what the client returned before (a task id the
	// client made up, say). Every stand-in honours it.
	From func(Request) Turn
}

// ToolCall is one tool_use block. The Responses stand-in sends an Input
// that is a string as a freeform tool's call (custom_tool_call), its
// input that text.
type ToolCall struct {
	Name  string
	Input any
}

// Say is a text-only turn.
func Say(text string) Turn { return Turn{Text: text} }

// Call is a turn with one tool call.
func Call(name string, input any) Turn { return Turn{Tools: []ToolCall{{name, input}}} }

// Request is one recorded request.
type Request struct {
	Path string
	Body []byte // the raw JSON body
	// Kind is "main", "subagent", "side" or "other".
	Kind string
	// Turn is the index of the scripted turn that answered it, or -1.
	Turn int
	// At is when it arrived: the time between two main requests is what
	// the tool calls between them cost the agent.
	At time.Time
}

// Server is a running stand-in.
type Server struct {
	srv *httptest.Server

	mu        sync.Mutex
	main, sub []Turn
	mainNext  int
	subNext   int
	marker    string
	requests  []Request
	toolIDs   int
	exhausted bool
}

// New starts a server on 127.0.0.1 that plays main to the main agent.
func New(main ...Turn) *Server {
	s := &Server{main: main}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// WithSubagent scripts the turns of a subagent whose prompt contains
// marker.
func (s *Server) WithSubagent(marker string, turns ...Turn) *Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.marker, s.sub = marker, turns
	return s
}

// URL is the base URL to put in ANTHROPIC_BASE_URL.
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Requests returns every request so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Of returns the recorded requests of one kind ("main", "subagent", ...).
func (s *Server) Of(kind string) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// Exhausted reports whether the main script ran out and a default answer
// had to be given: a sign the hooks kept the agent going longer than the
// test expected.
func (s *Server) Exhausted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exhausted
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Path: r.URL.Path, Body: body, Turn: -1, At: time.Now()}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		req.Kind = "other"
		s.record(req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"input_tokens":100}`)
		return
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
	default:
		req.Kind = "other"
		s.record(req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{}`)
		return
	}

	var parsed struct {
		Model  string            `json:"model"`
		Stream bool              `json:"stream"`
		Tools  []json.RawMessage `json:"tools"`
	}
	_ = json.Unmarshal(body, &parsed)
	turn := Say("ok")
	s.mu.Lock()
	switch {
	case len(parsed.Tools) == 0:
		req.Kind = "side"
	case s.marker != "" && bytes.Contains(FirstUserText(body), []byte(s.marker)):
		req.Kind = "subagent"
		if s.subNext < len(s.sub) {
			turn, req.Turn = s.sub[s.subNext], s.subNext
			s.subNext++
		} else {
			turn = Say("Done.")
		}
	default:
		req.Kind = "main"
		if s.mainNext < len(s.main) {
			turn, req.Turn = s.main[s.mainNext], s.mainNext
			s.mainNext++
		} else {
			turn = Say("Done.")
			s.exhausted = true
		}
	}
	if turn.From != nil {
		turn = turn.From(req)
	}
	blocks := s.blocks(turn)
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	model := parsed.Model
	if model == "" {
		model = "claude-sonnet-4-5"
	}
	if parsed.Stream {
		stream(w, model, blocks, stopReason(turn))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model,
		"content": blocks, "stop_reason": stopReason(turn), "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 100, "output_tokens": 20},
	})
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

// blocks renders a turn as content blocks. Callers hold s.mu.
func (s *Server) blocks(t Turn) []map[string]any {
	var out []map[string]any
	if t.Text != "" || len(t.Tools) == 0 {
		out = append(out, map[string]any{"type": "text", "text": t.Text})
	}
	for _, c := range t.Tools {
		s.toolIDs++
		out = append(out, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake_%03d", s.toolIDs), "name": c.Name, "input": c.Input})
	}
	return out
}

func stopReason(t Turn) string {
	if len(t.Tools) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

// stream writes the answer as the real API's server-sent events, then
// closes the connection as the real API does after message_stop.
func stream(w http.ResponseWriter, model string, blocks []map[string]any, stop string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "close")
	flusher, _ := w.(http.Flusher)
	event := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if flusher != nil {
			flusher.Flush()
		}
	}
	event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]int{"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}})
	for i, b := range blocks {
		switch b["type"] {
		case "text":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			in, _ := json.Marshal(b["input"])
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 20}})
	event("message_stop", map[string]any{"type": "message_stop"})
}

// firstUserText returns the text of the first user message of a request.
func FirstUserText(body []byte) []byte {
	var req struct {
		Messages []message `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return nil
	}
	return []byte(req.Messages[0].text())
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text joins every text in a message: plain string content, text blocks,
// and tool results (whose content is a string or blocks).
func (m message) text() string {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return s
	}
	var blocks []struct {
		Type    string          `json:"type"`
		Text    string          `json:"text"`
		Content json.RawMessage `json:"content"`
		IsError bool            `json:"is_error"`
	}
	if json.Unmarshal(m.Content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "tool_result":
			parts = append(parts, message{Content: b.Content}.text())
		}
	}
	return strings.Join(parts, "\n")
}

// LastUserText returns all text of the last user message of a request:
// what the CLI told the model last (hook feedback, tool results, reminders).
func (r Request) LastUserText() string {
	var req struct {
		Messages []message `json:"messages"`
	}
	if json.Unmarshal(r.Body, &req) != nil {
		return ""
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].text()
		}
	}
	return ""
}

// TailText returns the text of the messages after the request's last
// assistant message, in order: what the client told the model since the
// model last spoke. A Stop hook's block reaches the model there as a
// user message ("Stop hook feedback: ..."), its additionalContext as a
// system message after the tool results (Claude Code 2.1.331).
func (r Request) TailText() string {
	var req struct {
		Messages []message `json:"messages"`
	}
	if json.Unmarshal(r.Body, &req) != nil {
		return ""
	}
	var parts []string
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "assistant"; i-- {
		parts = append([]string{req.Messages[i].text()}, parts...)
	}
	return strings.Join(parts, "\n")
}

// AllText returns the text of every message of a request, in order.
func (r Request) AllText() string {
	var req struct {
		Messages []message `json:"messages"`
	}
	if json.Unmarshal(r.Body, &req) != nil {
		return ""
	}
	var parts []string
	for _, m := range req.Messages {
		parts = append(parts, m.text())
	}
	return strings.Join(parts, "\n")
}
