package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/feedback"
)

// TestReusedFailureIsWordedAgain: a failure taken from the result cache is
// rendered from its stored pattern and parameters with the templates of
// the run that reuses it, not replayed as it was worded.
func TestReusedFailureIsWordedAgain(t *testing.T) {
	dir := gitRepo(t, nil)
	cacheDir := t.TempDir()
	check := checkers.Test{Command: "echo boom; exit 3", Timeout: 30 * time.Second, Cache: true}
	run := func(templates *feedback.Set) *checkers.Context {
		return &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, Budget: time.Minute, CacheDir: cacheDir, Templates: templates}
	}

	r, err := check.Check(context.Background(), run(nil))
	require.NoError(t, err)
	assert.Equal(t, "The test command `echo boom; exit 3` failed with exit code 3. Fix the failures and run it again.\nLast 40 lines of output:\nboom", r.Feedback)

	tmpl := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tmpl, "test-failed.tmpl"),
		[]byte("{{if eq .ExitCode 3}}Exit {{.ExitCode}}{{end}} from `{{.Command}}`: {{.Output}}\n"), 0o644))
	set, err := feedback.Load(tmpl)
	require.NoError(t, err)
	c := run(set)
	r, err = check.Check(context.Background(), c)
	require.NoError(t, err)
	assert.Equal(t, int64(1), c.Reused())
	assert.Equal(t, "test-failed", r.Pattern)
	assert.Regexp(t, "^Exit 3 from `echo boom; exit 3`: boom\n\\(donegate reused the result of the run at .*\\)$", r.Feedback)
	assert.NoError(t, c.TemplateError())
}

// TestTemplateErrorIsRecorded: a user template that fails to render gives
// way to the built-in one, and the Context records the file once, however
// many failures it failed to word, for the hook to print.
func TestTemplateErrorIsRecorded(t *testing.T) {
	tmpl := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tmpl, "files-missing.tmpl"), []byte("Missing: {{.Paths}}"), 0o644))
	set, err := feedback.Load(tmpl)
	require.NoError(t, err)
	c := &checkers.Context{ProjectDir: t.TempDir(), Templates: set}
	for range 2 {
		r, err := checkers.Files{Paths: []string{"a.md"}}.Check(context.Background(), c)
		require.NoError(t, err)
		assert.Equal(t, "Missing required files: a.md", r.Feedback)
	}
	require.EqualError(t, c.TemplateError(), "retry template "+filepath.Join(tmpl, "files-missing.tmpl")+
		`: line 1:11: executing "files-missing.tmpl" at <.Paths>: map has no entry for key "Paths"; the built-in template was used`)
	assert.NoError(t, (&checkers.Context{}).TemplateError())
}
