package transcript_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/donegate/donegate/transcript"
)

// writeGeminiTurnChat writes about size bytes shaped like a Gemini CLI chat
// file: earlier turns (a prompt, shell calls and their results, written
// twice as the CLI writes them), then the current turn's prompt followed
// by tools tool rounds, each result 1.2 KB.
func writeGeminiTurnChat(b *testing.B, size, tools int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "session.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	out := strings.Repeat("ok pkg 0.1s\n", 100)
	round := func(i int) int {
		n, _ := fmt.Fprintf(w, `{"id":"g%d","type":"gemini","content":"","model":"gemini-2.5-pro"}`+"\n", i)
		m, _ := fmt.Fprintf(w, `{"id":"g%d","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[{"id":"c%d","name":"run_shell_command","args":{"command":"go test ./..."},"status":"success"}]}`+"\n", i, i)
		n += m
		m, _ = fmt.Fprintf(w, `{"id":"r%d","type":"user","content":[{"functionResponse":{"id":"c%d","name":"run_shell_command","response":{"output":%q}}}]}`+"\n", i, i, out)
		return n + m
	}
	n := 0
	for i := 0; n < size; i++ {
		if i%50 == 0 {
			m, _ := fmt.Fprintf(w, `{"id":"p%d","type":"user","content":[{"text":"Run the tests"}]}`+"\n", i)
			n += m
		}
		n += round(i)
	}
	fmt.Fprintln(w, `{"id":"now","type":"user","content":[{"text":"Run the tests"}]}`)
	for i := 0; i < tools; i++ {
		round(-i - 1)
	}
	fmt.Fprintln(w, `{"id":"last","type":"gemini","content":"Done."}`)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

func benchGeminiTurn(b *testing.B, size, tools int) {
	path := writeGeminiTurnChat(b, size, tools)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id, err := transcript.GeminiTurn(path, "Run the tests")
		if err != nil || id != "now" {
			b.Fatalf("id=%q err=%v", id, err)
		}
	}
}

// A turn's prompt is found where the turn began: the cost follows what the
// turn wrote (here 3 or 300 tool rounds), not the file's size.
func BenchmarkGeminiTurnSmall(b *testing.B)         { benchGeminiTurn(b, 300<<10, 3) }
func BenchmarkGeminiTurnLarge(b *testing.B)         { large(b); benchGeminiTurn(b, 256<<20, 3) }
func BenchmarkGeminiTurnLargeLongTurn(b *testing.B) { large(b); benchGeminiTurn(b, 256<<20, 300) }
