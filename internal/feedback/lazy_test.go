package feedback

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuiltinsParsedOnlyToRender: the built-in templates are parsed when
// a failure is first worded, not when the package starts nor when a
// user's templates are loaded: most hook runs word nothing. It runs in a
// process of its own, where nothing has rendered yet.
func TestBuiltinsParsedOnlyToRender(t *testing.T) {
	if os.Getenv("FEEDBACK_LAZY_CHILD") == "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestBuiltinsParsedOnlyToRender$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), "FEEDBACK_LAZY_CHILD=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		// A -test.run that matches nothing passes too: the child must have
		// run this test.
		require.Contains(t, string(out), "--- PASS: TestBuiltinsParsedOnlyToRender", "%s", out)
		return
	}
	require.False(t, builtinParsed.Load(), "parsed at start-up")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/git-dirty.tmpl", []byte("{{.Count}} files"), 0o644))
	s, err := Load(dir)
	require.NoError(t, err)
	text, err := s.Render("git-dirty", map[string]any{"Count": 2})
	require.NoError(t, err)
	assert.Equal(t, "2 files", text)
	assert.False(t, builtinParsed.Load(), "parsed by Load or by rendering a user's template")
	// An open plan, the most frequent block, is worded without parsing.
	text, err = s.Render("plan-incomplete", map[string]any{"Open": []string{"a"}, "Total": 1, "Source": "todo list", "Tool": ""})
	require.NoError(t, err)
	assert.Contains(t, text, "You have 1 incomplete task(s) out of 1.")
	assert.False(t, builtinParsed.Load(), "parsed to word an open plan")
	_, err = s.Render("issue-open", map[string]any{"Issue": 1, "Repo": ""})
	require.NoError(t, err)
	assert.True(t, builtinParsed.Load())
}
