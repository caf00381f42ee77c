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
)

const (
	calcTest = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\nfunc TestSub(t *testing.T) {\n\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n"
	pyTest   = "import pytest\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n\n\ndef test_empty():\n    assert total([]) == 0\n"
	jsTest   = "const { total } = require('./total');\n\nit('adds', () => {\n  expect(total([1, 2])).toBe(3);\n});\n\ntest('empty', () => {\n  expect(total([])).toBe(0);\n});\n"
	rsLib    = "pub fn add(a: i32, b: i32) -> i32 { a + b }\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn adds() {\n        assert_eq!(add(2, 3), 5);\n    }\n\n    #[test]\n    fn adds_zero() {\n        assert_eq!(add(0, 3), 3);\n    }\n}\n"
)

// TestWeakenedTestsHold: a passing test command does not pass when the
// change weakened the tests against the baseline; each rule names the
// file, the line and the test.
const bazelBuild = `cc_library(
    name = "lib",
    srcs = ["lib.cc"],
)

go_test(
    name = "lib_test",
    srcs = ["lib_test.go"],
)

sh_test(name = "tool_test", srcs = ["tool_test.sh"])
`

func TestWeakenedTestsHold(t *testing.T) {
	base := map[string]string{
		"calc_test.go":       calcTest,
		"test_total.py":      pyTest,
		"total.test.js":      jsTest,
		"src/lib.rs":         rsLib,
		"package.json":       `{"scripts":{"test":"jest"}}`,
		"Makefile":           "test:\n\tgo test ./...\n",
		"other/util_test.go": "package other\n\nimport \"testing\"\n\nfunc TestUtil(t *testing.T) {}\n",
		"lib/BUILD":          bazelBuild,
	}
	cases := []struct {
		name   string
		change func(t *testing.T, dir string)
		want   []string // "" for none
	}{
		{"nothing changed", func(t *testing.T, dir string) {}, nil},
		{"go: t.Skip added", func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", swap(calcTest, "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\tt.Skip(\"flaky, later\")\n"))
		}, []string{"- calc_test.go:12 (TestSub): adds t.Skip"}},
		{"go: t.Skip in a comment", func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", swap(calcTest, "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\t// t.Skip(\"never\")\n"))
		}, nil},
		{"go: failing test deleted", func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", calcTest[:len(calcTest)-len("\nfunc TestSub(t *testing.T) {\n\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n")])
		}, []string{"- calc_test.go:11 (TestSub): deletes the test"}},
		{"go: a test moved to another file is no deletion", func(t *testing.T, dir string) {
			writeFile(t, dir, "calc_test.go", calcTest[:len(calcTest)-len("\nfunc TestSub(t *testing.T) {\n\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n")])
			writeFile(t, dir, "sub_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestSub(t *testing.T) {\n\tif Sub(5, 3) != 2 {\n\t\tt.Fatal(\"sub\")\n\t}\n}\n")
			gitIn(t, dir, "add", "sub_test.go")
		}, nil},
		{"go: test file deleted", func(t *testing.T, dir string) {
			require.NoError(t, os.Remove(filepath.Join(dir, "other", "util_test.go")))
		}, []string{"- other/util_test.go: deletes the test file and its tests TestUtil"}},
		{"python: skip marker and pytest.skip", func(t *testing.T, dir string) {
			writeFile(t, dir, "test_total.py", swap(pyTest, "def test_total():\n", "@pytest.mark.skip(reason=\"later\")\ndef test_total():\n    pytest.skip(\"no\")\n"))
		}, []string{"- test_total.py:4 (test_total): adds pytest.mark.skip", "- test_total.py:6 (test_total): adds pytest.skip"}},
		{"js: .only in a new untracked file", func(t *testing.T, dir string) {
			writeFile(t, dir, "focus.test.js", "it.only('just this', () => {});\n")
		}, []string{"- focus.test.js:1 (just this): adds it.only"}},
		{"js: xit", func(t *testing.T, dir string) {
			writeFile(t, dir, "total.test.js", swap(jsTest, "it('adds'", "xit('adds'"))
		}, []string{"- total.test.js:3 (adds): adds xit"}},
		{"rust: #[ignore] and a deleted #[test]", func(t *testing.T, dir string) {
			s := swap(rsLib, "    #[test]\n    fn adds() {", "    #[test]\n    #[ignore]\n    fn adds() {")
			s = swap(s, "\n    #[test]\n    fn adds_zero() {\n        assert_eq!(add(0, 3), 3);\n    }\n", "")
			writeFile(t, dir, "src/lib.rs", s)
		}, []string{"- src/lib.rs:8 (adds): adds #[ignore", "- src/lib.rs:13 (adds_zero): deletes the test"}},
		{"bazel: a \"manual\" tag and a deleted test rule", func(t *testing.T, dir string) {
			s := swap(bazelBuild, `    name = "lib_test",`, `    name = "lib_test",`+"\n"+`    tags = ["manual"],`)
			s = swap(s, `sh_test(name = "tool_test", srcs = ["tool_test.sh"])`+"\n", "")
			writeFile(t, dir, "lib/BUILD", s)
		}, []string{`- lib/BUILD:8 (lib_test): adds "manual"`, "- lib/BUILD:11 (tool_test): deletes the test"}},
		{"bazel: a library renamed is no deletion", func(t *testing.T, dir string) {
			writeFile(t, dir, "lib/BUILD", swap(bazelBuild, `name = "lib",`, `name = "core",`))
		}, nil},
		{"npm test made a no-op", func(t *testing.T, dir string) {
			writeFile(t, dir, "package.json", `{"scripts":{"test":"exit 0"}}`)
		}, []string{"- package.json: turns the test command `jest` into `exit 0`, which tests nothing"}},
		{"make test made a no-op", func(t *testing.T, dir string) {
			writeFile(t, dir, "Makefile", "test:\n\tgo test ./... || true\n")
		}, []string{"- Makefile: turns the test command `go test ./...` into `go test ./... || true`, which tests nothing"}},
		{"a re-indented skip is not new", func(t *testing.T, dir string) {
			// The baseline already skipped; the change only moves it.
			writeFile(t, dir, "calc_test.go", swap(calcTest, "\tif Sub(5, 3) != 2 {", "\t  if Sub(5, 3) != 2 {"))
		}, nil},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			dir := gitRepo(t, base)
			state := t.TempDir()
			check := func() checkers.Result {
				c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, StateDir: state, CacheDir: filepath.Join(state, "results"), Budget: time.Minute}
				r, err := checkers.Test{Command: "true", Cache: true}.Check(context.Background(), c)
				require.NoError(t, err)
				return r
			}
			require.True(t, check().Complete, "the baseline is recorded at the session's first check")
			tt.change(t, dir)
			r := check()
			if tt.want == nil {
				assert.True(t, r.Complete, r.Feedback)
				return
			}
			require.False(t, r.Complete)
			assert.Equal(t, "tests-weakened", r.Pattern)
			assert.Contains(t, r.Feedback, "The test command `true` passes only because your change weakens the tests (compared with commit `")
			for _, w := range tt.want {
				assert.Contains(t, r.Feedback, w)
			}
			// The same tree gives the same answer, from the cache.
			assert.Equal(t, r.Feedback, check().Feedback)
			// Committed, it is still a weakening: the session's baseline stays.
			gitIn(t, dir, "add", "-A")
			gitIn(t, dir, "commit", "-q", "-m", "weaken")
			assert.False(t, check().Complete)
			// "weakening": "ignore" turns the rule off.
			c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, StateDir: state, Budget: time.Minute}
			r, err := checkers.Test{Command: "true", IgnoreWeakening: true}.Check(context.Background(), c)
			require.NoError(t, err)
			assert.True(t, r.Complete)
		})
	}
}

// Outside git there is nothing to compare with: the pass stands.
func TestWeakeningOutsideGit(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	writeFile(t, dir, "calc_test.go", swap(calcTest, "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\tt.Skip()\n"))
	c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, StateDir: t.TempDir(), Budget: time.Minute}
	r, err := checkers.Test{Command: "exit 0"}.Check(context.Background(), c)
	require.NoError(t, err)
	assert.True(t, r.Complete, r.Feedback)
}

func swap(s, old, new string) string {
	i := len(s)
	for j := 0; j+len(old) <= len(s); j++ {
		if s[j:j+len(old)] == old {
			i = j
			break
		}
	}
	if i == len(s) {
		panic("swap: " + old + " not found")
	}
	return s[:i] + new + s[i+len(old):]
}

// A session that made the repository's first commit had no commit to
// compare with when it began: nothing is compared, as in a repository with
// no commit, and no git diff runs at its stops. (A diff against "" failed
// at every stop: a git process each time, and the pass came with "could not
// compare the tests".)
func TestWeakeningWhenTheSessionMadeTheFirstCommit(t *testing.T) {
	dir := gitRepo(t, map[string]string{"calc_test.go": calcTest})
	transcript := filepath.Join(t.TempDir(), "session.jsonl")
	began := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano)
	writeFile(t, filepath.Dir(transcript), filepath.Base(transcript), `{"type":"user","timestamp":"`+began+`","message":{"role":"user","content":"start a calculator"}}`+"\n")
	state := t.TempDir()
	check := func() checkers.Result {
		c := &checkers.Context{Event: &hookio.Event{SessionID: "s1", TranscriptPath: transcript}, ProjectDir: dir, StateDir: state, CacheDir: filepath.Join(state, "results"), Budget: time.Minute}
		r, err := checkers.Test{Command: "true", Cache: true}.Check(context.Background(), c)
		require.NoError(t, err)
		return r
	}
	r := check()
	assert.True(t, r.Complete, r.Feedback)
	assert.NotContains(t, r.Feedback, "could not compare")
	writeFile(t, dir, "calc_test.go", swap(calcTest, "func TestSub(t *testing.T) {\n", "func TestSub(t *testing.T) {\n\tt.Skip(\"later\")\n"))
	r = check()
	assert.True(t, r.Complete, r.Feedback)
	assert.NotContains(t, r.Feedback, "could not compare")
}
