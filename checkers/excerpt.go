package checkers

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/donegate/donegate/hookio"
)

// A failing command's output is told to the agent as an excerpt of at
// most tailLines lines. Its last lines alone lost the line that says what
// failed whenever something chatty followed it: `npm notice` lines after
// jest's summary, go test's `ok` for every package after the one that
// failed. So an excerpt of a longer output keeps, in their order, its
// first excerptHead lines, every line that reports a failure (with the
// excerptAfter lines after it, where a runner puts the expected and the
// actual value), and its last lines, as many as fit; what it leaves out
// is marked where it was, with how many lines.
const (
	excerptHead  = 3
	excerptAfter = 2
	excerptTail  = 12
)

// failureLine matches a line that reports a failure, in the words of the
// common runners: go test's FAIL, --- FAIL and panic:, pytest's FAILED,
// E-lines and Traceback, jest's ● and ✕, mocha's failing, TAP's not ok,
// cargo's panicked at and error[E…], compilers' error:, assertion diffs.
var failureLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(\bFAIL(ED|URES?)?\b|\berror(\[E\d+\])?[:\]]|\bpanic(ked)?\b|^Traceback|\bAssertion(Error)?\b|\bexception\b|^E\s{2,}|^\s*[●✕✗✘×]\s|^not ok\b|\b\d+ failing\b|\bexpected\b.*\b(got|but|received|actual)\b|^\s*(Expected|Received|want|got):?\s)`)
})

// outputExcerpt returns at most n lines of out for the agent, colour codes
// removed and a progress bar's redraws resolved, and how many lines it
// left out of how many.
func outputExcerpt(out []byte, n int) (text string, cut, total int) {
	s := hookio.StripANSI(string(bytes.TrimRight(out, "\r\n")))
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		// A progress bar redraws with \r: keep what was last drawn.
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			lines[i] = l[j+1:]
		}
	}
	if len(lines) == 1 && lines[0] == "" {
		return "", 0, 0
	}
	if len(lines) <= n {
		return strings.TrimSpace(strings.Join(lines, "\n")), 0, len(lines)
	}
	keep := make([]bool, len(lines))
	budget := n
	mark := func(i int) {
		if !keep[i] && budget > 0 {
			keep[i] = true
			budget--
		}
	}
	for i := range excerptHead {
		mark(i)
	}
	// The failures, with room kept for the tail: the end of a run (the
	// summary, the exit) matters as much as they do.
	tailFrom := len(lines) - excerptTail
	budget -= excerptTail
	re := failureLine()
	for i := excerptHead; i < tailFrom && budget > 0; i++ {
		if re.MatchString(lines[i]) {
			for j := i; j <= i+excerptAfter && j < tailFrom; j++ {
				mark(j)
			}
		}
	}
	// The tail, and what room is left before it.
	budget += excerptTail
	for i := len(lines) - 1; i >= 0 && budget > 0; i-- {
		mark(i)
	}
	var b strings.Builder
	gap := 0
	flush := func() {
		if gap > 0 {
			fmt.Fprintf(&b, "[… %d %s not shown …]\n", gap, plural(gap, "line", "lines"))
			cut += gap
			gap = 0
		}
	}
	for i, l := range lines {
		if !keep[i] {
			gap++
			continue
		}
		flush()
		b.WriteString(l)
		b.WriteByte('\n')
	}
	flush()
	return strings.TrimSpace(b.String()), cut, len(lines)
}
