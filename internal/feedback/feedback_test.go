package feedback_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/feedback"
)

// exampleRe finds a built-in template's documented example parameters:
// its first line is {{- /* example: JSON */ -}}.
var exampleRe = regexp.MustCompile(`^\{\{- /\* example: (.*) \*/ -\}\}\n`)

// placeholder is what a template held before its pattern's checker was
// written; another branch owns it.
const placeholder = "{{.Text}}\n"

// TestEveryBuiltinRendersItsExample: every pattern has a built-in template,
// which documents example parameters in its first line and renders them
// without error, into text that does not start or end in space; the same
// parameters stored as JSON and read back (the result cache) render the
// same text.
// builtin is the built-in templates alone: a Set with none of a user's.
var builtin = &feedback.Set{}

func TestEveryBuiltinRendersItsExample(t *testing.T) {
	for _, p := range feedback.Patterns {
		t.Run(p, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("templates", p+".tmpl"))
			require.NoError(t, err, "pattern %s has no built-in template", p)
			if string(src) == placeholder {
				t.Skipf("%s.tmpl is still the placeholder its checker's branch replaces", p)
			}
			m := exampleRe.FindSubmatch(src)
			require.NotNil(t, m, "%s.tmpl does not start with {{- /* example: {...} */ -}}", p)
			var params map[string]any
			require.NoError(t, json.Unmarshal(m[1], &params), "%s.tmpl's example", p)
			params = feedback.Normalize(params)
			text, err := builtin.Render(p, params)
			require.NoError(t, err)
			assert.NotEmpty(t, text)
			assert.Equal(t, strings.TrimSpace(text), text)
			assert.NotContains(t, text, "<no value>")
			var nilSet *feedback.Set
			again, err := nilSet.Render(p, params)
			require.NoError(t, err)
			assert.Equal(t, text, again, "nil is the built-in set")
		})
	}
	files, err := fs.Glob(os.DirFS("templates"), "*")
	require.NoError(t, err)
	assert.Len(t, files, len(feedback.Patterns), "a template for a pattern that is not in Patterns: %v", files)
}

// TestBuiltinWording pins the built-in wording of a few cases the
// examples do not reach (the checkers' tests pin the rest).
func TestBuiltinWording(t *testing.T) {
	cmd := func(over map[string]any) map[string]any {
		p := map[string]any{"Command": "go test ./...", "Stopped": "", "ExitCode": 1, "Output": "", "SuccessWhen": "exit_code:0",
			"Want": "exit with code 0", "Missed": "it exited with code 1", "NotFound": false, "Timeout": "5m0s", "Budget": "9m0s",
			"Elapsed": "0s", "Signal": "", "CacheNote": "", "Fix": "", "Files": []string{}, "More": 0}
		for k, v := range over {
			p[k] = v
		}
		return p
	}
	for _, tt := range []struct {
		name, pattern string
		params        map[string]any
		want          string
	}{
		{"plan with three open", "plan-incomplete", map[string]any{"Open": []string{"a", "b", "c"}, "Total": 3, "Source": "todo list"},
			"You have 3 incomplete task(s) out of 3. Please either complete all remaining tasks or update the plan to remove tasks that are no longer needed before producing output: a, b, c"},
		{"plan with four open", "plan-incomplete", map[string]any{"Open": []string{"a", "b", "c", "d"}, "Total": 5, "Source": "todo list"},
			"You have 4 incomplete task(s) out of 5. Please either complete all remaining tasks or update the plan to remove tasks that are no longer needed before producing output: a, b, c, ..."},
		{"plan of a host that names its tool", "plan-incomplete", map[string]any{"Open": []string{"a"}, "Total": 1, "Source": "plan (update_plan)", "Tool": "update_plan"},
			"You have 1 incomplete task(s) out of 1. Please either complete all remaining tasks or update the plan with update_plan to remove tasks that are no longer needed before producing output: a"},
		{"test printed nothing", "test-failed", cmd(nil),
			"The test command `go test ./...` failed with exit code 1. Fix the failures and run it again. It printed nothing."},
		{"test killed", "test-failed", cmd(map[string]any{"Stopped": "signal", "Signal": "killed", "Output": "ok"}),
			"The test command `go test ./...` was killed by killed.\nLast output:\nok"},
		{"test out of budget", "test-failed", cmd(map[string]any{"Stopped": "budget", "Budget": "3s", "Elapsed": "3s", "CacheNote": " Note."}),
			"The test command `go test ./...` did not finish within the hook's time budget (limits.budget 3s) and was stopped after 3s. Note. It printed nothing."},
		{"command not found", "command-failed", cmd(map[string]any{"Command": "x", "ExitCode": 127, "Missed": "it exited with code 127", "NotFound": true}),
			"The command `x` must exit with code 0 (success_when \"exit_code:0\"), but it exited with code 127. Fix that and run it again. Exit code 127 is the shell's \"command not found\": is the tool installed and on PATH? It printed nothing."},
		{"one dirty file", "git-dirty", map[string]any{"Count": 1, "Files": []map[string]any{{"Path": "a", "Change": "untracked"}}, "More": 0},
			"The git working tree is not clean: 1 file changed or untracked. Commit what belongs to the work, delete or .gitignore what does not, then check `git status` again:\n- a: untracked"},
		{"two commits short", "no-commits", map[string]any{"Count": 1, "Min": 3, "Baseline": "main", "Head": ""},
			"The work is not committed: 1 commit since `main`, and at least 3 are required. Commit your changes (`git add` and `git commit`) before you finish."},
		{"no commit before", "no-commits", map[string]any{"Count": 0, "Min": 1, "Baseline": "", "Head": ""},
			"The work is not committed: no commit since this prompt began (the repository had no commit then), and at least 1 is required. Commit your changes (`git add` and `git commit`) before you finish."},
		{"issue of this repo", "issue-open", map[string]any{"Issue": 7, "Repo": ""},
			"GitHub issue #7 is still open. Finish the work it asks for, then close it (`gh issue close 7`)."},
		{"external without reason", "external-incomplete", map[string]any{"Command": "./check", "Feedback": ""},
			"The external checker `./check` says the work is not complete (it gave no reason)."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, err := builtin.Render(tt.pattern, tt.params)
			require.NoError(t, err)
			assert.Equal(t, tt.want, text)
		})
	}
}

func write(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	return dir
}

func TestLoad(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		err   string // with DIR for the directory
	}{
		{name: "an override and other files", files: map[string]string{"test-failed.tmpl": "Tests: {{.Command}}", "README.md": "notes"}},
		{name: "a template that does not parse names file and line", files: map[string]string{"test-failed.tmpl": "Tests\nfailed: {{.Command}\n"},
			err: `DIR/test-failed.tmpl: line 2: bad character U+007D '}'`},
		{name: "an unknown function is a parse error", files: map[string]string{"git-dirty.tmpl": "{{shout .Count}}"},
			err: `DIR/git-dirty.tmpl: line 1: function "shout" not defined`},
		{name: "an unclosed action", files: map[string]string{"no-commits.tmpl": "a\nb\n{{if .Count}}c"},
			err: `DIR/no-commits.tmpl: line 3: unexpected EOF`},
		{name: "a file for no pattern is refused", files: map[string]string{"tests-failed.tmpl": "x"},
			err: `DIR/tests-failed.tmpl: no failure pattern is called "tests-failed" (known: ` + strings.Join(feedback.Patterns, ", ") + `)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, t.TempDir(), tt.files)
			s, err := feedback.Load(dir)
			if tt.err != "" {
				require.EqualError(t, err, strings.ReplaceAll(tt.err, "DIR/", dir+string(filepath.Separator)))
				return
			}
			require.NoError(t, err)
			text, err := s.Render("test-failed", map[string]any{"Command": "make check"})
			require.NoError(t, err)
			assert.Equal(t, "Tests: make check", text)
			// The patterns it does not override keep the built-in wording.
			text, err = s.Render("issue-open", map[string]any{"Issue": 3, "Repo": ""})
			require.NoError(t, err)
			assert.Equal(t, "GitHub issue #3 is still open. Finish the work it asks for, then close it (`gh issue close 3`).", text)
		})
	}
	t.Run("no such dir", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "nope")
		_, err := feedback.Load(dir)
		require.ErrorIs(t, err, fs.ErrNotExist)
		require.True(t, strings.HasPrefix(err.Error(), dir+": "), "the error names the dir: %v", err)
	})
}

// TestRenderFallsBack: a user's template that fails to render (a key its
// pattern does not have) gives way to the built-in one, and the error
// names the file.
func TestRenderFallsBack(t *testing.T) {
	dir := write(t, t.TempDir(), map[string]string{"issue-open.tmpl": "Close {{.Number}} first.\n"})
	s, err := feedback.Load(dir)
	require.NoError(t, err)
	text, err := s.Render("issue-open", map[string]any{"Issue": 3, "Repo": "a/b"})
	assert.Equal(t, "GitHub issue a/b#3 is still open. Finish the work it asks for, then close it (`gh issue close 3 --repo a/b`).", text)
	require.EqualError(t, err, filepath.Join(dir, "issue-open.tmpl")+`: line 1:8: executing "issue-open.tmpl" at <.Number>: map has no entry for key "Number"; the built-in template was used`)

	_, err = builtin.Render("no-such-pattern", nil)
	require.EqualError(t, err, `no template for failure pattern "no-such-pattern"`)
}

func TestRank(t *testing.T) {
	assert.Equal(t, 0, feedback.Rank(feedback.Patterns[0]))
	assert.Less(t, feedback.Rank("format-error"), feedback.Rank("test-failed"))
	assert.Less(t, feedback.Rank("test-failed"), feedback.Rank("no-commits"))
	assert.Equal(t, len(feedback.Patterns), feedback.Rank(""))
	assert.Equal(t, len(feedback.Patterns), feedback.Rank("made-up"))
}

// TestNormalize: parameters read back from JSON are the values a checker
// builds, so templates compare and range over them alike.
func TestNormalize(t *testing.T) {
	var back map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"N": 3, "F": 1.5, "L": ["a", "b"], "E": [], "M": [{"Path": "x", "N": 2}], "B": true, "S": "s"}`), &back))
	assert.Equal(t, map[string]any{"N": 3, "F": 1.5, "L": []string{"a", "b"}, "E": []string{}, "M": []any{map[string]any{"Path": "x", "N": 2}}, "B": true, "S": "s"},
		feedback.Normalize(back))
	assert.Nil(t, feedback.Normalize(nil))
}
