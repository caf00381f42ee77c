package checkers

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// readJUnit reads a JUnit XML report as pytest writes it (--junitxml,
// junit_family xunit1): each <testcase classname="tests.test_calc.TestK"
// name="test_u" file="tests/test_calc.py"> is the test "TestK::test_u"
// (its module left out, as in pytest's node id) of the group "file
// tests/test_calc.py" (where no file is named, the test
// "tests.test_calc.TestK::test_u" of "pytest"), failed where it
// holds <failure> or <error>, ignored where it holds <skipped> (a skip,
// an xfail), else passed. ok is false where the data has no <testsuite>
// (no report). Only
// what pytest writes is read: attributes in double quotes, the five
// predefined entities and character references; a test whose name holds
// another reference keeps it as written, the same at every stop.
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
// entities replaced; "" where it has none.
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
		return xmlUnescape(string(tag[start : start+j]))
	}
}

// xmlUnescape replaces the predefined entities and character references
// (&#10;, &#x9;); any other reference is kept as written.
func xmlUnescape(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '&')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		j := strings.IndexByte(s, ';')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		ref := s[1:j]
		switch ref {
		case "lt":
			b.WriteByte('<')
		case "gt":
			b.WriteByte('>')
		case "amp":
			b.WriteByte('&')
		case "quot":
			b.WriteByte('"')
		case "apos":
			b.WriteByte('\'')
		default:
			r, ok := charRef(ref)
			if !ok {
				b.WriteString(s[:j+1])
			} else {
				b.WriteRune(r)
			}
		}
		s = s[j+1:]
	}
}

// charRef reads a character reference's body: "#10", "#x9".
func charRef(ref string) (rune, bool) {
	digits, base := strings.CutPrefix(ref, "#")
	if !base {
		return 0, false
	}
	b := 10
	if h, ok := strings.CutPrefix(digits, "x"); ok {
		digits, b = h, 16
	}
	n, err := strconv.ParseUint(digits, b, 21)
	if err != nil || digits == "" || !utf8.ValidRune(rune(n)) {
		return 0, false
	}
	return rune(n), true
}
