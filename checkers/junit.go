package checkers

import (
	"bytes"
	"html"
	"strings"
)

// readJUnit reads a JUnit XML report as pytest writes it (--junitxml,
// junit_family xunit1): each <testcase classname="tests.test_calc.TestK"
// name="test_u" file="tests/test_calc.py"> is the test "TestK::test_u"
// (its module left out, as in pytest's node id) of the group "file
// tests/test_calc.py" (where no file is named, the test
// "tests.test_calc.TestK::test_u" of "pytest"), failed where it
// holds <failure> or <error>, ignored where it holds <skipped> (a skip,
// an xfail), else passed. ok is false where the data has no <testsuite>
// (no report). Only what pytest writes is read: attributes in double
// quotes, their references replaced.
func readJUnit(data []byte) (rep ranReport, ok bool) {
	rep = ranReport{Ran: map[string]map[string]string{}}
	if !bytes.Contains(data, []byte("<testsuite")) {
		return rep, false
	}
	rest := data
	var lastFile, lastGroup, module string // a file's tests come together
	for {
		i := bytes.Index(rest, []byte("<testcase"))
		if i < 0 {
			return rep, true
		}
		rest = rest[i+len("<testcase"):]
		end := bytes.IndexByte(rest, '>')
		if end < 0 {
			return rep, true // cut short: what was read stands
		}
		tag := rest[:end]
		result := "ok"
		if !bytes.HasSuffix(tag, []byte("/")) {
			body := rest[end+1:]
			if j := bytes.Index(body, []byte("</testcase>")); j >= 0 {
				body = body[:j]
			}
			// Inside a testcase, < is escaped everywhere but in its
			// elements: the first of these names how it ended.
			switch {
			case bytes.Contains(body, []byte("<failure")), bytes.Contains(body, []byte("<error")):
				result = "FAILED"
			case bytes.Contains(body, []byte("<skipped")):
				result = "ignored"
			}
		}
		class, name := xmlAttr(tag, "classname"), xmlAttr(tag, "name")
		if name == "" {
			continue
		}
		group, file := "pytest", xmlAttr(tag, "file")
		if file != "" {
			if file != lastFile {
				// The module's part of classname is the file's: left out.
				lastFile, lastGroup = file, fileGroup+file
				module = strings.ReplaceAll(strings.ReplaceAll(strings.TrimSuffix(file, ".py"), "/", "."), "\\", ".")
			}
			group = lastGroup
			if class == module {
				class = ""
			} else if rest, ok := strings.CutPrefix(class, module+"."); ok {
				class = rest
			}
		}
		if class != "" {
			name = class + "::" + name
		}
		if !rep.add(group, name, result) {
			return rep, true
		}
	}
}

// fileGroup begins the name of a group of tests that names their file
// (pytest's, Jest's, Vitest's): the file, relative to the project dir,
// follows.
const fileGroup = "file "

// xmlAttr is the value of attribute name="..." in a start tag, its
// references replaced (html's reading of them takes XML's: the five
// predefined entities and character references; pytest writes no other);
// "" where it has none.
func xmlAttr(tag []byte, name string) string {
	key := []byte(" " + name + `="`)
	for off := 0; ; {
		i := bytes.Index(tag[off:], key)
		if i < 0 {
			return ""
		}
		start := off + i + len(key)
		// " name=" must not be the tail of another attribute's value.
		if bytes.Count(tag[:off+i], []byte(`"`))%2 != 0 {
			off = start
			continue
		}
		j := bytes.IndexByte(tag[start:], '"')
		if j < 0 {
			return ""
		}
		return html.UnescapeString(string(tag[start : start+j]))
	}
}
