package checkers

import (
	"bufio"
	"bytes"
	"strings"
)

// readLibtest reads cargo test's output (stdout and stderr as they came):
// its "Running" and "Doc-tests" lines name each binary, libtest's "test
// NAME ... RESULT" lines its tests. A doc test's line number is left out
// of its name (an edit above it moves it).
func readLibtest(output []byte) ranReport {
	rep := ranReport{Ran: map[string]map[string]string{}}
	binary := ""
	sc := bufio.NewScanner(bytes.NewReader(output))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(stripANSI(sc.Text()))
		if rest, ok := strings.CutPrefix(line, "Running "); ok {
			binary = libtestBinary(rest)
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Doc-tests "); ok {
			binary = "doc-tests " + strings.TrimSpace(rest)
			continue
		}
		rest, ok := strings.CutPrefix(line, "test ")
		if !ok || binary == "" {
			continue
		}
		i := strings.LastIndex(rest, " ... ")
		if i < 0 {
			continue
		}
		name, result := rest[:i], rest[i+len(" ... "):]
		switch {
		case result == "ok", result == "FAILED":
		case result == "ignored" || strings.HasPrefix(result, "ignored,"):
			result = "ignored"
		default:
			continue // a benchmark's "bench:", a line of the test's own
		}
		name = strings.TrimSuffix(name, " - should panic")
		if strings.HasPrefix(binary, "doc-tests ") {
			if j := strings.LastIndex(name, " (line "); j > 0 && strings.HasSuffix(name, ")") {
				name = name[:j]
			}
		}
		if !rep.add(binary, name, result) {
			break
		}
	}
	return rep
}

// libtestBinary names a test binary from what follows cargo's "Running":
// "unittests src/lib.rs (target/debug/deps/calc-0f3a2c415e6b4d7c)" is
// "calc unittests src/lib.rs", the crate's name before its hash.
func libtestBinary(s string) string {
	desc, path := s, ""
	if i := strings.LastIndex(s, " ("); i >= 0 && strings.HasSuffix(s, ")") {
		desc, path = s[:i], s[i+2:len(s)-1]
	}
	// On Windows cargo names it with \ and .exe.
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		path = path[i+1:]
	}
	stem := strings.TrimSuffix(path, ".exe")
	if i := strings.LastIndexByte(stem, '-'); i > 0 {
		stem = stem[:i]
	}
	return strings.TrimSpace(stem + " " + desc)
}
