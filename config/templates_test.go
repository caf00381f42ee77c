package config_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/config"
)

// TestRetryTemplates: retry_templates names a directory relative to the
// config file (or under ~/), loaded with the config; a template that does
// not parse, or names no pattern, or a dir that is not there, leaves the
// built-in wording and a warning naming the file and the line: it never
// makes the config unusable (issue 27: a refused template disabled the
// whole gate).
func TestRetryTemplates(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.MkdirAll(filepath.Join(home, "tmpl"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, "tmpl", "test-failed.tmpl"), []byte("Home: {{.Command}}"), 0o644))

	for _, tt := range []struct {
		name  string
		dir   string            // retry_templates
		files map[string]string // under the config's dir
		want  string            // rendered test-failed, or the error with DIR for the config's dir
		err   bool
	}{
		{name: "relative to the config file", dir: "retry", files: map[string]string{"retry/test-failed.tmpl": "Fix `{{.Command}}`."}, want: "Fix `make`."},
		{name: "under the home", dir: "~/tmpl", want: "Home: make"},
		{name: "does not parse", dir: "retry", files: map[string]string{"retry/test-failed.tmpl": "a\n{{if .Command}}b\n"}, err: true,
			want: "retry_templates: DIR/retry/test-failed.tmpl: line 3: unexpected EOF; the built-in wording is used instead"},
		{name: "names no pattern", dir: "retry", files: map[string]string{"retry/test.tmpl": "x"}, err: true,
			want: `retry_templates: DIR/retry/test.tmpl: no failure pattern is called "test" (known: `},
		{name: "no such dir", dir: "nope", err: true,
			want: "retry_templates: DIR/nope: no such file or directory; the built-in wording is used instead"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range tt.files {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
			}
			path := filepath.Join(dir, "donegate.json")
			require.NoError(t, os.WriteFile(path, []byte(`{"retry_templates": "`+tt.dir+`"}`), 0o644))
			c, err := config.Load(path)
			want := strings.ReplaceAll(tt.want, "DIR", dir)
			if runtime.GOOS == "windows" {
				// Its separators, and its own words for a missing dir.
				want = strings.ReplaceAll(want, "/", `\`)
				want, _, _ = strings.Cut(want, ": no such file")
			}
			require.NoError(t, err)
			if tt.err {
				require.Len(t, c.Warnings, 1)
				assert.True(t, strings.HasPrefix(c.Warnings[0], want), c.Warnings[0])
				text, err := c.Templates.Render("test-failed", map[string]any{"Command": "make", "Output": "", "Stopped": "", "NotFound": false, "ExitCode": 1})
				require.NoError(t, err)
				assert.Contains(t, text, "The test command `make` failed", "the built-in wording stands in")
				return
			}
			assert.Empty(t, c.Warnings)
			text, err := c.Templates.Render("test-failed", map[string]any{"Command": "make"})
			require.NoError(t, err)
			assert.Equal(t, want, text)
		})
	}
	c := config.Default()
	assert.Nil(t, c.Templates, "the default config has the built-in templates alone")
}
