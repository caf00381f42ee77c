package checkers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadJUnit: the JUnit XML report (xunit1) the real pytest 7.2.1
// (Debian's) wrote for a file of passing, skipped, xfailed, failing and erroring
// tests, parametrized ones with <, ], a space in their ids, and
// unittest's and plain classes.
func TestReadJUnit(t *testing.T) {
	data, err := os.ReadFile("testdata/pytest/junit-7.2.1.xml")
	require.NoError(t, err)
	rep, ok := readJUnit(data)
	require.True(t, ok)
	assert.Equal(t, map[string]map[string]string{"file tests/test_calc.py": {
		"test_add":       "ok",
		"test_skip":      "ignored",
		"test_fail":      "FAILED",
		"test_xf":        "ignored",
		"test_p[a b]":    "ok",
		"test_p[c]d]":    "ok",
		"test_p[<e>]":    "ok",
		"TestK::test_u":  "ok",
		"TestK::test_us": "ignored",
		"TestP::test_m":  "ok",
		"test_err":       "FAILED",
	}}, rep.Ran)

	for _, tt := range []struct {
		name string
		xml  string
		ok   bool
		want map[string]map[string]string
	}{
		{"no report", "", false, nil},
		{"no tests", `<testsuites><testsuite name="pytest" tests="0"/></testsuites>`, true, nil},
		{"a file that failed to import", `<testsuite><testcase classname="" name="tests.test_bad" time="0.1"><error message="collection failure">E</error></testcase></testsuite>`, true, map[string]map[string]string{"pytest": {"tests.test_bad": "FAILED"}}},
		{"name= in another attribute's value is not the name", `<testsuite><testcase classname="a b name=&quot;x" name="y"/></testsuite>`, true, map[string]map[string]string{"pytest": {`a b name="x::y`: "ok"}}},
		{"references", `<testsuite><testcase classname="m" name="t[&#10;&#x9;&amp;&apos;&bogus;]"/></testsuite>`, true, map[string]map[string]string{"pytest": {"m::t[\n\t&'&bogus;]": "ok"}}},
		{"a file named", `<testsuite><testcase classname="m.K" name="a" file="tests/m.py" line="3"/></testsuite>`, true, map[string]map[string]string{"file tests/m.py": {"m.K::a": "ok"}}},
		{"the module left out", `<testsuite><testcase classname="tests.m.K" name="a" file="tests/m.py"/><testcase classname="tests.m" name="b" file="tests/m.py"/></testsuite>`, true, map[string]map[string]string{"file tests/m.py": {"K::a": "ok", "b": "ok"}}},
		{"cut short", `<testsuite><testcase classname="m" name="a"/><testcase classname="m" na`, true, map[string]map[string]string{"pytest": {"m::a": "ok"}}},
		{"a < inside output is escaped", `<testsuite><testcase classname="m" name="a"><system-out>&lt;failure</system-out></testcase></testsuite>`, true, map[string]map[string]string{"pytest": {"m::a": "ok"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep, ok := readJUnit([]byte(tt.xml))
			assert.Equal(t, tt.ok, ok)
			if tt.want == nil {
				assert.Empty(t, rep.Ran)
				return
			}
			assert.Equal(t, tt.want, rep.Ran)
		})
	}
}

// TestPytestReportEnv: the report's option is added after the person's
// PYTEST_ADDOPTS, the path quoted for pytest's shlex.
func TestPytestReportEnv(t *testing.T) {
	t.Setenv("PYTEST_ADDOPTS", "-x")
	assert.Equal(t, []string{"PYTEST_ADDOPTS=-x -o junit_family=xunit1 --junitxml=/tmp/r/report.xml"}, pytestReportEnv(nil, "/tmp/r/report.xml"))
	assert.Equal(t, []string{"PYTEST_ADDOPTS=-q -o junit_family=xunit1 --junitxml='C:\\Temp\\it'\\''s\\report.xml'"}, pytestReportEnv([]string{"PYTEST_ADDOPTS=-q"}, `C:\Temp\it's\report.xml`))
	t.Setenv("PYTEST_ADDOPTS", " ")
	assert.Equal(t, []string{"PYTEST_ADDOPTS=-o junit_family=xunit1 --junitxml=/r.xml"}, pytestReportEnv(nil, "/r.xml"))
}

// TestRanReportThen: a flaky pass is judged by both runs, the rerun's
// results over the first's.
func TestRanReportThen(t *testing.T) {
	first := ranReport{Ran: map[string]map[string]string{"pytest": {"m::a": "ok", "m::b": "FAILED"}}}
	again := ranReport{Ran: map[string]map[string]string{"pytest": {"m::b": "ok"}}}
	assert.Equal(t, map[string]map[string]string{"pytest": {"m::a": "ok", "m::b": "ok"}}, first.then(again).Ran)
	assert.Equal(t, "FAILED", first.Ran["pytest"]["m::b"], "the first run's report is left as it was")
}

// TestRanSource: the file a group names.
func TestRanSource(t *testing.T) {
	for group, want := range map[string]string{
		"calc unittests src/lib.rs": "src/lib.rs",
		"it tests\\it.rs":           "tests\\it.rs",
		"doc-tests calc":            "",
		"node:test":                 "",
		"file tests/a b.py":         "tests/a b.py",
		"pytest":                    "",
	} {
		assert.Equal(t, want, ranSource(group), group)
	}
}

// TestReadJestJSON: the JSON reports the real Jest 30.5.2 (--json) and
// Vitest 3.2.7 (--reporter=json) wrote for one file of passing, skipped,
// todo, failing and nested tests, read alike.
func TestReadJestJSON(t *testing.T) {
	want := map[string]map[string]string{"file test/calc2.test.js": {
		"math > adds":         "ok",
		"math > skipped":      "ignored",
		"math > later":        "ignored",
		"math > fails":        "FAILED",
		"math > inner > deep": "ok",
	}}
	// The reports name their files from /p: from C:\p on Windows.
	dir, files := "/p", `"/p/test/`
	if runtime.GOOS == "windows" {
		dir, files = `C:\p`, `"C:\\p\\test\\`
	}
	for _, name := range []string{"jest-30.5.2.json", "vitest-3.2.7.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "jest", name))
		require.NoError(t, err)
		data = []byte(strings.ReplaceAll(string(data), `"/p/test/`, files))
		rep, ok := readJestJSON(data, dir)
		require.True(t, ok, name)
		if name == "vitest-3.2.7.json" {
			want = map[string]map[string]string{"file test/calc.test.mjs": want["file test/calc2.test.js"]}
		}
		assert.Equal(t, want, rep.Ran, name)
	}
	for _, bad := range []string{"", "{", `{"testResults": 1}`, `[]`} {
		_, ok := readJestJSON([]byte(bad), "/p")
		assert.False(t, ok, bad)
	}
}

// TestJSTestRunner: a test script that runs Jest or Vitest alone, whose
// arguments leave the report to donegate.
func TestJSTestRunner(t *testing.T) {
	for script, want := range map[string]string{
		"jest":                          "jest",
		"jest --ci --coverage src/":     "jest",
		"vitest run":                    "vitest",
		"vitest --run --project=unit":   "vitest",
		"vitest":                        "vitest",
		"jest --json":                   "",
		"vitest run --reporter=verbose": "",
		"vitest --outputFile.json=x":    "",
		"jest --watch":                  "",
		"jest && eslint .":              "",
		"node --test":                   "",
		"NODE_ENV=test jest":            "",
		"jest $ARGS":                    "",
	} {
		dir := t.TempDir()
		data, err := json.Marshal(map[string]any{"scripts": map[string]string{"test": script}})
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), data, 0o644))
		assert.Equal(t, want, jsTestRunner(dir), script)
	}
}

// TestFromStart: a weakness whose file the start commit did not hold is
// the session's own; one whose file it held — named from the project
// dir, or from the work tree's top as pytest does from a rootdir above
// the project — or that names none, or one out of the tree, is kept.
func TestFromStart(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	top := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.email=a@b", "-c", "user.name=a"}, args...)...)
		cmd.Dir = top
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	require.NoError(t, os.MkdirAll(filepath.Join(top, "proj", "tests"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(top, "proj", "tests", "test_a.py"), nil, 0o644))
	git("add", ".")
	git("commit", "-q", "-m", "start")
	base := git("rev-parse", "HEAD")
	found := []weakness{
		{File: "tests/test_a.py", Test: "from the project"},
		{File: "proj/tests/test_a.py", Test: "from the top"},
		{File: "tests/test_new.py", Test: "the session's own"},
		{Test: "no file"},
		{File: "../elsewhere/test_x.py", Test: "out of the tree"},
	}
	var kept []string
	for _, w := range fromStart(context.Background(), filepath.Join(top, "proj"), base, found) {
		kept = append(kept, w.Test)
	}
	assert.Equal(t, []string{"from the project", "from the top", "no file", "out of the tree"}, kept)
}

// BenchmarkReadReports: reading the report of 3,000 tests, pytest's JUnit
// XML (about 300 KB) and Jest's JSON, as a passing stop does once.
func BenchmarkReadReports(b *testing.B) {
	var x, j strings.Builder
	x.WriteString(`<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="3000">`)
	j.WriteString(`{"testResults":[`)
	for f := range 30 {
		if f > 0 {
			j.WriteString(",")
		}
		fmt.Fprintf(&j, `{"name":"/p/test/m%d.test.js","assertionResults":[`, f)
		for i := range 100 {
			fmt.Fprintf(&x, `<testcase classname="tests.test_m%d" name="test_%d" file="tests/test_m%d.py" line="%d" time="0.001" />`, f, i, f, 2*i)
			if i > 0 {
				j.WriteString(",")
			}
			fmt.Fprintf(&j, `{"ancestorTitles":["m%d"],"title":"t%d","fullName":"m%d t%d","status":"passed"}`, f, i, f, i)
		}
		j.WriteString("]}")
	}
	x.WriteString("</testsuite></testsuites>")
	j.WriteString("]}")
	for _, r := range []struct {
		name string
		data []byte
		read func([]byte) (ranReport, bool)
	}{
		{"junit", []byte(x.String()), readJUnit},
		{"jest", []byte(j.String()), func(d []byte) (ranReport, bool) { return readJestJSON(d, "/p") }},
	} {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(len(r.data)))
			for b.Loop() {
				if rep, ok := r.read(r.data); !ok || len(rep.Ran) != 30 {
					b.Fatal("not read")
				}
			}
		})
	}
}
