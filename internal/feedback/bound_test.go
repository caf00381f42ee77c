package feedback_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/feedback"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
)

// issueOpen is the built-in wording of issue-open for issueParams.
const issueOpen = "GitHub issue #3 is still open. Finish the work it asks for, then close it (`gh issue close 3`)."

var issueParams = map[string]any{"Issue": 3, "Repo": ""}

// chain is a {{define}} chain of n templates, each calling the next
// twice: 2^n calls, none of them writing.
func chain(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{{define "d%d"}}{{template "d%d"}}{{template "d%d"}}{{end}}`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `{{define "d%d"}}{{end}}{{template "d0"}}`, n)
	return b.String()
}

// tenfold is a template that writes text 10^n times, through n
// templates each calling the next ten times (no range over a number: Go
// 1.22's text/template has none).
func tenfold(n int, text string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{{define "t%d"}}%s{{end}}`, n, text)
	for i := n - 1; i >= 0; i-- {
		fmt.Fprintf(&b, `{{define "t%d"}}%s{{end}}`, i, strings.Repeat(fmt.Sprintf(`{{template "t%d"}}`, i+1), 10))
	}
	return b.String() + `{{template "t0"}}`
}

// TestLoadRefusesUnboundedTemplates: a template that would recurse for
// ever (the stack overflow killed the hook with exit 2), nest deeper than
// the bound, or run a number of actions known at load to be huge is a
// config error naming the file and what is wrong.
func TestLoadRefusesUnboundedTemplates(t *testing.T) {
	withs := strings.Repeat("{{with .}}", 10) + `{{template "x" .}}` + strings.Repeat("{{end}}", 10)
	for _, tt := range []struct{ name, text, err string }{
		{"a template calling itself inside ten withs (issue 18)", `{{define "x"}}` + withs + `{{end}}{{template "x" .}}`,
			`{{template}} calls form a cycle: "x" -> "x"`},
		{"two templates calling each other", `{{define "a"}}{{template "b" .}}{{end}}{{define "b"}}{{if .}}{{template "a" .}}{{end}}{{end}}{{template "a" .}}`,
			`{{template}} calls form a cycle: "a" -> "b" -> "a"`},
		{"a cycle nothing calls", `{{define "a"}}{{template "a"}}{{end}}x`, `{{template}} calls form a cycle: "a" -> "a"`},
		{"the file's own template called from a block", `{{block "b" .}}{{template "issue-open.tmpl" .}}{{end}}`,
			`{{template}} calls form a cycle: "issue-open.tmpl" -> "b" -> "issue-open.tmpl"`},
		{"actions nested 101 deep", strings.Repeat("{{if .}}", 101) + "x" + strings.Repeat("{{end}}", 101),
			`template "issue-open.tmpl" nests actions 101 deep, counting the templates it calls (at most 100)`},
		{"parentheses nested 101 deep", "{{" + strings.Repeat("(", 101) + ".Issue" + strings.Repeat(")", 101) + "}}",
			`template "issue-open.tmpl" nests actions`},
		{"nesting that adds up through calls", `{{define "a"}}` + strings.Repeat("{{with .}}", 60) + strings.Repeat("{{end}}", 60) + `{{end}}` +
			strings.Repeat("{{with .}}", 60) + `{{template "a" .}}` + strings.Repeat("{{end}}", 60), `nests actions 121 deep`},
		{"a range over 100000000000 (ran past 40 s)", "{{range 100000000000}}{{end}}x", `runs more than 1000000 actions`},
		{"ranges over numbers nested", "{{range 1000}}{{range 1000}}{{range 1000}}{{end}}{{end}}{{end}}x", `runs more than 1000000 actions`},
		{"a define chain of 2^40 calls (ran for minutes)", chain(40), `runs more than 1000000 actions`},
		{"deep nesting that would strain the parser", strings.Repeat("{{with .}}", 60_000) + strings.Repeat("{{end}}", 60_000), `nests actions`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, t.TempDir(), map[string]string{"issue-open.tmpl": tt.text})
			_, err := feedback.Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.Join(dir, "issue-open.tmpl")+": ")
			assert.Contains(t, err.Error(), tt.err)
		})
	}
	t.Run("bounded templates load", func(t *testing.T) {
		for _, text := range []string{
			`{{define "a"}}{{.Issue}}{{end}}{{define "b"}}{{template "a" .}}{{template "a" .}}{{end}}{{template "b" .}}`,
			"{{range 100}}{{range 999}}{{end}}{{end}}x", chain(18), strings.Repeat("{{with .}}", 99) + "x" + strings.Repeat("{{end}}", 99),
		} {
			dir := write(t, t.TempDir(), map[string]string{"issue-open.tmpl": text})
			_, err := feedback.Load(dir)
			assert.NoError(t, err, text)
		}
	})
}

// TestLoadRefusesIrregularFiles: a template file is read as every file
// donegate opens (internal/regular): a FIFO (which blocked every hook's
// read for ever) or a device behind a link is refused, naming the file.
func TestLoadRefusesIrregularFiles(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(t *testing.T, path string) error
		err  string
	}{
		{"a FIFO", func(t *testing.T, p string) error { fifotest.Make(t, p); return nil }, "not a regular file (a FIFO)"},
		{"a link to /dev/zero", func(_ *testing.T, p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (a character device)"},
		{"a link to /dev/null", func(_ *testing.T, p string) error { return os.Symlink("/dev/null", p) }, "not a regular file (a character device)"},
		{"over 1 MiB", func(_ *testing.T, p string) error { return os.WriteFile(p, make([]byte, 1<<20+1), 0o644) }, "larger than 1024 KiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.name, "/dev/") && runtime.GOOS == "windows" {
				t.Skip("no /dev on Windows")
			}
			dir := t.TempDir()
			path := filepath.Join(dir, "issue-open.tmpl")
			require.NoError(t, tt.make(t, path))
			_, err := feedback.Load(dir)
			require.EqualError(t, err, path+": "+tt.err)
		})
	}
}

// TestRenderFallsBackWhenUnbounded: a user's template that renders
// nothing, writes past the output bound, or is still running at its
// deadline gives way to the built-in wording, and the error names the
// file and why.
func TestRenderFallsBackWhenUnbounded(t *testing.T) {
	for _, tt := range []struct{ name, text, err string }{
		{"empty", "", "renders nothing"},
		{"blanks", " \n\t\n", "renders nothing"},
		{"a comment", "{{/* nothing */}}\n", "renders nothing"},
		{"nothing after a false if", "{{if false}}x{{end}}", "renders nothing"},
		{"600 KB of output (a 200 MB rendering took 720 MB)", tenfold(5, strings.Repeat("x", 6)), "renders more than 64 KiB"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, t.TempDir(), map[string]string{"issue-open.tmpl": tt.text})
			s, err := feedback.Load(dir)
			require.NoError(t, err)
			text, err := s.Render("issue-open", issueParams)
			assert.Equal(t, issueOpen, text)
			require.EqualError(t, err, filepath.Join(dir, "issue-open.tmpl")+": "+tt.err+"; the built-in template was used")
		})
	}
	t.Run("cut off at its deadline", func(t *testing.T) {
		// A range over a channel stands for a rendering that runs on
		// without writing (a range over a parameter's large number, or
		// ranges nested over lists): it blocks until the channel closes,
		// which the test does once the render has given up.
		dir := write(t, t.TempDir(), map[string]string{"issue-open.tmpl": "{{range .Wait}}{{end}}never"})
		s, err := feedback.Load(dir)
		require.NoError(t, err)
		wait := make(chan int)
		defer close(wait)
		params := map[string]any{"Issue": 3, "Repo": "", "Wait": wait}
		// A deadline already past: the budget is spent.
		text, err := s.RenderBy(time.Now().Add(-time.Second), "issue-open", params)
		assert.Equal(t, issueOpen, text)
		require.Error(t, err)
		assert.Regexp(t, `^`+regexpQuote(filepath.Join(dir, "issue-open.tmpl"))+`: was cut off: it did not finish within \S+ \(what was left of limits.budget, at most 2s\); the built-in template was used$`, err.Error())
	})
}

func regexpQuote(s string) string { return regexp.QuoteMeta(s) }
