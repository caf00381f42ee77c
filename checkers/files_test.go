package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/internal/testsupport/linktest"
)

// escapeGlob escapes the metacharacters of filepath.Match in s, as a
// person writing an absolute pattern for such a path would.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// layout writes the files every case of TestFilesInAnyProjectDir looks
// for under dir, and the symbolic links, broken and looping, that must not
// count.
func layout(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"dist/report.html", "dist/[draft].txt", "a.txt", "../shared/notes.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	links := map[string]string{
		"dist/gone.pdf":  "nowhere.pdf", // broken
		"dist/live.png":  "report.html", // to a file: counts
		"dist/dead.png":  "nowhere.png", // broken, next to a live one
		"dist/loop-a.js": "loop-b.js",   // a loop
		"dist/loop-b.js": "loop-a.js",
		"dist/out":       "../nowhere", // a broken link where a directory should be
	}
	for name, target := range links {
		linktest.Symlink(t, target, filepath.Join(dir, name))
	}
}

// TestFilesInAnyProjectDir: only the configured path is a pattern. The
// project dir, whatever characters its name holds, is taken as it is.
func TestFilesInAnyProjectDir(t *testing.T) {
	// Each project dir is <temp>/<name>/app.
	names := []string{"client [acme]", "[", "]", "a*b", "what?", `back\slash`, "with space", `all [*?\] of them`}
	tests := []struct {
		name     string
		paths    func(dir string) []string
		complete bool
		feedback string
	}{
		{"plain path", func(string) []string { return []string{"dist/report.html"} }, true, "All 1 required file(s) exist."},
		{"glob", func(string) []string { return []string{"dist/*.html"} }, true, "All 1 required file(s) exist."},
		{"glob of a class", func(string) []string { return []string{"dist/report.[h]tml", "?.txt"} }, true, "All 2 required file(s) exist."},
		{"glob with an escaped bracket", func(string) []string { return []string{`dist/\[draft\].*`} }, true, "All 1 required file(s) exist."},
		{"glob of a directory", func(string) []string { return []string{"d*"} }, true, "All 1 required file(s) exist."},
		{"glob starting with ./", func(string) []string { return []string{"./dist/*.html"} }, true, "All 1 required file(s) exist."},
		{"glob outside the project dir", func(string) []string { return []string{"../shared/*.txt"} }, true, "All 1 required file(s) exist."},
		{"glob through a symbolic link to a file", func(string) []string { return []string{"dist/*.png"} }, true, "All 1 required file(s) exist."},
		// An absolute path is a pattern as a whole when it holds * ? or [:
		// a person writes such a dir escaped.
		{"absolute path", func(dir string) []string {
			if strings.ContainsAny(dir, "*?[") {
				return []string{escapeGlob(filepath.Join(dir, "a.txt"))}
			}
			return []string{filepath.Join(dir, "a.txt")}
		}, true, "All 1 required file(s) exist."},
		{"absolute glob, its dir escaped", func(dir string) []string { return []string{escapeGlob(dir) + "/dist/*.html"} }, true, "All 1 required file(s) exist."},
		{"glob without a match", func(string) []string { return []string{"dist/*.rst"} }, false, "Missing required files: dist/*.rst"},
		{"glob in a directory that does not exist", func(string) []string { return []string{"build/*.html"} }, false, "Missing required files: build/*.html"},
		{"plain broken symbolic link", func(string) []string { return []string{"dist/gone.pdf"} }, false, "Missing required files: dist/gone.pdf (a broken symlink)"},
		{"glob matching only a broken symbolic link", func(string) []string { return []string{"dist/*.pdf"} }, false, "Missing required files: dist/*.pdf (matches only dist/gone.pdf, a broken symlink)"},
		{"plain symbolic link loop", func(string) []string { return []string{"dist/loop-a.js"} }, false, "Missing required files: dist/loop-a.js (a symlink loop)"},
		{"glob matching only a loop", func(string) []string { return []string{"dist/*.js"} }, false,
			"Missing required files: dist/*.js (matches only dist/loop-a.js, a symlink loop; dist/loop-b.js, a symlink loop)"},
		{"glob below a broken symbolic link", func(string) []string { return []string{"dist/out/*.html"} }, false, "Missing required files: dist/out/*.html"},
		{"below a file", func(string) []string { return []string{"a.txt/x", "a.txt/*"} }, false, "Missing required files: a.txt/x, a.txt/*"},
	}
	for _, name := range names {
		dir := filepath.Join(t.TempDir(), name, "app")
		layout(t, dir)
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				r, err := checkers.Files{Paths: tt.paths(dir)}.Check(context.Background(), &checkers.Context{ProjectDir: dir})
				require.NoError(t, err)
				assertSaid(t, checkers.Result{Complete: tt.complete, Feedback: tt.feedback}, "files-missing", r)
			})
		}
	}
}

// TestFilesBadPatternIsAnError: a pattern that cannot compile is refused
// when the config is loaded; should one reach the checker, it says which.
func TestFilesBadPatternIsAnError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "client [acme]")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "dist"), 0o755))
	for _, p := range []string{"dist/[", "[unclosed", "/abs/[x"} {
		t.Run(p, func(t *testing.T) {
			_, err := checkers.Files{Paths: []string{p}}.Check(context.Background(), &checkers.Context{ProjectDir: dir})
			require.Error(t, err)
			assert.Contains(t, err.Error(), `files: pattern "`+p+`": syntax error in pattern`)
		})
	}
}
