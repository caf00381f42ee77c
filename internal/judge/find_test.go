package judge

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/proc"
)

// pathologicalReplies are judge replies that made FindJSON quadratic: it
// decoded from every '{', and each decoding read to the end of the text
// (issue 18: `{"a":` × 50,000 took 40 s, × 200,000 169 s).
var pathologicalReplies = []struct {
	name string
	unit string // repeated
}{
	{"nesting that never closes", `{"a":`},
	{"bare braces", `{`},
	{"braces in an unclosed string", `{"a":"{`},
	{"objects that are not answers", `{}`},
	{"answers that are malformed", `{"checklist":[]} `},
	{"fences of braces", "```\n{\n```\n"},
}

// FindJSON's work is linear in the reply: what it allocates (each decoding
// of a candidate buffers what it reads) stays within a constant times the
// reply's size, and it hands at most maxCandidates candidates to decode.
// Measured, not timed: on the old code `{"a":` × 5,000 allocated over a
// hundred times the reply's size.
func TestFindJSONWorkIsLinear(t *testing.T) {
	for _, tt := range pathologicalReplies {
		for _, n := range []int{5_000, 20_000} {
			t.Run(fmt.Sprintf("%s × %d", tt.name, n), func(t *testing.T) {
				text := "Verdict: " + strings.Repeat(tt.unit, n)
				var decoded, calls int
				count := func(data []byte, v any) error {
					calls++
					decoded += len(data)
					return decodeAnswer(data, v)
				}
				var a Answer
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				err := FindJSON(text, &a, count)
				runtime.ReadMemStats(&after)
				require.Error(t, err, "no answer is in the reply")
				allocated := after.TotalAlloc - before.TotalAlloc
				assert.LessOrEqual(t, allocated, uint64(32*len(text)+1<<20), "bytes allocated for a reply of %d bytes", len(text))
				assert.LessOrEqual(t, calls, maxCandidates, "candidates decoded")
				assert.LessOrEqual(t, decoded, 3*len(text), "bytes decoded")
			})
		}
	}
}

// A judge whose result text is `{"a":` × 200,000 (1 MB) gives no verdict.
func TestAskPathologicalReplyIsNoVerdict(t *testing.T) {
	text := strings.Repeat(`{"a":`, 200_000)
	run := func(ctx context.Context, cmd proc.Command) (proc.Outcome, error) {
		out := fmt.Sprintf(`{"type":"result","subtype":"success","is_error":false,"result":%q}`, text)
		return proc.Outcome{Stdout: []byte(out)}, nil
	}
	// Bin is a program that exists everywhere: the run is the stand-in.
	ans, err := Ask(context.Background(), run, Claude{Bin: os.Args[0], Dir: t.TempDir()}, Question{Criteria: "1. it builds"})
	require.NoError(t, err)
	assert.False(t, ans.AllComplete)
	assert.Empty(t, ans.Checklist)
	assert.Contains(t, ans.Reason, "the judge's answer cannot be used: ")
}

// BenchmarkFindJSON shows FindJSON linear in the reply: each size is four
// times the one before, and so should its time be.
func BenchmarkFindJSON(b *testing.B) {
	for _, tt := range pathologicalReplies {
		for _, n := range []int{50_000, 200_000} {
			b.Run(fmt.Sprintf("%s×%d", strings.ReplaceAll(tt.name, " ", "_"), n), func(b *testing.B) {
				text := strings.Repeat(tt.unit, n)
				b.SetBytes(int64(len(text)))
				for range b.N {
					var a Answer
					_ = FindJSON(text, &a, decodeAnswer)
				}
			})
		}
	}
}
