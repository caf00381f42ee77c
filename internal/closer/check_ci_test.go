package closer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closer check --ci in GitHub Actions: an ::error:: annotation per open
// check (its evidence escaped as a workflow command's message), and a
// table of every check appended to the job's summary; outside GitHub
// Actions, nothing more than the checklist.
func TestCheckReportsToGitHubActions(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "donegate.json"),
		[]byte(`{"checkers":[{"type":"files","paths":["present.txt"]},{"type":"files","paths":["dist/report.html","a,b:c.txt"]}]}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "present.txt"), []byte("x"), 0o644))
	summary := filepath.Join(t.TempDir(), "summary.md")
	require.NoError(t, os.WriteFile(summary, []byte("earlier step\n"), 0o644))
	check := func(env map[string]string) (int, string) {
		var out, errOut bytes.Buffer
		env["DONEGATE_STATE_DIR"] = t.TempDir()
		code := Main(context.Background(), []string{"check", "--ci", "--dir", dir}, &out, &errOut, testEnv(env, false))
		return code, out.String() + errOut.String()
	}

	code, out := check(map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary})
	assert.Equal(t, ExitIncomplete, code, out)
	var errors []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "::error ") {
			errors = append(errors, line)
		}
	}
	require.Len(t, errors, 1, out)
	assert.Regexp(t, `^::error title=donegate%3A 2\. files%3A required files exist%3A dist/report\.html%2C a%2Cb%3Ac\.txt::Missing required files: dist/report\.html, a,b:c\.txt$`, errors[0])
	data, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "earlier step\n### donegate\n"), "appended: %s", data)
	assert.Contains(t, string(data), "| ✅ | 1. files: required files exist: present.txt |")
	assert.Contains(t, string(data), "| ❌ | 2. files: required files exist: dist/report.html, a,b:c.txt | Missing required files")
	assert.Contains(t, string(data), "Incomplete: 1 of 2 checks open.")

	code, out = check(map[string]string{})
	assert.Equal(t, ExitIncomplete, code, out)
	assert.NotContains(t, out, "::error", "outside GitHub Actions")
}
