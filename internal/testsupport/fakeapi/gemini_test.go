package fakeapi_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// A main-loop request as the Gemini CLI 0.61.0 sends it (shortened): the
// prompt, a model turn, a function response, and declared tools.
const geminiMainRequest = `{"contents":[
 {"role":"user","parts":[{"text":"<session_context>...</session_context>"},{"text":"Write DONE.txt"}]},
 {"role":"model","parts":[{"functionCall":{"name":"run_shell_command","args":{"command":"true"}}}]},
 {"role":"user","parts":[{"functionResponse":{"name":"run_shell_command","response":{"output":"(empty)"}}}]},
 {"role":"model","parts":[{"text":"First answer."}]},
 {"role":"user","parts":[{"text":"Not done yet."}]}],
 "tools":[{"functionDeclarations":[{"name":"write_todos"},{"name":"run_shell_command"}]}],
 "generationConfig":{"temperature":1}}`

func postGemini(t *testing.T, g *fakeapi.Gemini, path, body string) (string, []byte) {
	t.Helper()
	resp, err := http.Post(g.URL()+path, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.Header.Get("Content-Type"), data
}

// sseParts reads the one data chunk of a streamed answer and returns its
// candidate's parts.
func sseParts(t *testing.T, stream []byte) []map[string]any {
	t.Helper()
	var chunks []string
	sc := bufio.NewScanner(strings.NewReader(string(stream)))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(strings.TrimRight(sc.Text(), "\r"), "data: "); ok {
			chunks = append(chunks, data)
		}
	}
	require.Len(t, chunks, 1, "%s", stream)
	return answerParts(t, []byte(chunks[0]))
}

func answerParts(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	var answer struct {
		Candidates []struct {
			Content struct {
				Role  string           `json:"role"`
				Parts []map[string]any `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
	}
	require.NoError(t, json.Unmarshal(data, &answer), "%s", data)
	require.Len(t, answer.Candidates, 1)
	assert.Equal(t, "model", answer.Candidates[0].Content.Role)
	assert.Equal(t, "STOP", answer.Candidates[0].FinishReason)
	return answer.Candidates[0].Content.Parts
}

func TestGeminiPlaysTheScriptToTheMainLoop(t *testing.T) {
	todos := map[string]any{"todos": []any{map[string]any{"description": "Write DONE.txt", "status": "pending"}}}
	g := fakeapi.NewGemini(fakeapi.Say("Hello."), fakeapi.Call("write_todos", todos))
	defer g.Close()
	const stream = "/v1beta/models/gemini-2.5-pro:streamGenerateContent"

	kind, data := postGemini(t, g, stream+"?alt=sse", geminiMainRequest)
	assert.Equal(t, "text/event-stream", kind)
	assert.Equal(t, []map[string]any{{"text": "Hello."}}, sseParts(t, data))

	_, data = postGemini(t, g, stream+"?alt=sse", geminiMainRequest)
	assert.Equal(t, []map[string]any{{"functionCall": map[string]any{"name": "write_todos", "args": map[string]any{
		"todos": []any{map[string]any{"description": "Write DONE.txt", "status": "pending"}}}}}}, sseParts(t, data))
	assert.False(t, g.Exhausted())

	// Past the script: a default text, and Exhausted says so.
	_, data = postGemini(t, g, stream+"?alt=sse", geminiMainRequest)
	assert.Equal(t, []map[string]any{{"text": "Done."}}, sseParts(t, data))
	assert.True(t, g.Exhausted())

	main := g.Of("main")
	require.Len(t, main, 3)
	assert.Equal(t, []int{0, 1, -1}, []int{main[0].Turn, main[1].Turn, main[2].Turn})
	assert.Equal(t, "/v1beta/models/gemini-2.5-pro:streamGenerateContent", main[0].Path)
}

func TestGeminiAnswersSideCallsWithoutTakingATurn(t *testing.T) {
	g := fakeapi.NewGemini(fakeapi.Say("The only turn."))
	defer g.Close()

	kind, data := postGemini(t, g, "/v1beta/models/gemini-2.5-flash:generateContent",
		`{"contents":[{"role":"user","parts":[{"text":"who speaks next?"}]}],"generationConfig":{"responseMimeType":"application/json"}}`)
	assert.Equal(t, "application/json", kind)
	assert.Equal(t, []map[string]any{{"text": "{}"}}, answerParts(t, data))

	_, data = postGemini(t, g, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
		`{"contents":[{"role":"user","parts":[{"text":"a title"}]}]}`)
	assert.Equal(t, []map[string]any{{"text": "ok"}}, sseParts(t, data))

	_, data = postGemini(t, g, "/v1beta/models/gemini-2.5-pro:countTokens", `{}`)
	assert.JSONEq(t, `{"totalTokens":100}`, string(data))
	_, data = postGemini(t, g, "/v1beta/somewhere/else", `{}`)
	assert.JSONEq(t, `{}`, string(data))

	assert.Len(t, g.Of("side"), 2)
	assert.Len(t, g.Of("other"), 2)
	assert.Empty(t, g.Of("main"))

	// The script is still whole for the main loop.
	_, data = postGemini(t, g, "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", geminiMainRequest)
	assert.Equal(t, []map[string]any{{"text": "The only turn."}}, sseParts(t, data))
}

func TestGeminiText(t *testing.T) {
	for _, tt := range []struct {
		name string
		body string
		last bool
		want string
	}{
		{"every content", geminiMainRequest, false,
			"<session_context>...</session_context>\nWrite DONE.txt\n{\"output\":\"(empty)\"}\nFirst answer.\nNot done yet."},
		{"the last user content", geminiMainRequest, true, "Not done yet."},
		{"not JSON", `{"contents":`, false, ""},
		{"no user content", `{"contents":[{"role":"model","parts":[{"text":"hi"}]}]}`, true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, fakeapi.GeminiText([]byte(tt.body), tt.last))
		})
	}
}
