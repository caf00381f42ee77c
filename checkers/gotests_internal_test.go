package checkers

import (
	"go/token"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadGoTestJSON: the text shown for a go test -json run is what go
// test prints without -json (testdata/gotest: both recorded from one
// project with Go 1.26), and the report holds the top-level tests that
// passed or were skipped, subtests not counted.
func TestReadGoTestJSON(t *testing.T) {
	events, err := os.ReadFile("testdata/gotest/run.jsonl")
	require.NoError(t, err)
	plain, err := os.ReadFile("testdata/gotest/run.txt")
	require.NoError(t, err)
	text, rep := readGoTestJSON(events)
	// Two runs: their times, goroutines and addresses differ; and without
	// -json the go command ends with a FAIL line of its own.
	norm := func(b []byte) string {
		s := regexp.MustCompile(`\d+\.\d+s`).ReplaceAllString(string(b), "T")
		s = regexp.MustCompile(`0x[0-9a-f]+\??`).ReplaceAllString(s, "A")
		return regexp.MustCompile(`goroutine \d+`).ReplaceAllString(s, "goroutine N")
	}
	assert.Equal(t, norm(plain), norm(text)+"FAIL\n")
	assert.Equal(t, goReport{
		Passed:  map[string][]string{"example.com/rec": {"TestPass", "TestParallelA", "TestParallelB", "FuzzRev"}},
		Skipped: map[string][]string{"example.com/rec": {"TestSkip"}},
	}, rep)
}

// TestReadGoTestJSONKeepsWhatIsNoEvent: the go command's own lines (a
// missing module, a build error before Go 1.24's events) are shown as
// they are, and a test that never ended is shown whole.
func TestReadGoTestJSONKeepsWhatIsNoEvent(t *testing.T) {
	in := "go: cannot find main module\n" +
		`{"Action":"run","Package":"p","Test":"TestHang"}` + "\n" +
		`{"Action":"output","Package":"p","Test":"TestHang","Output":"=== RUN   TestHang\n"}` + "\n" +
		`{"Action":"output","Package":"p","Test":"TestHang","Output":"panic: test timed out after 1s\n"}` + "\n" +
		"{not json\n"
	text, rep := readGoTestJSON([]byte(in))
	assert.Equal(t, "go: cannot find main module\n{not json\npanic: test timed out after 1s\n", string(text))
	assert.Empty(t, rep.Passed)
}

func TestGoJSONCommand(t *testing.T) {
	for _, tc := range []struct {
		command, from string
		want          string
		roots         []string
	}{
		{"go test ./...", "go.mod", "go test -json ./...", []string{"."}},
		{"go test ./a/... ./b/c/...", "go.work", "go test -json ./a/... ./b/c/...", []string{"a", "b/c"}},
		{"go test ./...", "", "", nil},              // a config's command: it prints what it prints
		{"go test -run X ./...", "go.mod", "", nil}, // not donegate's own
		{"go test ./pkg", "go.mod", "", nil},        // one package: not a detected form
		{"go test", "go.mod", "", nil},              // no pattern
		{"make test", "Makefile", "", nil},          // no Go command
		{"go test /abs/...", "go.work", "", nil},    // not in the project
		{"go vet ./... && go test ./...", "go.mod", "", nil},
	} {
		got, roots, ok := goJSONCommand(tc.command, tc.from)
		assert.Equal(t, tc.want, got, tc.command)
		assert.Equal(t, tc.want != "", ok, tc.command)
		assert.Equal(t, tc.roots, roots, tc.command)
	}
}

func TestGoTestFuncs(t *testing.T) {
	src := "package p\n\nimport (\n\t\"testing\"\n\t. \"testing\"\n\tt2 \"testing\"\n)\n\n" +
		"func TestA(t *testing.T) {}\n" + // 9
		"func TestB(t *testing.T) { s := `\nfunc TestInString(t *testing.T) {}\n` ; _ = s }\n" + // 10
		"// func TestInComment(t *testing.T) {}\n" +
		"func Test(t *testing.T) {}\n" + // 14
		"func Testlower(t *testing.T) {}\n" +
		"func TestDot(t *T) {}\n" + // 16
		"func TestAlias(x *t2.T) {}\n" + // 17
		"func TestUnnamed(*testing.T) {}\n" + // 18
		"func TestTwo(t *testing.T, n int) {}\n" +
		"func TestWrongType(t *testing.B) {}\n" +
		"func BenchmarkX(b *testing.B) {}\n" +
		"func FuzzX(f *testing.F) {}\n" + // 22
		"func FuzzWrong(t *testing.T) {}\n" +
		"func (s suite) TestMethod(t *testing.T) {}\n" +
		"func TestGeneric[T any](t *testing.T) {}\n" +
		"func TestMultiLine(\n\tt *testing.T,\n) {\n}\n" + // 26
		"var f = func(t *testing.T) {}\n" +
		"func TestÜber(t *testing.T) {}\n" // 31
	names, lines := goTestFuncs(token.NewFileSet(), "p_test.go", []byte(src))
	assert.Equal(t, []string{"TestA", "TestB", "Test", "TestDot", "TestAlias", "TestUnnamed", "FuzzX", "TestMultiLine", "TestÜber"}, names)
	assert.Equal(t, []int{9, 10, 14, 16, 17, 18, 22, 26, 31}, lines)

	names, _ = goTestFuncs(token.NewFileSet(), "bad_test.go", []byte("package p\n\nfunc TestA(t *testing.T) { \"unterminated }\n"))
	assert.Empty(t, names, "a file that does not scan does not build: it runs nothing")
}

func TestGoRootOf(t *testing.T) {
	modules := map[string]string{".": "m", "tools": "m2", "a": "m3", "a/nested": "m4"}
	for _, tc := range []struct {
		dir   string
		roots []string
		want  string
	}{
		{".", []string{"."}, "."},
		{"pkg/x", []string{"."}, "."},
		{"pkg/testdata/x", []string{"."}, ""},
		{"vendor/y", []string{"."}, ""},
		{"_old", []string{"."}, ""},
		{".hidden/z", []string{"."}, ""},
		{"tools", []string{"."}, ""},
		{"tools/cmd", []string{"."}, ""},
		{"a/b", []string{"a", "tools"}, "a"},
		{"a", []string{"a"}, "a"},
		{"a/nested/c", []string{"a"}, ""},
		{"ab", []string{"a"}, ""},
		{"tools/cmd", []string{"a", "tools"}, "tools"},
	} {
		got, ok := goRootOf(tc.dir, tc.roots, modules)
		assert.Equal(t, tc.want, got, tc.dir)
		assert.Equal(t, tc.want != "", ok, tc.dir)
	}
}

func TestGoFileRules(t *testing.T) {
	assert.Equal(t, "example.com/m", goModulePath([]byte("// c\nmodule example.com/m // the module\n\ngo 1.22\n")))
	assert.Equal(t, "example.com/q", goModulePath([]byte("module \"example.com/q\"\n")))
	assert.Equal(t, "", goModulePath([]byte("modules x\ngo 1.22\n")))

	assert.True(t, goHasBuildLine([]byte("// Copyright\n\n//go:build integration\n\npackage p\n")))
	assert.True(t, goHasBuildLine([]byte("// +build linux\n\npackage p\n")))
	assert.False(t, goHasBuildLine([]byte("package p\n\n//go:build x\n")))

	for name, want := range map[string]bool{
		"x_linux_test.go": true, "x_linux_arm64_test.go": true, "x_arm64_test.go": true,
		"linux_test.go": false, "x_test.go": false, "x_notanos_test.go": false,
	} {
		assert.Equal(t, want, goConstrainedName(name), name)
	}
}
