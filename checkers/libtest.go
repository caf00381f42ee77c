package checkers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/internal/treecache"
)

// Tests not weakened, judged by what ran: Rust's libtest. The detected
// `cargo test` (a Cargo.toml at the project's root, run whole) prints,
// for each test binary it runs, every test and how it ended, whatever
// made a test not run: an attribute in any spelling (#[ignore] through
// cfg_attr), a #[cfg] that leaves it out, a module no longer declared, a
// file renamed out of tests/. donegate keeps, for the session, the tests
// each binary ran at its stops (passed or failed), and at a stop where
// `cargo test` passes, every test that ran at an earlier stop of the
// session must still run and pass. A test that moved (another binary or
// module, the same name) counts where it passed. Nothing is built at the
// session's start, so the first stop judges nothing by this: the diff
// rules (see weakened) hold there, and a test the agent disables after
// a stop that ran it is held.

// libtestReport is what libtest printed of the tests that ran: by test
// binary ("calc unittests src/lib.rs", "doc-tests calc"), each test and
// how it ended: "ok", "FAILED" or "ignored".
type libtestReport struct {
	Ran map[string]map[string]string `json:"ran"`
}

// isLibtestCommand reports whether a test command is the detected
// `cargo test`, whose output is libtest's, run whole.
func isLibtestCommand(command, from string) bool {
	return command == "cargo test" && from == "Cargo.toml"
}

// maxLibtestOutputBytes bounds the output of cargo test kept to be read:
// past it (some 60,000 tests) the report is not whole, and nothing is
// judged by it.
const maxLibtestOutputBytes = 4 << 20

// maxLibtestTests bounds the tests a report keeps: past it the rest are
// not judged.
const maxLibtestTests = 20000

// readLibtest reads cargo test's output (stdout and stderr as they came):
// its "Running" and "Doc-tests" lines name each binary, libtest's "test
// NAME ... RESULT" lines its tests. A doc test's line number is left out
// of its name (an edit above it moves it).
func readLibtest(output []byte) libtestReport {
	rep := libtestReport{Ran: map[string]map[string]string{}}
	binary := ""
	n := 0
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
		if n++; n > maxLibtestTests {
			break
		}
		if rep.Ran[binary] == nil {
			rep.Ran[binary] = map[string]string{}
		}
		if prev := rep.Ran[binary][name]; prev != "ok" || result == "FAILED" {
			rep.Ran[binary][name] = result
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

// stripANSI drops terminal escape sequences (CSI: ESC [ ... letter): a
// CARGO_TERM_COLOR=always colours cargo's lines.
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// libtestSessionKey is the cache key of the session's record of the
// tests that ran; "" where there is no session or no cache.
func (c *Context) libtestSessionKey() string {
	if c.CacheDir == "" || c.Event == nil || c.Event.SessionID == "" {
		return ""
	}
	return treecache.Key("libtest-ran", c.Event.SessionID, c.ProjectDir)
}

// libtestEarlier is the session's record: the tests that ran (passed or
// failed) at its earlier stops, by binary.
func (c *Context) libtestEarlier() libtestReport {
	rep := libtestReport{Ran: map[string]map[string]string{}}
	if key := c.libtestSessionKey(); key != "" {
		if e, ok := c.cache().Get(key); ok {
			_ = json.Unmarshal(e.Ran, &rep)
		}
	}
	return rep
}

// libtestRemember adds the tests of a run that ran (passed or failed) to
// the session's record, up to maxLibtestTests.
func (c *Context) libtestRemember(now libtestReport) {
	key := c.libtestSessionKey()
	if key == "" || c.ReadOnly {
		return
	}
	rec := c.libtestEarlier()
	n := 0
	for _, tests := range rec.Ran {
		n += len(tests)
	}
	for binary, tests := range now.Ran {
		for name, result := range tests {
			if result == "ignored" || rec.Ran[binary][name] != "" {
				continue
			}
			if n++; n > maxLibtestTests {
				break
			}
			if rec.Ran[binary] == nil {
				rec.Ran[binary] = map[string]string{}
			}
			rec.Ran[binary][name] = result
		}
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	_ = c.cache().Put(key, treecache.Entry{Complete: true, Ran: data, At: time.Now()})
}

// libtestWeaknesses compares a passing run's report with the tests that
// ran at the session's earlier stops: each that neither passed now, in
// its binary or (moved) under the same name in another, is a weakness.
func libtestWeaknesses(earlier, now libtestReport) []weakness {
	moved := map[string]bool{} // the last path segment of a test that passed now where none ran before
	for binary, tests := range now.Ran {
		for name, result := range tests {
			if result == "ok" && earlier.Ran[binary][name] == "" {
				moved[lastSegment(name)] = true
			}
		}
	}
	var found []weakness
	for _, binary := range slices.Sorted(maps.Keys(earlier.Ran)) {
		tests := earlier.Ran[binary]
		for _, name := range slices.Sorted(maps.Keys(tests)) {
			result := now.Ran[binary][name]
			if result == "ok" || (result == "" && moved[lastSegment(name)]) {
				continue
			}
			then := "passed"
			if tests[name] == "FAILED" {
				then = "failed"
			}
			what := fmt.Sprintf("no longer runs: it ran at an earlier stop of this session (it %s then), and `cargo test` reports no result for it now", then)
			if result == "ignored" {
				what = fmt.Sprintf("is ignored now; it ran at an earlier stop of this session (it %s then)", then)
			}
			found = append(found, weakness{File: libtestSource(binary), Test: name, What: what})
		}
	}
	return found
}

// libtestSource is the source a binary's name holds ("src/lib.rs" of
// "calc unittests src/lib.rs"), else the name.
func libtestSource(binary string) string {
	if f := strings.Fields(binary); len(f) > 1 {
		return f[len(f)-1]
	}
	return binary
}

// lastSegment is a test's name without its module path.
func lastSegment(name string) string {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		return name[i+2:]
	}
	return name
}
