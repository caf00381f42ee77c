package hookio_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/hookio"
)

var cutNote = regexp.MustCompile(`\n\[donegate: feedback cut, ([0-9,]+) characters not shown here\]\n`)

// splitAtNote returns what was kept before and after the cut note, and the
// number of characters the note says were cut.
func splitAtNote(t *testing.T, out string) (head, tail string, cut int) {
	t.Helper()
	loc := cutNote.FindStringSubmatchIndex(out)
	require.NotNil(t, loc, "no cut note in %q", out)
	require.Len(t, cutNote.FindAllStringIndex(out, -1), 1, "one note")
	n, err := strconv.Atoi(strings.ReplaceAll(out[loc[2]:loc[3]], ",", ""))
	require.NoError(t, err)
	return out[:loc[0]], out[loc[1]:], n
}

func numbered(n, width int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %03d %s\n", i, strings.Repeat("x", width))
	}
	return b.String()
}

// TestCleanTextCutsInTheMiddle: feedback over the bound keeps its head
// (what failed, what to do) and its tail (the end of the log), cut on line
// boundaries when there are lines, on rune boundaries otherwise, with a
// note that counts what is left out.
func TestCleanTextCutsInTheMiddle(t *testing.T) {
	msg := "The test command `go test ./...` failed with exit code 1. Fix the failures and run it again.\nLast 40 lines of output:\n"
	tests := []struct {
		name      string
		in        string
		headStart string // what the kept head starts with
		tailEnd   string // what the kept tail ends with
		wholeLine bool   // the cuts fall on line ends
	}{
		{"a test log", msg + numbered(40, 300) + "FAIL: TestCheckout\nFAIL\texample.com/shop\t0.1s", msg, "FAIL: TestCheckout\nFAIL\texample.com/shop\t0.1s", true},
		{"two-byte runes, no lines", strings.Repeat("é", hookio.MaxFeedbackRunes+500), "éé", "éé", false},
		{"four-byte runes, no lines", "start" + strings.Repeat("😀", 3*hookio.MaxFeedbackRunes) + "end", "start😀", "😀end", false},
		{"lines longer than half the head", msg + numbered(3, 6000) + "FAIL", msg, "FAIL", false},
		{"one rune over the bound", strings.Repeat("a", hookio.MaxFeedbackRunes) + "b", "aaa", "aab", false},
		{"escapes are removed before counting", strings.Repeat("\x1b[31mred\x1b[0m ", 2*hookio.MaxFeedbackRunes) + "FAIL", "red red", "red FAIL", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := hookio.CleanText(tt.in)
			require.True(t, utf8.ValidString(out))
			assert.LessOrEqual(t, utf8.RuneCountInString(out), hookio.MaxFeedbackRunes)
			assert.Equal(t, out, hookio.CleanText(out), "cleaning is idempotent")

			head, tail, cut := splitAtNote(t, out)
			assert.True(t, strings.HasPrefix(head, tt.headStart), "head %q", head[:min(len(head), 80)])
			assert.True(t, strings.HasSuffix(tail, tt.tailEnd), "tail %q", tail[max(0, len(tail)-80):])
			clean := hookio.StripANSI(tt.in)
			assert.Equal(t, utf8.RuneCountInString(clean), utf8.RuneCountInString(head)+cut+utf8.RuneCountInString(tail),
				"the note counts exactly what is not shown")
			assert.True(t, strings.HasPrefix(clean, head) && strings.HasSuffix(clean, tail), "kept parts are the text's own head and tail")
			if tt.wholeLine {
				assert.True(t, strings.HasPrefix(clean[len(head):], "\n"), "the head ends at a line end")
				assert.True(t, strings.HasSuffix(clean[:len(clean)-len(tail)], "\n"), "the tail starts at a line start")
			}
			assert.Greater(t, utf8.RuneCountInString(tail), utf8.RuneCountInString(head), "the end of a log gets more room than the start")
		})
	}
}

func TestCleanTextAtTheBound(t *testing.T) {
	exact := strings.Repeat("x", hookio.MaxFeedbackRunes)
	assert.Equal(t, exact, hookio.CleanText(exact), "text at the bound is not cut")
	exact = strings.Repeat("é", hookio.MaxFeedbackRunes-1) + "\n"
	assert.Equal(t, exact, hookio.CleanText(exact), "runes, not bytes, are counted")
	out := hookio.CleanText(strings.Repeat("x", 1_234_567))
	assert.Contains(t, out, "[donegate: feedback cut, 1,226,6")
}

// TestCleanTextCutHoldsAcrossShapes: around the bound and far above it,
// with lines of every width and runes of every size, the cut text stays
// within the bound, keeps the text's own head and tail, counts what it
// leaves out exactly, and is left alone by a second cleaning.
func TestCleanTextCutHoldsAcrossShapes(t *testing.T) {
	for _, r := range []string{"x", "é", "€", "😀"} {
		for _, width := range []int{0, 1, 79, 1999, 4000, 9000} {
			for _, n := range []int{hookio.MaxFeedbackRunes + 1, hookio.MaxFeedbackRunes + 37, 3 * hookio.MaxFeedbackRunes, 100_003} {
				var b strings.Builder
				for i := 0; b.Len() < n*len(r); i++ {
					b.WriteString(r)
					if width > 0 && i%width == width-1 {
						b.WriteByte('\n')
					}
				}
				in := string([]rune(b.String())[:n])
				out := hookio.CleanText(in)
				name := fmt.Sprintf("%s width %d, %d runes", r, width, n)
				require.LessOrEqual(t, utf8.RuneCountInString(out), hookio.MaxFeedbackRunes, name)
				require.Equal(t, out, hookio.CleanText(out), name)
				head, tail, cut := splitAtNote(t, out)
				require.Equal(t, n, utf8.RuneCountInString(head)+cut+utf8.RuneCountInString(tail), name)
				require.True(t, strings.HasPrefix(in, head) && strings.HasSuffix(in, tail), name)
			}
		}
	}
}
