package checkers

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/internal/treecache"
)

// Tests not weakened, judged by what ran at the session's stops: for
// runners whose every run prints each test and how it ended — Rust's
// libtest under the detected `cargo test` (a Cargo.toml at the project's
// root, run whole), node:test under the detected `npm test` (its TAP or
// spec output, told by node's summary lines) — donegate keeps, for the
// session, the tests that ran at its stops (passed or failed), and at a
// stop where the command passes, every one of them must still run and
// pass, however it was disabled: an attribute or option in any spelling
// (#[ignore] through cfg_attr, { skip: true }, { todo: true }), a #[cfg]
// that leaves it out, a module or file no longer compiled or loaded. A
// test that moved (another binary, module or suite, the same name)
// counts where it passed. Nothing is run at the session's start, so the
// first stop judges nothing by this: the diff rules (see weakened) hold
// there, and a test the agent disables after a stop that ran it is held.

// A runner whose output is read: its name for the record, the command
// for messages, and how its output reads (ok false: no report in it).
type ranRunner struct {
	name    string
	command string
	read    func(output []byte) (rep ranReport, ok bool)
}

var (
	libtestRunner  = &ranRunner{name: "libtest", command: "cargo test", read: func(o []byte) (ranReport, bool) { return readLibtest(o), true }}
	nodeTestRunner = &ranRunner{name: "node:test", command: "npm test", read: readNodeTest}
)

// ranRunnerOf is the runner whose output a detected test command prints,
// nil for none read.
func ranRunnerOf(command, from string) *ranRunner {
	switch {
	case command == "cargo test" && from == "Cargo.toml":
		return libtestRunner
	case command == "npm test" && from == "package.json":
		return nodeTestRunner
	}
	return nil
}

// ranReport is what a runner printed of the tests that ran: by group (a
// test binary, "calc unittests src/lib.rs"; "node:test"), each test and
// how it ended: "ok", "FAILED" or "ignored" (skipped, todo).
type ranReport struct {
	Ran map[string]map[string]string `json:"ran"`
	n   int                          // the results add took
}

// add notes a test's result, a failure winning over a pass of the same
// name; false past maxRanTests results, the rest not kept.
func (r *ranReport) add(group, name, result string) bool {
	if r.n++; r.n > maxRanTests {
		return false
	}
	if r.Ran[group] == nil {
		r.Ran[group] = map[string]string{}
	}
	if prev := r.Ran[group][name]; prev != "ok" || result == "FAILED" {
		r.Ran[group][name] = result
	}
	return true
}

// maxRanOutputBytes bounds the output of a read runner kept to be read:
// past it (some 60,000 tests) the report is not whole, and nothing is
// judged by it.
const maxRanOutputBytes = 4 << 20

// maxRanTests bounds the tests a report keeps: past it the rest are not
// judged.
const maxRanTests = 20000

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

// ranSessionKey is the cache key of the session's record of the tests
// runner ran; "" where there is no session or no cache.
func (c *Context) ranSessionKey(runner *ranRunner) string {
	if c.CacheDir == "" || c.Event == nil || c.Event.SessionID == "" {
		return ""
	}
	return treecache.Key("tests-ran", runner.name, c.Event.SessionID, c.ProjectDir)
}

// ranEarlier is the session's record: the tests runner ran (passed or
// failed) at its earlier stops, by group.
func (c *Context) ranEarlier(runner *ranRunner) ranReport {
	rep := ranReport{Ran: map[string]map[string]string{}}
	if key := c.ranSessionKey(runner); key != "" {
		if e, ok := c.cache().Get(key); ok {
			_ = json.Unmarshal(e.Ran, &rep)
		}
	}
	return rep
}

// ranRemember adds the tests of a run that ran (passed or failed) to the
// session's record, up to maxRanTests.
func (c *Context) ranRemember(runner *ranRunner, now ranReport) {
	key := c.ranSessionKey(runner)
	if key == "" || c.ReadOnly {
		return
	}
	rec := c.ranEarlier(runner)
	n := 0
	for _, tests := range rec.Ran {
		n += len(tests)
	}
	for binary, tests := range now.Ran {
		for name, result := range tests {
			if result == "ignored" || rec.Ran[binary][name] != "" {
				continue
			}
			if n++; n > maxRanTests {
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

// ranWeaknesses compares a passing run of runner's command with the tests
// that ran at the session's earlier stops: each that neither passed now,
// in its group or (moved) under the same name elsewhere, is a weakness.
func ranWeaknesses(runner *ranRunner, earlier, now ranReport) []weakness {
	moved := map[string]bool{} // the last segment of a test's name that passed now where none ran before
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
			if tests[name] == "ignored" || result == "ok" || (result == "" && moved[lastSegment(name)]) {
				continue
			}
			then := "passed"
			if tests[name] == "FAILED" {
				then = "failed"
			}
			what := fmt.Sprintf("no longer runs: it ran at an earlier stop of this session (it %s then), and `%s` reports no result for it now", then, runner.command)
			if result == "ignored" {
				what = fmt.Sprintf("is ignored now; it ran at an earlier stop of this session (it %s then)", then)
			}
			found = append(found, weakness{File: ranSource(binary), Test: name, What: what})
		}
	}
	return found
}

// ranSource is the source a group's name holds ("src/lib.rs" of "calc
// unittests src/lib.rs"), "" where it names none (node:test's).
func ranSource(group string) string {
	if f := strings.Fields(group); len(f) > 1 {
		return f[len(f)-1]
	}
	return ""
}

// lastSegment is a test's name without its module path or suites.
func lastSegment(name string) string {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	if i := strings.LastIndex(name, " > "); i >= 0 {
		name = name[i+3:]
	}
	return name
}
