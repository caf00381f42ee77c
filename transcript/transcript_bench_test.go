package transcript_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/donegate/donegate/transcript"
)

// The large cases write 256 MiB; they run only when asked for:
// DONEGATE_BENCH_LARGE=1 go test -bench . ./transcript/
func large(b *testing.B) {
	if os.Getenv("DONEGATE_BENCH_LARGE") == "" {
		b.Skip("set DONEGATE_BENCH_LARGE=1 to write and read 256 MiB transcripts")
	}
}

// writeTranscript writes about size bytes shaped like Claude Code's
// transcript: tool calls and results, and api-request-blob lines of 64 KB
// to 1 MB holding stale TodoWrite copies; with todo set the agent's real
// latest TodoWrite stands a few lines before the end.
func writeTranscript(b *testing.B, size int, todo bool) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	todos := `{"todos":[{"content":"Write tests","status":"completed","activeForm":"W"},{"content":"Implement feature","status":"pending","activeForm":"I"}]}`
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 40000)
	n := 0
	for i := 0; n < size-4096; i++ {
		m, _ := fmt.Fprintf(w, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"go test ./..."}}]}}`+"\n", i)
		n += m
		m, _ = fmt.Fprintf(w, `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q}]}}`+"\n", i, strings.Repeat("ok pkg 0.1s\n", 100))
		n += m
		if i%3 == 0 {
			bs := []int{64 << 10, 256 << 10, 1 << 20}[(i/3)%3]
			m, _ = fmt.Fprintf(w, `{"type":"api-request-blob","message":{"role":"assistant","content":[{"type":"text","text":%q},{"type":"tool_use","name":"TodoWrite","input":%s}]}}`+"\n", pad[:bs], todos)
			n += m
		}
	}
	if todo {
		fmt.Fprintf(w, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","name":"TodoWrite","input":%s}]}}`+"\n", todos)
	}
	fmt.Fprintln(w, `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I am done."}]}}`)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

func benchRead(b *testing.B, size int, todo bool) {
	path := writeTranscript(b, size, todo)
	st, _ := os.Stat(path)
	if !todo {
		b.SetBytes(st.Size()) // the whole file is read
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, found, err := transcript.LatestTodoWrite(context.Background(), path, transcript.ReadOptions{SkipSidechain: true})
		if err != nil || found != todo {
			b.Fatalf("found=%v err=%v", found, err)
		}
	}
}

func BenchmarkLatestTodoWriteSmall(b *testing.B) { benchRead(b, 300<<10, true) }

func BenchmarkLatestTodoWriteLarge(b *testing.B) { large(b); benchRead(b, 256<<20, true) }

func BenchmarkLatestTodoWriteNone(b *testing.B) { large(b); benchRead(b, 256<<20, false) }

// benchReadTexts reads the agent's texts of a transcript of size bytes:
// whole (a phase checker's first stop in a long session) or, with tail,
// only its last line, from the offset a previous stop kept.
func benchReadTexts(b *testing.B, size int, tail bool) {
	path := writeTranscript(b, size, false)
	st, _ := os.Stat(path)
	var from transcript.Position
	if tail {
		// The position a previous stop kept, before the last line.
		last := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I am done."}]}}` + "\n"
		if err := os.Truncate(path, st.Size()-int64(len(last))); err != nil {
			b.Fatal(err)
		}
		var err error
		if from, _, err = transcript.ReadTexts(context.Background(), path, from, transcript.ReadOptions{SkipSidechain: true}, func(string) {}); err != nil {
			b.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.WriteString(last); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	b.SetBytes(st.Size() - from.Offset)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		next, restarted, err := transcript.ReadTexts(context.Background(), path, from, transcript.ReadOptions{SkipSidechain: true}, func(string) { n++ })
		if err != nil || n != 1 || next.Offset != st.Size() || restarted {
			b.Fatalf("texts=%d next=%d of %d restarted=%v err=%v", n, next.Offset, st.Size(), restarted, err)
		}
	}
}

func BenchmarkReadTextsSmall(b *testing.B) { benchReadTexts(b, 300<<10, false) }

func BenchmarkReadTextsLarge(b *testing.B) { large(b); benchReadTexts(b, 256<<20, false) }

func BenchmarkReadTextsLargeAppended(b *testing.B) { large(b); benchReadTexts(b, 256<<20, true) }

// BenchmarkReadTextsSmallAppended is the stop of a phase checker in a
// session it has followed: the kept position is checked (one read of
// TailBytes) and the line appended since is read.
func BenchmarkReadTextsSmallAppended(b *testing.B) { benchReadTexts(b, 300<<10, true) }
