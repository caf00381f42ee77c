package docgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README is a front door: short, with the test command CI's checks
// look for, and a way into every page of the manual.
func TestReadmeIsAFrontDoor(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.LessOrEqual(t, strings.Count(string(readme), "\n"), 300, "README.md is over 300 lines: move the detail into docs/")
	assert.Contains(t, string(readme), "make test")
	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	require.NotEmpty(t, pages)
	for _, p := range pages {
		assert.Contains(t, string(readme), "](docs/"+filepath.Base(p)+")", "README.md does not link %s", filepath.Base(p))
	}
}

// TestLinksResolve: every relative link of the README and the manual
// names a file that exists and, with a #fragment into a Markdown page, a
// heading of that page (as GitHub derives its anchor).
func TestLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	require.NoError(t, err)
	pages = append(pages, "../../README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, page := range pages {
		doc, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(outsideCode(string(doc)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(file))
			}
			if !assert.FileExists(t, dest, "%s links %s", page, target) || frag == "" {
				continue
			}
			b, err := os.ReadFile(dest)
			require.NoError(t, err)
			assert.Contains(t, anchors(string(b)), frag, "%s links %s: no such heading", page, target)
		}
	}
}

// outsideCode is doc without its fenced code blocks, where a "](" is text.
func outsideCode(doc string) string {
	var b strings.Builder
	fenced := false
	for _, l := range strings.Split(doc, "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// anchors lists the anchors GitHub gives the headings of doc: lower case,
// punctuation dropped, spaces made hyphens.
func anchors(doc string) []string {
	var out []string
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	for _, l := range strings.Split(outsideCode(doc), "\n") {
		if h := strings.TrimLeft(l, "#"); h != l && strings.HasPrefix(h, " ") {
			out = append(out, strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-"))
		}
	}
	return out
}
