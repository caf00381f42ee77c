package fakeapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
)

// Gemini is a scripted stand-in for the Gemini API (generativelanguage,
// v1beta) as the Gemini CLI calls it when GOOGLE_GEMINI_BASE_URL points
// here. It serves POST /v1beta/models/<model>:streamGenerateContent as
// server-sent events (one `data:` chunk per answer, which the CLI 0.61.0
// accepts), :generateContent as one JSON answer and :countTokens, plays
// the same scripted Turns as the Messages stand-in to the agent's main
// loop, and records every request.
//
// A main-loop request is one that carries function declarations. Side
// calls (the CLI's next-speaker check, loop detection, routing) carry none
// and get a short text, or {} when they ask for JSON.
type Gemini struct {
	srv *httptest.Server
	script
}

// NewGemini starts a Gemini stand-in on 127.0.0.1 that plays main to the
// main agent loop.
func NewGemini(main ...Turn) *Gemini {
	g := &Gemini{script: script{turns: main}}
	g.srv = httptest.NewServer(http.HandlerFunc(g.handle))
	return g
}

// URL is the base URL to put in GOOGLE_GEMINI_BASE_URL: the API's paths
// begin /v1beta, not /v1 as the OpenAI stand-ins' (scripted) do.
func (g *Gemini) URL() string { return g.srv.URL }

// Close stops the server.
func (g *Gemini) Close() { g.srv.Close() }

// Requests returns every request so far.
func (g *Gemini) Requests() []Request { return g.all() }

// Of returns the recorded requests of one kind ("main", "side", "other").
func (g *Gemini) Of(kind string) []Request { return g.of(kind) }

// Exhausted reports whether the main script ran out and a default answer
// had to be given: a sign the hooks kept the agent going longer than the
// test expected.
func (g *Gemini) Exhausted() bool { return g.ranOut() }

// geminiRequest is the part of a GenerateContentRequest the stand-in reads.
type geminiRequest struct {
	Contents []geminiContent `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
	GenerationConfig struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text             string `json:"text,omitempty"`
	FunctionCall     any    `json:"functionCall,omitempty"`
	FunctionResponse *struct {
		Name     string         `json:"name"`
		Response map[string]any `json:"response"`
	} `json:"functionResponse,omitempty"`
}

func (g *Gemini) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Path: r.URL.Path, Body: body, Turn: -1}
	// The method is the part after the colon: models/<model>:<method>.
	_, method, _ := strings.Cut(r.URL.Path, ":")
	if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/v1beta/models/") {
		method = ""
	}
	switch method {
	case "streamGenerateContent", "generateContent":
	case "countTokens":
		req.Kind = "other"
		g.record(req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"totalTokens":100}`)
		return
	default:
		req.Kind = "other"
		g.record(req)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{}`)
		return
	}

	var parsed geminiRequest
	_ = json.Unmarshal(body, &parsed)
	declared := 0
	for _, t := range parsed.Tools {
		declared += len(t.FunctionDeclarations)
	}
	side := "ok"
	if parsed.GenerationConfig.ResponseMimeType == "application/json" {
		side = "{}"
	}
	parts := geminiParts(g.answer(req, declared > 0, side))

	answer := map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": parts},
			"finishReason": "STOP",
			"index":        0,
		}},
		"usageMetadata": map[string]int{"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
		"modelVersion":  "gemini-2.5-pro",
	}
	data, _ := json.Marshal(answer)
	if method == "generateContent" {
		w.Header().Set("Content-Type", "application/json")
		w.Write(data)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "data: %s\r\n\r\n", data)
}

// geminiParts renders a turn as a candidate's parts: its text, then one
// functionCall part per tool call.
func geminiParts(t Turn) []map[string]any {
	var parts []map[string]any
	if t.Text != "" || len(t.Tools) == 0 {
		parts = append(parts, map[string]any{"text": t.Text})
	}
	for _, c := range t.Tools {
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": c.Input}})
	}
	return parts
}

// GeminiText returns the text of a Gemini request's contents, one line per
// part: user and model text, and the output of function responses. last
// limits it to the last user content (what the CLI told the model last:
// a hook's reason, a tool's result).
func GeminiText(body []byte, last bool) string {
	var req geminiRequest
	if json.Unmarshal(body, &req) != nil {
		return ""
	}
	contents := req.Contents
	if last {
		contents = nil
		for i := len(req.Contents) - 1; i >= 0; i-- {
			if req.Contents[i].Role == "user" {
				contents = req.Contents[i : i+1]
				break
			}
		}
	}
	var lines []string
	for _, c := range contents {
		for _, p := range c.Parts {
			switch {
			case p.Text != "":
				lines = append(lines, p.Text)
			case p.FunctionResponse != nil:
				b, _ := json.Marshal(p.FunctionResponse.Response)
				lines = append(lines, string(b))
			}
		}
	}
	return strings.Join(lines, "\n")
}
