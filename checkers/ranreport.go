package checkers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/treecache"
)

// Tests not weakened, judged by what ran at the session's stops: for
// runners whose every run reports each test and how it ended — Rust's
// libtest under the detected `cargo test` (a Cargo.toml at the project's
// root, run whole), node:test under the detected `npm test` (its TAP or
// spec output, told by node's summary lines), the detected `pytest` (its
// JUnit XML report, written where donegate tells it), Jest and Vitest
// under the detected `npm test` (their JSON report, likewise) — donegate
// keeps, for the session, the tests that ran at its stops (passed or
// failed), and at a stop where the command passes, every one of them
// must still run and pass, however it was disabled: an attribute, option
// or call in any spelling (#[ignore] through cfg_attr, { skip: true },
// pytest.importorskip), a #[cfg] that leaves it out, a module or file no
// longer compiled or loaded, a config that deselects it. A passing run
// with no report is one where no test ran. A test that moved (another
// binary, module, suite or file, the same name) counts where it passed;
// one whose file the session's start did not have is the session's own.
// Nothing is run at the session's start, so the first stop judges
// nothing by this: the diff rules (see weakened) hold there, and a test
// the agent disables after a stop that ran it is held.

// A runner whose report is read: its name for the record, the command
// for messages, and how its report reads, given the project dir (ok
// false: no report in it). The report is the command's output, or, where
// toFile is set, a file the command writes where toFile's form of the
// command (more arguments, more environment) tells it to.
type ranRunner struct {
	name    string
	command string
	read    func(report []byte, dir string) (rep ranReport, ok bool)
	toFile  func(cmd proc.Command, file string) proc.Command
}

var (
	libtestRunner  = &ranRunner{name: "libtest", command: "cargo test", read: func(o []byte, _ string) (ranReport, bool) { return readLibtest(o), true }}
	nodeTestRunner = &ranRunner{name: "node:test", command: "npm test", read: func(o []byte, _ string) (ranReport, bool) { return readNodeTest(o) }}
	pytestRunner   = &ranRunner{name: "pytest", command: "pytest", read: func(r []byte, _ string) (ranReport, bool) { return readJUnit(r) }, toFile: func(cmd proc.Command, file string) proc.Command {
		cmd.Env = append(cmd.Env, pytestReportEnv(cmd.Env, file)...)
		return cmd
	}}
	// Jest's and Vitest's JSON reports, one shape: npm passes what
	// follows -- to the test script.
	jestRunner = &ranRunner{name: "jest", command: "npm test", read: readJestJSON, toFile: func(cmd proc.Command, file string) proc.Command {
		cmd.Shell += " -- --json --outputFile=" + argWord(file)
		return cmd
	}}
	vitestRunner = &ranRunner{name: "vitest", command: "npm test", read: readJestJSON, toFile: func(cmd proc.Command, file string) proc.Command {
		cmd.Shell += " -- --reporter=default --reporter=json --outputFile.json=" + argWord(file)
		return cmd
	}}
)

// ranRunnerOf is the runner whose report the detected test command of
// the project in dir gives, nil for none read.
func ranRunnerOf(command, from, dir string) *ranRunner {
	switch {
	case command == "cargo test" && from == "Cargo.toml":
		return libtestRunner
	case command == "npm test" && from == "package.json":
		switch jsTestRunner(dir) {
		case "jest":
			return jestRunner
		case "vitest":
			return vitestRunner
		}
		return nodeTestRunner
	case command == "pytest":
		return pytestRunner
	}
	return nil
}

// pytestReportEnv has pytest write its JUnit XML report to file: the
// --junitxml option (and the family that names each test's file) added
// to PYTEST_ADDOPTS, after the person's value, which pytest reads after
// the config's addopts, so that a --junitxml there gives way for this
// run. pytest's terminal output gains one line, naming the file.
func pytestReportEnv(env []string, file string) []string {
	addopts, ok := os.LookupEnv("PYTEST_ADDOPTS")
	for _, kv := range env {
		if v, found := strings.CutPrefix(kv, "PYTEST_ADDOPTS="); found {
			addopts, ok = v, true
		}
	}
	// xunit1: each test names its file.
	opt := "-o junit_family=xunit1 --junitxml=" + shellWord(file)
	if ok && strings.TrimSpace(addopts) != "" {
		opt = addopts + " " + opt
	}
	return []string{"PYTEST_ADDOPTS=" + opt}
}

// ranReport is what a runner reported of the tests that ran: by group (a
// test binary, "calc unittests src/lib.rs"; "node:test"; a file), each
// test and how it ended: "ok", "FAILED" or "ignored" (skipped, todo).
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

// then is r with a later run's results over its own: a test that failed
// in r and passed when run again passed.
func (r ranReport) then(later ranReport) ranReport {
	both := ranReport{Ran: map[string]map[string]string{}}
	for _, rep := range []ranReport{r, later} {
		for group, tests := range rep.Ran {
			if both.Ran[group] == nil {
				both.Ran[group] = map[string]string{}
			}
			maps.Copy(both.Ran[group], tests)
		}
	}
	return both
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
			switch result {
			case "ignored":
				what = fmt.Sprintf("is ignored now; it ran at an earlier stop of this session (it %s then)", then)
			case "FAILED":
				// A flaky pass whose rerun left it out.
				what = fmt.Sprintf("failed in this run of `%s` and was not run again; it ran at an earlier stop of this session (it %s then)", runner.command, then)
			}
			found = append(found, weakness{File: ranSource(binary), Test: name, What: what})
		}
	}
	return found
}

// ranSource is the source file a group names, relative to the project
// dir: libtest's binary "calc unittests src/lib.rs" names src/lib.rs (a
// crate's doc tests name none), and pytest's, Jest's and Vitest's groups
// are fileGroup and the file; "" where it names none (node:test's).
func ranSource(group string) string {
	if rest, ok := strings.CutPrefix(group, fileGroup); ok {
		return rest
	}
	if f := strings.Fields(group); len(f) > 1 && f[0] != "doc-tests" {
		return f[len(f)-1]
	}
	return ""
}

// fromStart keeps the weaknesses of tests that may have existed at the
// session's start (commit base): a test whose source file base did not
// hold is one the session added, not one it began with. A file is looked
// for relative to the project dir and to the work tree's top (pytest
// names a file from its rootdir, which its config may put above the
// project). Where git cannot tell, each is kept.
func fromStart(ctx context.Context, dir, base string, found []weakness) []weakness {
	top, err := treecache.Top(dir)
	if err != nil {
		return found
	}
	prefix, err := filepath.Rel(top, dir)
	if err != nil {
		return found
	}
	prefix = strings.TrimPrefix(filepath.ToSlash(prefix), ".")
	candidates := func(file string) []string {
		f := path.Clean(filepath.ToSlash(file))
		if path.IsAbs(f) || f == ".." || strings.HasPrefix(f, "../") {
			return nil
		}
		return []string{path.Join(prefix, f), f}
	}
	var paths []string
	for _, w := range found {
		for _, c := range candidates(w.File) {
			if w.File != "" && !slices.Contains(paths, c) {
				paths = append(paths, c)
			}
		}
	}
	if len(paths) == 0 {
		return found
	}
	list, err := treecache.Git(ctx, dir, append([]string{"ls-tree", "-r", "-z", "--name-only", "--full-tree", base, "--"}, paths...)...)
	if err != nil {
		return found
	}
	held := strings.Split(string(list), "\x00")
	kept := found[:0:0]
	for _, w := range found {
		cs := candidates(w.File)
		if w.File == "" || cs == nil || slices.ContainsFunc(cs, func(c string) bool { return slices.Contains(held, c) }) {
			kept = append(kept, w)
		}
	}
	return kept
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

// ranReportData is the report a run gave: the file it wrote, where it was
// told to write one (none written is an empty report: no test ran), else
// its output. whole is false where the report is past maxRanOutputBytes
// or cannot be read (a file that is not a regular one, say): nothing is
// judged by it.
func ranReportData(out proc.Outcome, file string) (data []byte, whole bool) {
	if file == "" {
		return out.Output, !out.OutputCut
	}
	f, err := regular.Open(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true
	}
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err = io.ReadAll(io.LimitReader(f, maxRanOutputBytes+1))
	if err != nil || len(data) > maxRanOutputBytes {
		return nil, false
	}
	return data, true
}
