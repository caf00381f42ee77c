package checkers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/internal/treecache"
)

// A test suite that passes because the change made it test less is no
// pass. weakening compares the project's tests with a baseline — the
// commit HEAD was on when the session began, else HEAD — and finds what
// the change did to them:
//
//   - skip, ignore and focus markers it adds: Go's t.Skip, t.SkipNow and
//     t.Skipf; Python's pytest.mark.skip, skipif and xfail, unittest.skip
//     (skipIf, skipUnless, expectedFailure) and pytest.skip(; JavaScript's
//     and TypeScript's it.skip, describe.skip, test.skip, xit, xdescribe,
//     test.todo and .only (which silently drops every other test), fit and
//     fdescribe; Rust's #[ignore]; Bazel's "manual" tag, which leaves a
//     target out of `bazel test //...`;
//   - test functions it deletes (Go's TestX and FuzzX, Python's test_x
//     functions and TestX classes, it("...") and test("...") cases, Rust's
//     #[test] functions, Bazel's test rules in BUILD files: a rule
//     X_test(name = "...") or a name ending in _test or _tests) that no
//     other file gains, and test files it deletes;
//   - a test command it turns into a no-op: package.json's "test" script
//     or a makefile's test recipe that becomes empty, true, exit 0, echo
//     only, or ends in || true.
//
// Only git can say what changed: outside a git work tree, in one with no
// commit, or in one whose first commit the session made, nothing is
// compared. Lines in comments do not count.

// weakeningOptions are the values of a test checker's "weakening".
const (
	weakeningHold   = "hold"
	weakeningIgnore = "ignore"
)

// A weakness is one way the change weakened the tests.
type weakness struct {
	File string `json:"File"`
	Line int    `json:"Line"` // 0: the whole file
	Test string `json:"Test"` // the test it concerns, "" when unknown
	What string `json:"What"` // "adds t.Skip", "deletes the test"
}

// testLang is a language whose test files and markers are known.
type testLang struct {
	name   string
	isTest func(p string) bool
	// marker matches what skips, ignores or focuses tests.
	marker *regexp.Regexp
	// def matches a test's definition; its last group is the test's name.
	def *regexp.Regexp
	// comment reports whether a trimmed line is a comment.
	comment func(line string) bool
}

func slashComment(l string) bool {
	return strings.HasPrefix(l, "//") || strings.HasPrefix(l, "/*") || strings.HasPrefix(l, "*")
}

// testLangs are the languages' rules, their patterns compiled at first
// use: compiled in package variables they cost every hook's start-up
// 100 KB of allocations (TestStartupDoesNoNeedlessWork).
var testLangs = sync.OnceValue(func() []testLang {
	jsTestFile := regexp.MustCompile(`\.(test|spec)\.[cm]?[jt]sx?$`)
	jsFile := regexp.MustCompile(`\.[cm]?[jt]sx?$`)
	return []testLang{
		{
			name:    "Go",
			isTest:  func(p string) bool { return strings.HasSuffix(p, "_test.go") },
			marker:  regexp.MustCompile(`\b[a-zA-Z_]\w*\.(Skip|SkipNow|Skipf)\(`),
			def:     regexp.MustCompile(`^func ((?:Test|Fuzz)\w*)\(`),
			comment: slashComment,
		},
		{
			name: "Python",
			isTest: func(p string) bool {
				base := path.Base(p)
				return strings.HasSuffix(p, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") ||
					strings.HasPrefix(p, "tests/") || strings.Contains(p, "/tests/"))
			},
			marker:  regexp.MustCompile(`\bpytest\.mark\.(skip|skipif|xfail)\b|\bunittest\.(skip|skipIf|skipUnless|expectedFailure)\b|\bpytest\.(skip|xfail)\(`),
			def:     regexp.MustCompile(`^\s*(?:async\s+def|def|class)\s+((?:test|Test)\w*)`),
			comment: func(l string) bool { return strings.HasPrefix(l, "#") },
		},
		{
			name: "JavaScript",
			isTest: func(p string) bool {
				return jsTestFile.MatchString(p) || (strings.Contains("/"+p, "/__tests__/") && jsFile.MatchString(p))
			},
			marker:  regexp.MustCompile(`\b(it|describe|test|context|suite)\.(skip|only|todo)\b|(^|[^\w.])(xit|xdescribe|xtest|fit|fdescribe)\s*\(`),
			def:     regexp.MustCompile(`(?:^|[^\w.])[xf]?(?:it|test)(?:\.\w+)?\s*\(\s*(?:'([^']+)'|"([^"]+)"|` + "`([^`]+)`" + `)`),
			comment: slashComment,
		},
		{
			name:    "Bazel",
			isTest:  func(p string) bool { b := path.Base(p); return b == "BUILD" || b == "BUILD.bazel" },
			marker:  regexp.MustCompile(`"manual"`),
			def:     regexp.MustCompile(`^\s*\w+_test\(\s*name\s*=\s*"([^"]+)"|^\s*name\s*=\s*"(\w*_tests?)"`),
			comment: func(l string) bool { return strings.HasPrefix(l, "#") },
		},
		{
			name:    "Rust",
			isTest:  func(p string) bool { return strings.HasSuffix(p, ".rs") },
			marker:  regexp.MustCompile(`#\[ignore\b`),
			def:     regexp.MustCompile(`^\s*(?:pub\s+)?(?:async\s+)?fn\s+(\w+)`),
			comment: slashComment,
		},
	}
})

// rustTestAttr marks the next fn as a Rust test.
var rustTestAttr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*#\[(\w+::)*test\b`) })

// langOf returns the test language of the file p, nil for one that holds
// no tests.
func langOf(p string) *testLang {
	langs := testLangs()
	for i := range langs {
		if langs[i].isTest(p) {
			return &langs[i]
		}
	}
	return nil
}

// testPathspecs limit the diff to what the rules read.
var testPathspecs = []string{"*_test.go", "*.py", "*.test.*", "*.spec.*", "*__tests__/*", "*.rs", "*BUILD", "*BUILD.bazel", "package.json", "Makefile", "makefile", "GNUmakefile"}

// maxDiffBytes bounds the diff read: past it, what was read is judged.
const maxDiffBytes = 16 << 20

// maxWeaknesses is how many a failure names; it says how many more.
const maxWeaknesses = 20

// testBaseline is where a session's tests are compared from, per work
// tree (kept in the test type's slot of the session record).
type testBaseline struct {
	Tree   string `json:"tree"`
	Commit string `json:"commit"`
}

// maxTestBaselines bounds the baselines kept per session.
const maxTestBaselines = 8

// weakened returns how the change weakened the tests of the project, and
// the baseline it compared with ("" when nothing could be compared).
func weakened(ctx context.Context, c *Context) (found []weakness, base string, err error) {
	st, err := c.GitStatus(ctx)
	if err != nil {
		return nil, "", err
	}
	if st.NotRepo != nil || st.Head == "" {
		return nil, "", nil
	}
	base = c.testBaseline(ctx, st)
	if base == "" {
		// The session made the repository's first commit: there was
		// nothing to compare with when it began, as in a repository
		// with no commit.
		return nil, "", nil
	}
	// What the tree holds decides the answer, as it does a test result's:
	// a stop on an unchanged tree reuses it and starts no git.
	var key string
	if c.CacheDir != "" {
		if state, err := c.treeState(ctx, DefaultTimeout); err == nil {
			key = treecache.Key("tests-weakened", base, c.ProjectDir, state)
			if e, ok := c.cache().Get(key); ok && json.Unmarshal([]byte(e.Feedback), &found) == nil {
				return found, base, nil
			}
		}
	}
	defer func() {
		if err == nil && key != "" {
			data, _ := json.Marshal(found)
			_ = c.cache().Put(key, treecache.Entry{Complete: len(found) == 0, Feedback: string(data), At: time.Now()})
		}
	}()
	args := append([]string{"-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv",
		"-M", "-U0", "--relative", base, "--"}, testPathspecs...)
	out, err := treecache.Git(ctx, c.ProjectDir, args...)
	if err != nil {
		return nil, base, fmt.Errorf("comparing the tests with %s: %w", short(base), err)
	}
	if len(out) > maxDiffBytes {
		out = out[:maxDiffBytes]
	}
	d := parseDiff(out)
	// Untracked test files count as added: a new file's it.only drops
	// every other test as surely as an edited one's.
	if list, err := treecache.Git(ctx, c.ProjectDir, append([]string{"ls-files", "--others", "--exclude-standard", "-z", "--"}, testPathspecs...)...); err == nil {
		for _, p := range strings.Split(string(list), "\x00") {
			if p == "" || langOf(p) == nil {
				continue
			}
			data, err := readManifest(c.ProjectDir, p)
			if err != nil || data == nil {
				continue
			}
			f := &fileDiff{path: p, added: true}
			for i, l := range strings.Split(string(data), "\n") {
				f.plus = append(f.plus, diffLine{i + 1, l})
			}
			d = append(d, f)
		}
	}
	found = d.weaknesses(func(p string) []byte {
		data, _ := readManifest(c.ProjectDir, p)
		return data
	})
	found = append(found, noOpCommands(ctx, c, d, base)...)
	return found, base, nil
}

// testBaseline is the commit the session's tests are compared with: the
// one recorded at the session's first check in this tree, else HEAD when
// the session began (its transcript's start in HEAD's reflog), else HEAD.
// A check with no session (closer check) compares with HEAD.
func (c *Context) testBaseline(ctx context.Context, st *treecache.Status) string {
	if c.Event == nil || c.Event.SessionID == "" || c.StateDir == "" {
		return st.Head
	}
	base := st.Head
	record := func(s *state.Session) error {
		var bs []testBaseline
		s.Get(testTypeName, &bs)
		for _, b := range bs {
			if b.Tree == st.Dir {
				base = b.Commit
				return nil
			}
		}
		if h, ok := headAtStart(ctx, st, c.Event.TranscriptPath); ok {
			base = h
		}
		bs = append(bs, testBaseline{Tree: st.Dir, Commit: base})
		if n := len(bs); n > maxTestBaselines {
			bs = bs[n-maxTestBaselines:]
		}
		return s.Put(testTypeName, bs)
	}
	store := state.Store{Dir: c.StateDir, ReadOnly: c.ReadOnly}
	if err := store.Update(c.Event.SessionID, record); err != nil {
		return st.Head // comparing with HEAD is the best there is
	}
	return base
}

// diffLine is a line a diff removes or adds, with its line number in the
// old or the new file.
type diffLine struct {
	n    int
	text string
}

// fileDiff is what a diff does to one file.
type fileDiff struct {
	path, oldPath  string
	deleted, added bool
	minus, plus    []diffLine
}

type diff []*fileDiff

var hunkHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@`) })

// parseDiff reads `git diff -U0` output.
func parseDiff(out []byte) diff {
	var d diff
	var f *fileDiff
	var oldN, newN int
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "diff --git "):
			f = &fileDiff{}
			d = append(d, f)
			if i := strings.LastIndex(l, " b/"); i >= 0 {
				f.path = l[i+3:]
				f.oldPath = f.path
			}
		case f == nil:
		case strings.HasPrefix(l, "deleted file mode"):
			f.deleted = true
		case strings.HasPrefix(l, "new file mode"):
			f.added = true
		case strings.HasPrefix(l, "rename from "):
			f.oldPath = strings.TrimPrefix(l, "rename from ")
		case strings.HasPrefix(l, "rename to "):
			f.path = strings.TrimPrefix(l, "rename to ")
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
		case strings.HasPrefix(l, "@@"):
			if m := hunkHeader().FindStringSubmatch(l); m != nil {
				oldN, _ = strconv.Atoi(m[1])
				newN, _ = strconv.Atoi(m[2])
			}
		case strings.HasPrefix(l, "-"):
			f.minus = append(f.minus, diffLine{oldN, l[1:]})
			oldN++
		case strings.HasPrefix(l, "+"):
			f.plus = append(f.plus, diffLine{newN, l[1:]})
			newN++
		}
	}
	return d
}

// defs returns the tests lines define, by name, with their line numbers.
func (lang *testLang) defs(lines []diffLine) map[string]int {
	out := map[string]int{}
	pendingRust := false
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if lang.comment(t) {
			continue
		}
		if lang.name == "Rust" {
			switch {
			case rustTestAttr().MatchString(l.text):
				pendingRust = true
			case strings.HasPrefix(t, "#["):
			default:
				if m := lang.def.FindStringSubmatch(l.text); m != nil && pendingRust {
					out[m[1]] = l.n
				}
				pendingRust = false
			}
			continue
		}
		if m := lang.def.FindStringSubmatch(l.text); m != nil {
			for i := len(m) - 1; i > 0; i-- {
				if m[i] != "" {
					out[m[i]] = l.n
					break
				}
			}
		}
	}
	return out
}

// weaknesses finds the markers added and the tests deleted; current
// reads a file as it is now (nil when it cannot), to name the test a
// marker is in.
func (d diff) weaknesses(current func(p string) []byte) []weakness {
	var out []weakness
	added := map[string]bool{} // test names defined in added lines, anywhere
	for _, f := range d {
		if lang := langOf(f.path); lang != nil {
			for name := range lang.defs(f.plus) {
				added[lang.name+" "+name] = true
			}
		}
	}
	for _, f := range d {
		lang := langOf(f.path)
		if lang == nil {
			continue
		}
		// Markers the change adds, less those it only moved.
		removed := map[string]int{}
		for _, l := range f.minus {
			if t := strings.TrimSpace(l.text); !lang.comment(t) && lang.marker.MatchString(t) {
				removed[t]++
			}
		}
		for _, l := range f.plus {
			t := strings.TrimSpace(l.text)
			if lang.comment(t) {
				continue
			}
			m := lang.marker.FindString(t)
			if m == "" {
				continue
			}
			if removed[t] > 0 {
				removed[t]--
				continue
			}
			out = append(out, weakness{File: f.path, Line: l.n, Test: enclosingTest(lang, current(f.path), l), What: "adds " + strings.TrimRight(strings.TrimLeft(m, " \t(.!"), "( \t")})
		}
		// Tests the change deletes that no file gains.
		oldLang := langOf(f.oldPath)
		if oldLang == nil {
			continue
		}
		gone := oldLang.defs(f.minus)
		var names []string
		for name := range gone {
			if !added[oldLang.name+" "+name] {
				names = append(names, name)
			}
		}
		slices.SortFunc(names, func(a, b string) int { return gone[a] - gone[b] })
		if f.deleted {
			w := weakness{File: f.oldPath, What: "deletes the test file"}
			if len(names) > 0 {
				w.What += " and its tests " + strings.Join(names, ", ")
			}
			out = append(out, w)
			continue
		}
		for _, name := range names {
			out = append(out, weakness{File: f.oldPath, Line: gone[name], Test: name, What: "deletes the test"})
		}
	}
	return out
}

// enclosingTest is the test a marker line of the file data is in: the
// next one defined after a decorator or attribute (@pytest.mark.skip,
// #[ignore]), else the nearest one defined at or before it; "" when
// unknown.
func enclosingTest(lang *testLang, data []byte, at diffLine) string {
	var lines []diffLine
	for i, l := range strings.Split(string(data), "\n") {
		lines = append(lines, diffLine{i + 1, l})
	}
	t := strings.TrimSpace(at.text)
	decorates := strings.HasPrefix(t, "@") || strings.HasPrefix(t, "#[")
	best, bestN := "", 0
	for name, n := range lang.defs(lines) {
		switch {
		case decorates && n > at.n && (bestN == 0 || n < bestN):
			best, bestN = name, n
		case !decorates && n <= at.n && n >= bestN:
			best, bestN = name, n
		}
	}
	return best
}

// noOpCommands finds a test command the change turned into a no-op:
// package.json's "test" script, a makefile's test recipe.
func noOpCommands(ctx context.Context, c *Context, d diff, base string) []weakness {
	var out []weakness
	for _, f := range d {
		if f.deleted || f.added || f.path != f.oldPath {
			continue
		}
		var script func([]byte) (string, bool)
		switch f.path {
		case "package.json":
			script = func(data []byte) (string, bool) {
				v := gjson.GetBytes(data, "scripts.test")
				return v.Str, v.Type == gjson.String
			}
		case "Makefile", "makefile", "GNUmakefile":
			script = func(data []byte) (string, bool) { return makeRecipe(data, "test") }
		default:
			continue
		}
		old, err := treecache.Git(ctx, c.ProjectDir, "show", base+":./"+f.path)
		if err != nil {
			continue
		}
		cur, err := readManifest(c.ProjectDir, f.path)
		if err != nil || cur == nil {
			continue
		}
		was, hadOne := script(old)
		now, hasOne := script(cur)
		switch {
		case !hadOne || noOp(was):
		case !hasOne:
			out = append(out, weakness{File: f.path, What: "removes the test command `" + oneLine(was) + "`"})
		case noOp(now):
			out = append(out, weakness{File: f.path, What: fmt.Sprintf("turns the test command `%s` into `%s`, which tests nothing", oneLine(was), oneLine(now))})
		}
	}
	return out
}

// oneLine is a command for a message's one line: each of its lines (a
// recipe's, which make runs one after the other) with its space folded,
// joined by "; ", so that two lines do not read as one command.
func oneLine(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "; ")
}

// makeRecipe returns the recipe of target in a makefile, its lines
// joined, and whether it has a rule.
func makeRecipe(data []byte, target string) (string, bool) {
	var recipe []string
	in, found := false, false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case in && strings.HasPrefix(line, "\t"):
			recipe = append(recipe, strings.TrimLeft(strings.TrimSpace(line), "@-+"))
		case in && strings.TrimSpace(line) == "":
		default:
			in = false
			if hasMakeTarget([]byte(line), target) {
				in, found = true, true
				if i := strings.Index(line, ";"); i >= 0 {
					recipe = append(recipe, strings.TrimSpace(line[i+1:]))
				}
			}
		}
	}
	return strings.Join(recipe, "\n"), found
}

// noOp reports whether a shell command tests nothing: empty, only true,
// :, exit 0, echo or printf, ending in || true (or || :, || exit 0), or
// ending in exit 0 after what it ran.
func noOp(cmd string) bool {
	cmd = strings.TrimSpace(cmd)
	if cmd == "" {
		return true
	}
	for _, tail := range []string{"|| true", "||true", "|| :", "|| exit 0"} {
		if strings.HasSuffix(cmd, tail) {
			return true
		}
	}
	stmts := strings.FieldsFunc(cmd, func(r rune) bool { return r == ';' || r == '\n' })
	if n := len(stmts); n > 1 && trivial(stmts[n-1]) && !strings.HasPrefix(strings.TrimSpace(stmts[n-1]), "echo") {
		return true
	}
	for _, s := range stmts {
		for _, part := range strings.Split(s, "&&") {
			if !trivial(part) {
				return false
			}
		}
	}
	return true
}

// trivial reports whether one simple command does nothing that tests.
func trivial(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return true
	}
	switch f[0] {
	case "true", ":", "echo", "printf":
		return true
	case "exit":
		return len(f) == 1 || f[1] == "0"
	}
	return false
}
