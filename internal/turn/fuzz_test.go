package turn_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/donegate/donegate/internal/turn"
)

// FuzzGeminiPrompt: whatever a chat file holds, looking for the prompt's
// record never panics nor fails, and an id it gives names a record of the
// file whose content is that prompt.
func FuzzGeminiPrompt(f *testing.F) {
	if data, err := os.ReadFile(recorded); err == nil {
		f.Add(string(data), "Write DONE.txt")
	}
	f.Add(`{"id":"a","type":"user","content":[{"text":"x"}]}`+"\n", "x")
	f.Add(`{"$set":{"messages":[{"id":"b","type":"user","content":[{"text":"y"}]}]}}`, "y")
	f.Add(`{"text":"z"}`, "z")
	f.Fuzz(func(t *testing.T, chat, prompt string) {
		p := filepath.Join(t.TempDir(), "chat.jsonl")
		if err := os.WriteFile(p, []byte(chat), 0o644); err != nil {
			t.Fatal(err)
		}
		id, err := turn.GeminiPrompt(p, prompt)
		if err != nil {
			t.Fatal(err)
		}
		if id != "" && !strings.Contains(chat, id) {
			t.Fatalf("id %q is not in the file", id)
		}
	})
}
