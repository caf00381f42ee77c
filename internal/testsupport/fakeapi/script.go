package fakeapi

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
)

// script plays scripted turns in order to the main loop of an agent and
// records every request, for the stand-ins of the OpenAI APIs (Codex CLI,
// Qwen Code) and of the Gemini API. It is the main-script half of Server,
// without subagents: no such client's subagents are driven by the tests.
type script struct {
	mu        sync.Mutex
	turns     []Turn
	next      int
	exhausted bool
	requests  []Request
	calls     int
}

// play returns the turn that answers a main-loop request and records the
// request with its index. When the script ran out it answers final, as
// Server does with "Done.", and remembers that it did.
func (s *script) play(req Request, final string) Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	turn := Say(final)
	if s.next < len(s.turns) {
		turn, req.Turn = s.turns[s.next], s.next
		s.next++
	} else {
		s.exhausted = true
	}
	s.requests = append(s.requests, req)
	if turn.From != nil {
		turn = turn.From(req)
	}
	return turn
}

func (s *script) record(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
}

// callID numbers the tool calls of a run, as the real APIs' ids do.
func (s *script) callID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	return s.calls
}

func (s *script) all() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *script) of(kind string) []Request {
	var out []Request
	for _, r := range s.all() {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

func (s *script) ranOut() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exhausted
}

// answer records a request of the API itself and returns the turn that
// answers it. One that offers tools is the agent's main loop and gets the
// next scripted turn; one without tools is a side call (a title, a check)
// and gets side, the script kept for the main loop.
func (s *script) answer(req Request, offersTools bool, side string) Turn {
	if !offersTools {
		req.Kind = "side"
		s.record(req)
		return Say(side)
	}
	req.Kind = "main"
	return s.play(req, "Done.")
}

// scripted is the server plumbing the OpenAI stand-ins share: the server
// on 127.0.0.1, the script it plays, and the answer to every request that
// is not a POST to the API's one path.
type scripted struct {
	srv *httptest.Server
	script
}

// start serves api at POST path and plays main to the agent. The clients
// ask for /v1/models and the like at start-up; such a request is recorded
// as "other" and gets an empty list, enough for them to go on.
func (s *scripted) start(main []Turn, path string, api func(w http.ResponseWriter, req Request)) {
	s.script = script{turns: main}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, hr *http.Request) {
		body, _ := io.ReadAll(hr.Body)
		req := Request{Path: hr.URL.Path, Body: body, Turn: -1}
		if hr.Method != http.MethodPost || hr.URL.Path != path {
			req.Kind = "other"
			s.record(req)
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"object":"list","data":[]}`)
			return
		}
		api(w, req)
	}))
}

// URL is the base URL for OPENAI_BASE_URL or a Codex model provider: it
// ends in /v1.
func (s *scripted) URL() string { return s.srv.URL + "/v1" }

// Close stops the server.
func (s *scripted) Close() { s.srv.Close() }

// Requests returns every request so far.
func (s *scripted) Requests() []Request { return s.all() }

// Of returns the recorded requests of one kind: "main", "side", "other".
func (s *scripted) Of(kind string) []Request { return s.of(kind) }

// Exhausted reports whether the script ran out and "Done." was given:
// the client kept the agent going longer than the test expected.
func (s *scripted) Exhausted() bool { return s.ranOut() }

// modelOr is the model a request named, or "fake-model" when it named
// none, for the answer's "model".
func modelOr(model string) string {
	if model == "" {
		return "fake-model"
	}
	return model
}

// eventStream begins a server-sent-events answer on w and returns what
// writes one event and flushes it: the clients read each as it comes.
func eventStream(w http.ResponseWriter) (send func(format string, args ...any)) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	flusher, _ := w.(http.Flusher)
	return func(format string, args ...any) {
		fmt.Fprintf(w, format, args...)
		if flusher != nil {
			flusher.Flush()
		}
	}
}
