package checkers

import (
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// jsTestScript is a package.json test script that runs Jest or Vitest
// alone, with arguments to which more may be added: words of plain
// characters, no shell syntax, no option that chooses the report (which
// donegate's would clash with).
var jsTestScript = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(jest|vitest)((\s+[A-Za-z0-9_./=:@,+-]+)*)\s*$`)
})

// jsTestRunner is "jest" or "vitest" where the test script of the
// package.json in dir runs that alone (see jsTestScript), else "".
func jsTestRunner(dir string) string {
	data, err := readManifest(dir, "package.json")
	if err != nil || data == nil {
		return ""
	}
	m := jsTestScript().FindStringSubmatch(gjson.GetBytes(data, "scripts.test").String())
	if m == nil {
		return ""
	}
	for _, arg := range strings.Fields(m[2]) {
		for _, taken := range []string{"--json", "--outputFile", "--reporter", "--watch", "-w"} {
			if arg == taken || strings.HasPrefix(arg, taken+"=") || strings.HasPrefix(arg, taken+".") {
				return ""
			}
		}
	}
	return m[1]
}

// readJestJSON reads the JSON report Jest (--json) and Vitest (its json
// reporter) write, one shape: each test file's assertions, grouped by
// the file's path relative to dir, each named by its describe blocks and its title
// joined with " > " ("math > adds"), "ok" where passed, "FAILED" where
// failed, "ignored" where skipped, pending or todo; the group is
// fileGroup and the file. ok is false where the
// data is no such report.
func readJestJSON(data []byte, dir string) (rep ranReport, ok bool) {
	rep = ranReport{Ran: map[string]map[string]string{}}
	if !gjson.ValidBytes(data) {
		return rep, false
	}
	files := gjson.GetBytes(data, "testResults")
	if !files.IsArray() {
		return rep, false
	}
	files.ForEach(func(_, f gjson.Result) bool {
		file := f.Get("name").String()
		if rel, err := filepath.Rel(dir, file); err == nil && filepath.IsAbs(file) && !strings.HasPrefix(rel, "..") {
			file = filepath.ToSlash(rel)
		}
		group := fileGroup + file
		more := true
		f.Get("assertionResults").ForEach(func(_, a gjson.Result) bool {
			var parts []string
			a.Get("ancestorTitles").ForEach(func(_, t gjson.Result) bool {
				parts = append(parts, t.String())
				return true
			})
			name := strings.Join(append(parts, a.Get("title").String()), " > ")
			result := "ignored"
			switch a.Get("status").String() {
			case "passed":
				result = "ok"
			case "failed":
				result = "FAILED"
			}
			more = rep.add(group, name, result)
			return more
		})
		return more
	})
	return rep, true
}

// argWord quotes s as one argument of the shell that runs a command:
// sh's (see shellWord), or on Windows cmd.exe's, which takes double
// quotes.
func argWord(s string) string {
	if runtime.GOOS != "windows" {
		return shellWord(s)
	}
	if strings.ContainsAny(s, " &()[]{}^=;!'+,`~%") {
		return `"` + s + `"`
	}
	return s
}
