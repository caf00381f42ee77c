package transcript

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
)

// The chat file Gemini CLI 0.61.0 wrote for "Write DONE.txt" denied three
// times, the third continuation having run write_todos and a shell
// command (e2e/gemini_test.go records it).
const recordedChat = "../testdata/events/gemini/chat-write-todos.jsonl"

func TestGeminiTurn(t *testing.T) {
	user := func(id string, texts ...string) string {
		var parts []string
		for _, s := range texts {
			parts = append(parts, `{"text":`+jsonQuote(s)+`}`)
		}
		return `{"id":"` + id + `","timestamp":"2026-11-24T21:11:41.084Z","type":"user","content":[` + strings.Join(parts, ",") + `]}`
	}
	const set = `{"$set":{"lastUpdated":"2026-11-24T21:11:41.084Z"}}`
	gemini := func(id, text string) string {
		return `{"id":"` + id + `","type":"gemini","content":` + jsonQuote(text) + `}`
	}
	tool := func(id string) string {
		return `{"id":"` + id + `","type":"user","content":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"Write DONE.txt"}}}]}`
	}
	for _, tt := range []struct {
		name   string
		lines  []string // nil: no file; the recorded chat with recorded set
		record bool
		prompt string
		want   string
	}{
		{name: "the recorded turn: denied, continued, a tool run, denied again", record: true, prompt: "Write DONE.txt", want: "fdf25c91-fe51-4dcc-b3d2-6d5d9be30f68"},
		{name: "the recorded chat, another prompt", record: true, prompt: "Write DONE", want: ""},
		{name: "a deny's reason and a tool's result start no turn", prompt: "Do it",
			lines: []string{user("u1", "Do it"), set, gemini("g1", "Done."), user("u2", "Missing required files: never.txt"), gemini("g2", ""), tool("u3"), gemini("g3", "Done!")}, want: "u1"},
		{name: "the same prompt again is a new turn", prompt: "Do it",
			lines: []string{user("u1", "Do it"), gemini("g1", "Done."), user("u2", "Not yet."), user("u3", "Do it"), gemini("g3", "Done.")}, want: "u3"},
		{name: "a BeforeAgent hook's context after the prompt", prompt: "Do it",
			lines: []string{user("u1", "Do it", "<hook_context>criteria</hook_context>"), user("u2", "Not yet.", "<hook_context>criteria</hook_context>")}, want: "u1"},
		{name: "a SessionStart hook's context is in the prompt", prompt: "<hook_context>C</hook_context>\n\nDo it",
			lines: []string{user("u1", "<hook_context>C</hook_context>\n\nDo it")}, want: "u1"},
		{name: "a prompt of several parts, joined", prompt: "Read a.go and fix it",
			lines: []string{user("u1", "Read a.go", " and fix it")}, want: "u1"},
		{name: "a longer prompt that begins with it is another", prompt: "Do it",
			lines: []string{user("u1", "Do it"), user("u2", "Do it now")}, want: "u1"},
		{name: "a message list set again", prompt: "Do it",
			lines: []string{`{"$set":{"messages":[` + user("u0", "Other") + `,` + user("u1", "Do it") + `,` + gemini("g1", "Done.") + `]}}`}, want: "u1"},
		{name: "a model message of the prompt's text", prompt: "Do it",
			lines: []string{user("u1", "Do it"), `{"id":"g1","type":"gemini","content":[{"text":"Do it"}],"note":"\"type\":\"user\""}`}, want: "u1"},
		{name: "a broken line is passed over", prompt: "Do it",
			lines: []string{user("u1", "Do it"), `{"id":"u2","type":"user","content":[{"text":"Do it"}`}, want: "u1"},
		// Issue 29: a record of another shape was not found, and an older
		// record of the same text gave the new prompt its spent count.
		{name: "a new prompt's record with an image first", prompt: "Fix this",
			lines: []string{user("u1", "Fix this"), gemini("g1", "Done."), `{"id":"u2","timestamp":"t","type":"user","content":[{"inlineData":{"mimeType":"image/png","data":"AAAA"}},{"text":"Fix this"}]}`}, want: "u2"},
		{name: "a new prompt's record with its keys in another order", prompt: "Fix this",
			lines: []string{user("u1", "Fix this"), gemini("g1", "Done."), `{"content":[{"text":"Fix this"}],"type":"user","id":"u2"}`}, want: "u2"},
		{name: "a prompt that names functionResponse is a prompt", prompt: `Why is "functionResponse" empty?`,
			lines: []string{user("u1", `Why is "functionResponse" empty?`), tool("u2")}, want: "u1"},
		{name: "no prompt", prompt: "", lines: []string{user("u1", "")}, want: ""},
		{name: "no file", prompt: "Do it", want: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "session.jsonl")
			switch {
			case tt.record:
				path = recordedChat
			case tt.lines != nil:
				require.NoError(t, os.WriteFile(path, []byte(strings.Join(tt.lines, "\n")+"\n"), 0o600))
			}
			got, err := GeminiTurn(path, tt.prompt)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// Records that straddle many reads are found whole.
func TestGeminiTurnAcrossReads(t *testing.T) {
	old, oldStep := blockSize, firstStep
	blockSize, firstStep = 64, 16
	t.Cleanup(func() { blockSize, firstStep = old, oldStep })
	got, err := GeminiTurn(recordedChat, "Write DONE.txt")
	require.NoError(t, err)
	assert.Equal(t, "fdf25c91-fe51-4dcc-b3d2-6d5d9be30f68", got)
}

// A FIFO or a directory is refused without blocking: the hook cannot
// tell the turn, which the caller must not take for a new one silently.
func TestGeminiTurnRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	fifotest.Make(t, fifo)
	for _, path := range []string{fifo, dir} {
		_, err := GeminiTurn(path, "Do it")
		require.ErrorIs(t, err, regular.ErrNotRegular, path)
		assert.Contains(t, err.Error(), path)
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The prompt's record further than GeminiTurnWindow from the end is not
// looked for: a stop's search stays bounded on a huge chat file.
func TestGeminiTurnWindow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "chat.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	write := func(s string) {
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"id":"old","type":"user","content":[{"text":"Go"}]}` + "\n")
	filler := `{"id":"t","type":"gemini","content":"` + strings.Repeat("x", 1<<20) + `"}` + "\n"
	for range GeminiTurnWindow>>20 + 1 {
		write(filler)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if id, err := GeminiTurn(p, "Go"); err != nil || id != "" {
		t.Fatalf("beyond the window: got %q, %v; want none", id, err)
	}
	f, err = os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	write(`{"id":"new","type":"user","content":[{"text":"Go"}]}` + "\n" + filler)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if id, err := GeminiTurn(p, "Go"); err != nil || id != "new" {
		t.Fatalf("within the window: got %q, %v; want new", id, err)
	}
}
