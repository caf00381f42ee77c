package turn_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/turn"
)

// recorded is the chat file Gemini CLI 0.61.0 wrote for one turn: the
// prompt, two denies (their reasons are user records whose displayContent
// shows the prompt), a continuation that ran tools, a third deny.
const recorded = "../../testdata/events/gemini/chat-write-todos.jsonl"

const promptRecord = "fdf25c91-fe51-4dcc-b3d2-6d5d9be30f68"

func TestGeminiPrompt(t *testing.T) {
	data, err := os.ReadFile(recorded)
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	again := `{"id":"second-prompt","timestamp":"2026-11-24T21:11:44.000Z","type":"user","content":[{"text":"Write DONE.txt"}]}` + "\n"
	set := `{"$set":{"messages":[{"id":"in-a-set","type":"user","content":[{"text":"Write DONE.txt"}]},{"id":"x","type":"gemini","content":"ok"}]}}` + "\n"
	tests := []struct {
		name, path, prompt, want string
	}{
		{"the turn's prompt, past denies and tool calls", write("chat.jsonl", string(data)), "Write DONE.txt", promptRecord},
		{"the same text again is a new turn", write("again.jsonl", string(data)+again), "Write DONE.txt", "second-prompt"},
		{"a deny's reason has a record of its own", write("deny.jsonl", string(data)), "Not done yet (deny 3).", "55daaecd-21b8-40d1-b7b4-ee086cdb18ed"},
		{"a prompt in a $set of the whole list", write("set.jsonl", string(data)+set), "Write DONE.txt", "in-a-set"},
		{"a prompt not in the file", write("other.jsonl", string(data)), "Something else", ""},
		{"no prompt", write("none.jsonl", string(data)), "", ""},
		{"no file", filepath.Join(dir, "missing.jsonl"), "Write DONE.txt", ""},
		{"no path", "", "Write DONE.txt", ""},
		{"a prompt with quotes and a newline", write("q.jsonl", `{"id":"q","type":"user","content":[{"text":"say \"hi\"\nthen <stop> & go"}]}`+"\n"), "say \"hi\"\nthen <stop> & go", "q"},
		{"only displayContent shows it", write("display.jsonl", `{"id":"r","type":"user","content":[{"text":"reason"}],"displayContent":[{"text":"Write DONE.txt"}]}`+"\n"), "Write DONE.txt", ""},
		{"a gemini record quoting the prompt", write("quote.jsonl", `{"id":"g","type":"gemini","content":[{"text":"Write DONE.txt"}]}`+"\n"), "Write DONE.txt", ""},
		{"a record nested too deep", write("deep.jsonl", `{"id":"d","type":"user","content":[{"text":"Write DONE.txt"}],"x":`+strings.Repeat("[", 600)+strings.Repeat("]", 600)+"}\n"), "Write DONE.txt", ""},
		{"a last line without a newline", write("nonl.jsonl", string(data)+strings.TrimSuffix(again, "\n")), "Write DONE.txt", "second-prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := turn.GeminiPrompt(tt.path, tt.prompt)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

// The prompt's record beyond Window from the end is not looked for: the
// cost of a stop stays bounded on a huge chat file.
func TestGeminiPromptWindow(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(p)
	require.NoError(t, err)
	_, err = f.WriteString(`{"id":"old","type":"user","content":[{"text":"Go"}]}` + "\n")
	require.NoError(t, err)
	filler := `{"id":"t","type":"gemini","content":"` + strings.Repeat("x", 1<<20) + `"}` + "\n"
	for range turn.Window>>20 + 1 {
		_, err = f.WriteString(filler)
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
	got, err := turn.GeminiPrompt(p, "Go")
	require.NoError(t, err)
	assert.Empty(t, got)

	// Near the end, across the boundary of two reads.
	f, err = os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"id":"new","type":"user","content":[{"text":"Go"}]}` + "\n" + filler)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	got, err = turn.GeminiPrompt(p, "Go")
	require.NoError(t, err)
	assert.Equal(t, "new", got)
}

// A FIFO at the chat's path is an error, never a blocking read.
func TestGeminiPromptNotRegular(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(p, 0o644))
	_, err := turn.GeminiPrompt(p, "Go")
	require.ErrorIs(t, err, regular.ErrNotRegular)
}
