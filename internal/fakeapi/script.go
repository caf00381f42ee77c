package fakeapi

import "sync"

// script plays scripted turns in order to the main loop of an agent and
// records every request, for the stand-ins of the OpenAI APIs (Codex CLI,
// Qwen Code). It is the main-script half of Server, without subagents:
// neither client's subagents are driven by the tests.
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
