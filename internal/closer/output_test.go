package closer

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Long evidence keeps its head and its tail, and says what was cut: with
// the last 15 lines only, a failing TypeScript assertion went under five
// `npm notice` lines, and the sentence saying what failed went too.
func TestItemKeepsTheHeadAndTheTailOfLongEvidence(t *testing.T) {
	var log strings.Builder
	log.WriteString("The test command `npm test` failed with exit code 1. Fix the failures and run it again.\nLast 40 lines of output:\n")
	for i := range 30 {
		fmt.Fprintf(&log, "  ✓ passes case %d of the parser suite (3 ms)\n", i)
	}
	log.WriteString("AssertionError: expected 'v2' to equal 'v1'\n")
	for i := range 12 {
		fmt.Fprintf(&log, "    at step%d (test/v.ts:%d)\n", i, i)
	}
	for i := range 5 {
		fmt.Fprintf(&log, "npm notice New minor version of npm available! 10.%d.0 -> 10.9.0\n", i)
	}
	var out bytes.Buffer
	p := &printer{w: &out}
	p.item(false, "test", log.String())
	require.NoError(t, p.err)

	got := out.String()
	assert.Contains(t, got, "The test command `npm test` failed with exit code 1", "the head")
	assert.Contains(t, got, "AssertionError: expected 'v2' to equal 'v1'", "the assertion, above the notices")
	assert.Contains(t, got, "npm notice New minor version of npm available! 10.4.0", "the tail")
	assert.Regexp(t, `\[donegate: feedback cut, [0-9,]+ characters not shown here\]`, got)
	assert.Contains(t, got, "(--json shows all of it)")
	assert.Less(t, len([]rune(got)), maxEvidenceRunes+200, "still bounded")
}

// Short evidence is shown whole, with nothing said about cuts.
func TestItemShowsShortEvidenceWhole(t *testing.T) {
	var out bytes.Buffer
	p := &printer{w: &out}
	p.item(true, "plan", "All 3 task(s) in the todo list are completed.")
	assert.Equal(t, "✓ plan\n    All 3 task(s) in the todo list are completed.\n", out.String())
}
