package checkers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The failure line survives the noise after it (issue 27): before, the
// last 40 lines were kept, and a FAIL followed by 40 lines of npm notices
// or of go test's ok lines was cut from what the agent was told.
func TestOutputExcerptKeepsTheFailures(t *testing.T) {
	var npm strings.Builder
	npm.WriteString("> shop@1.0.0 test\n> jest\n\n")
	npm.WriteString("FAIL src/checkout.test.js\n  ● checkout › totals\n\n    expect(received).toBe(expected)\n\n    Expected: 30\n    Received: 25\n")
	for i := range 45 {
		fmt.Fprintf(&npm, "npm notice line %d\n", i)
	}
	var gotest strings.Builder
	gotest.WriteString("--- FAIL: TestCheckout (0.00s)\n    checkout_test.go:12: total = 25, want 30\nFAIL\nFAIL\texample.com/shop/checkout\t0.004s\n")
	for i := range 60 {
		fmt.Fprintf(&gotest, "ok  \texample.com/shop/pkg%d\t0.01%ds\n", i, i%10)
	}
	for _, tt := range []struct {
		name string
		out  string
		want []string
	}{
		{"npm notices after jest's failure", npm.String(), []string{"FAIL src/checkout.test.js", "● checkout › totals", "Expected: 30", "Received: 25", "npm notice line 44", "> shop@1.0.0 test"}},
		{"go test's ok lines after the failing package", gotest.String(), []string{"--- FAIL: TestCheckout (0.00s)", "checkout_test.go:12: total = 25, want 30", "FAIL\texample.com/shop/checkout", "ok  \texample.com/shop/pkg59"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, cut, total := outputExcerpt([]byte(tt.out), tailLines)
			lines := strings.Split(text, "\n")
			assert.LessOrEqual(t, len(lines), tailLines+4, "at most 40 lines and the cut marks")
			for _, w := range tt.want {
				assert.Contains(t, text, w)
			}
			assert.Greater(t, cut, 0)
			assert.Equal(t, strings.Count(strings.TrimRight(tt.out, "\n"), "\n")+1, total)
			assert.Contains(t, text, "lines not shown …]")
			shown := 0
			for _, l := range lines {
				if !strings.HasPrefix(l, "[… ") {
					shown++
				}
			}
			assert.Equal(t, total-cut, shown, "the marks count what they leave out")
		})
	}
	// Short output is told whole, as it was.
	text, cut, total := outputExcerpt([]byte("\x1b[31mFAIL\x1b[0m x\nline 2\n"), tailLines)
	assert.Equal(t, "FAIL x\nline 2", text)
	assert.Zero(t, cut)
	assert.Equal(t, 2, total)
}

// Windows programs end lines with CRLF (cmd's echo, every .cmd script):
// the last line's \r was taken for a progress bar's redraw, and the
// agent was told the command printed nothing (measured under Wine with
// the Windows stop-hook.exe).
func TestOutputExcerptReadsCRLF(t *testing.T) {
	for _, out := range []string{"2 tests failed: TestExport\r\n", "ok 1\r\nFAIL TestExport\r\n", "FAIL TestExport\r\n\r\n"} {
		text, _, _ := outputExcerpt([]byte(out), tailLines)
		assert.Contains(t, text, "TestExport", "%q", out)
		assert.NotContains(t, text, "\r", "%q", out)
		assert.Contains(t, lastLines([]byte(out), 5), "TestExport", "%q", out)
	}
	// A progress bar's redraws are still resolved to what was drawn last.
	text, _, _ := outputExcerpt([]byte("10%\r50%\r100%\r\ndone\r\n"), tailLines)
	assert.Equal(t, "100%\ndone", text)
}
