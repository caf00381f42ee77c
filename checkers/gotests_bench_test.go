package checkers

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// BenchmarkGoTestsAt measures listing a commit's Go tests, the work a
// session's first passing stop adds before it is remembered by commit:
// this repository's own HEAD (about 200 test files, 1.5 MB), read from
// git and scanned, without the cache.
func BenchmarkGoTestsAt(b *testing.B) {
	c := &Context{ProjectDir: ".."}
	if _, err := os.Stat("../.git"); err != nil {
		b.Skip("not a git checkout")
	}
	for range b.N {
		at, err := goTestsAt(context.Background(), c, "HEAD", []string{"."})
		if err != nil || len(at) < 100 {
			b.Fatalf("got %d tests, %v", len(at), err)
		}
	}
}

// BenchmarkReadGoTestJSON measures turning a go test -json run's events
// back into text, per MB of events (the recorded run, repeated).
func BenchmarkReadGoTestJSON(b *testing.B) {
	one, err := os.ReadFile("testdata/gotest/run.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	events := bytes.Repeat(one, (1<<20)/len(one)+1)
	b.SetBytes(int64(len(events)))
	for range b.N {
		readGoTestJSON(events)
	}
}
