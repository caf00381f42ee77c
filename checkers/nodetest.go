package checkers

import (
	"bufio"
	"regexp"
	"strings"
	"sync"
)

// readNodeTest reads the output of node's test runner (node --test, under
// npm test) in either of its default reporters — TAP (node 20 and 22
// when the output is no terminal) and spec (node 23 on) — and ok is true
// where the output is node:test's: it has the runner's summary (TAP's
// "# tests N" and "# pass N", spec's "ℹ tests N" and "ℹ pass N"). A
// test is named by its suites and its name ("math > mul"); suites are
// not tests; a SKIP or TODO is "ignored" (a todo test runs, and its
// failure fails nothing).
func readNodeTest(output []byte) (rep ranReport, ok bool) {
	text := stripANSI(string(output))
	re := nodeTestRegexps()
	switch {
	case re.tapSummary.MatchString(text) && re.tapPass.MatchString(text):
		return readNodeTAP(text, re.tapResult), true
	case re.specSummary.MatchString(text) && re.specPass.MatchString(text):
		return readNodeSpec(text, re.specResult), true
	}
	return ranReport{}, false
}

// nodeTestRegexps are compiled when an output is read, not when a hook
// starts (they are 15 KB of the hooks' start-up otherwise).
var nodeTestRegexps = sync.OnceValue(func() (re struct {
	tapSummary, tapPass, specSummary, specPass *regexp.Regexp
	// tapResult is a TAP result line: its indent, ok or not, name and
	// directive; specResult a spec reporter's: its indent, mark, name,
	// time and directive.
	tapResult, specResult *regexp.Regexp
}) {
	re.tapSummary = regexp.MustCompile(`(?m)^# tests \d+$`)
	re.tapPass = regexp.MustCompile(`(?m)^# pass \d+$`)
	re.specSummary = regexp.MustCompile(`(?m)^ℹ tests \d+$`)
	re.specPass = regexp.MustCompile(`(?m)^ℹ pass \d+$`)
	re.tapResult = regexp.MustCompile(`^( *)(ok|not ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$`)
	re.specResult = regexp.MustCompile(`^( *)(✔|✖|﹣) (.*?)(?: \([0-9.]+m?s\))?(?: # (SKIP|TODO)\b.*)?$`)
	return re
})

// nodeTestGroup is the one group of node:test's tests: its output names
// no file for a test that passed.
const nodeTestGroup = "node:test"

// readNodeTAP reads node's TAP: "# Subtest: NAME" opens a test at its
// indent (4 spaces a level), its "ok N - NAME" or "not ok N - NAME" line
// ends it, and its YAML block (between "---" and "...") says "type:
// 'suite'" for a suite; nothing else in the block is read.
func readNodeTAP(text string, result *regexp.Regexp) ranReport {
	rep := ranReport{Ran: map[string]map[string]string{}}
	var stack []string // the open subtests' names, by level
	type pending struct{ name, result string }
	var last *pending // the latest result, until its YAML says whether it is a suite
	flush := func() bool {
		if last == nil {
			return true
		}
		p := last
		last = nil
		return rep.add(nodeTestGroup, p.name, p.result)
	}
	inYAML := false // in a result's YAML block (an error's text may hold anything)
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		level := (len(line) - len(strings.TrimLeft(line, " "))) / 4
		switch {
		case inYAML:
			if trimmed == "type: 'suite'" {
				last = nil
			}
			inYAML = trimmed != "..."
		case trimmed == "---":
			inYAML = true
		case strings.HasPrefix(trimmed, "# Subtest: "):
			if !flush() {
				return rep
			}
			if level > len(stack) {
				level = len(stack)
			}
			stack = append(stack[:level], strings.TrimPrefix(trimmed, "# Subtest: "))
		default:
			m := result.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			if !flush() {
				return rep
			}
			result := "ok"
			switch {
			case m[4] != "":
				result = "ignored"
			case m[2] == "not ok":
				result = "FAILED"
			}
			path := append(append([]string{}, stack[:min(level, len(stack))]...), m[3])
			last = &pending{name: strings.Join(path, " > "), result: result}
		}
	}
	flush()
	return rep
}

// readNodeSpec reads node's spec reporter: "▶ NAME" opens a suite at its
// indent (2 spaces a level), and the result line of the same name at that
// indent closes it; "✔", "✖" and "﹣" lines below are its tests. What
// follows "✖ failing tests:" repeats the failures, and is not read.
func readNodeSpec(text string, result *regexp.Regexp) ranReport {
	rep := ranReport{Ran: map[string]map[string]string{}}
	var suites []string // the open suites' names, by level
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "✖ failing tests:" {
			break
		}
		level := (len(line) - len(strings.TrimLeft(line, " "))) / 2
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "▶ "); ok {
			if level > len(suites) {
				level = len(suites)
			}
			suites = append(suites[:level], rest)
			continue
		}
		m := result.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if level < len(suites) && suites[level] == m[3] {
			suites = suites[:level] // the suite's own line
			continue
		}
		result := "ok"
		switch {
		case m[4] != "" || m[2] == "﹣":
			result = "ignored"
		case m[2] == "✖":
			result = "FAILED"
		}
		path := append(append([]string{}, suites[:min(level, len(suites))]...), m[3])
		if !rep.add(nodeTestGroup, strings.Join(path, " > "), result) {
			break
		}
	}
	return rep
}
