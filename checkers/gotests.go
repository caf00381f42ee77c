package checkers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/scanner"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/treecache"
)

// Tests not weakened, judged by what ran. The diff rules (see weakened)
// read what a change wrote, and a change can make a test not run in ways
// no rule reads: a skip in another spelling or behind a helper, a test
// file renamed or moved into testdata/, a build tag, a TestMain that
// never calls m.Run, a flag. For the Go test command it detects (go.mod:
// `go test ./...`; go.work: `go test ./a/... ./b/...`), donegate runs it
// with -json, shows the agent the text go test prints, and reads the
// runner's own report: each top-level test and fuzz target of the
// session's baseline commit, in a package the command tests and a file
// with no build constraint (its name's GOOS/GOARCH part included), must
// have run and passed at the stop. One that moved to another package
// counts where it passed; one that was skipped counts when it was
// skipped at the baseline too, which donegate finds by running it there
// once (see goStartVerdicts). A deleted or renamed test is also what the
// diff rules tell, and told once.

// goReport is what `go test -json` reported of the top-level tests, by
// package import path. It is kept with the result in the cache, so that a
// stop that reuses a pass judges it as one that ran.
type goReport struct {
	Passed  map[string][]string `json:"passed,omitempty"`
	Skipped map[string][]string `json:"skipped,omitempty"`
	// Roots are the package roots the report is of, where they are not
	// all the command's: a Go workspace run module by module, some
	// modules left out (see workspaceTest); nil for all of them.
	Roots []string `json:"roots"`
}

// merge adds rep, a report of the package roots roots, to r.
func (r *goReport) merge(rep goReport, roots []string) {
	for _, m := range []struct{ to, from *map[string][]string }{{&r.Passed, &rep.Passed}, {&r.Skipped, &rep.Skipped}} {
		for pkg, names := range *m.from {
			if *m.to == nil {
				*m.to = map[string][]string{}
			}
			(*m.to)[pkg] = append((*m.to)[pkg], names...)
		}
	}
	r.Roots = append(r.Roots, roots...)
}

// goJSONCommand returns the -json form of a detected Go test command and
// the package roots it tests ("." for ./..., "a" for ./a/...); ok is false
// for any other command.
func goJSONCommand(command, from string) (jsonCommand string, roots []string, ok bool) {
	rest, found := strings.CutPrefix(command, "go test ")
	if !found || (from != "go.mod" && from != "go.work") {
		return "", nil, false
	}
	for _, p := range strings.Fields(rest) {
		root, found := strings.CutSuffix(p, "/...")
		if !found || !strings.HasPrefix(root, ".") {
			return "", nil, false
		}
		roots = append(roots, path.Clean(root))
	}
	if len(roots) == 0 {
		return "", nil, false
	}
	return "go test -json " + rest, roots, true
}

// goTestEvent is a line of `go test -json` (cmd/test2json).
type goTestEvent struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// goEventOf reads a line as an event; ok is false for one that is none.
// With gjson a run's events are read at 1.8× the speed of encoding/json's
// decoding (BenchmarkReadGoTestJSON: 53 against 30 MB/s), which a run of
// many tests notices: about 300 bytes of events per test.
func goEventOf(line []byte) (e goTestEvent, ok bool) {
	if len(line) == 0 || line[0] != '{' {
		return e, false
	}
	f := gjson.GetManyBytes(line, "Action", "Package", "Test", "Output")
	e = goTestEvent{Action: f[0].String(), Package: f[1].String(), Test: f[2].String(), Output: f[3].String()}
	return e, e.Action != ""
}

// readGoTestJSON turns go test -json's stdout back into the text go test
// prints without -json — the lines of a test, a subtest's indented under
// it, only where it failed or did not end — and reads the top-level tests
// that passed or were skipped. Lines that are no event (the go command's
// own) are kept as they are.
func readGoTestJSON(stdout []byte) (text []byte, rep goReport) {
	var out bytes.Buffer
	runs := map[string]*goTestRun{} // by package and test, subtests included, until their top-level test ends
	var order []string              // the top-level tests, as they began
	rep = goReport{Passed: map[string][]string{}, Skipped: map[string][]string{}}
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		e, ok := goEventOf(line)
		if !ok {
			out.Write(line)
			out.WriteByte('\n')
			continue
		}
		if e.Test == "" {
			if e.Action == "build-output" || (e.Action == "output" && e.Output != "PASS\n") {
				out.WriteString(e.Output)
			}
			continue
		}
		key := e.Package + "\x00" + e.Test
		r := runs[key]
		if r == nil {
			r = &goTestRun{}
			runs[key] = r
			if i := strings.LastIndexByte(e.Test, '/'); i < 0 {
				order = append(order, key)
			} else if parent := runs[e.Package+"\x00"+e.Test[:i]]; parent != nil {
				parent.children = append(parent.children, key)
			}
		}
		switch e.Action {
		case "output":
			r.add(e.Output, e.Test)
		case "pass", "skip", "fail":
			r.action = e.Action
			if strings.Contains(e.Test, "/") {
				break
			}
			if e.Action == "fail" {
				r.write(&out, runs, 0)
			}
			r.drop(runs, key)
			switch e.Action {
			case "pass":
				rep.Passed[e.Package] = append(rep.Passed[e.Package], e.Test)
			case "skip":
				rep.Skipped[e.Package] = append(rep.Skipped[e.Package], e.Test)
			}
		}
	}
	// A test that never ended (the binary panicked or was killed): its
	// lines are what explains the failure.
	for _, key := range order {
		if r := runs[key]; r != nil {
			r.write(&out, runs, 0)
		}
	}
	return out.Bytes(), rep
}

// goTestRun is what go test -json reported of a test while it ran.
type goTestRun struct {
	head     string   // its "--- FAIL: TestX (0.00s)" line
	lines    []string // what it logged
	action   string   // how it ended: pass, skip, fail; "" while it runs
	children []string // its subtests' keys, as they began
}

// add takes a line of the test's output: -json, which implies -v, adds
// === RUN, PAUSE, CONT and NAME lines, and tells a subtest's lines
// unindented.
func (r *goTestRun) add(line, test string) {
	switch {
	case strings.HasPrefix(line, "=== "):
	case strings.HasPrefix(line, "--- FAIL: "+test+" "):
		r.head = line
	case strings.HasPrefix(line, "--- PASS: "+test+" ") || strings.HasPrefix(line, "--- SKIP: "+test+" "):
	default:
		r.lines = append(r.lines, line)
	}
}

// write writes a failed test as go test prints it without -v: its head
// line, what it logged, and its subtests that failed or did not end,
// each indented four spaces under its parent.
func (r *goTestRun) write(out *bytes.Buffer, runs map[string]*goTestRun, depth int) {
	indent := strings.Repeat("    ", depth)
	if r.head != "" {
		out.WriteString(indent + r.head)
	}
	for _, l := range r.lines {
		if l != "\n" {
			out.WriteString(indent)
		}
		out.WriteString(l)
	}
	for _, k := range r.children {
		if c := runs[k]; c != nil && c.action != "pass" && c.action != "skip" {
			c.write(out, runs, depth+1)
		}
	}
}

// drop forgets a top-level test's run and its subtests'.
func (r *goTestRun) drop(runs map[string]*goTestRun, key string) {
	delete(runs, key)
	for _, k := range r.children {
		if c := runs[k]; c != nil {
			c.drop(runs, k)
		}
	}
}

// goTestAt is a test the baseline commit had.
type goTestAt struct {
	Package string `json:"p"` // its package's import path
	Name    string `json:"n"`
	File    string `json:"f"` // relative to the project dir
	Line    int    `json:"l"`
}

// maxGoTestFileBytes bounds the test files read at the baseline: past it,
// the tests of the files read are judged.
const maxGoTestFileBytes = 64 << 20

// goTestsAt lists the tests of commit under roots (see goJSONCommand):
// top-level TestX(*testing.T) and FuzzX(*testing.F) functions of _test.go
// files with no build constraint, in the directories `go test ROOT/...`
// tests: not testdata, vendor, or one whose name starts with . or _, nor
// one of a nested module. Remembered by commit in the result cache.
func goTestsAt(ctx context.Context, c *Context, commit string, roots []string) ([]goTestAt, error) {
	var key string
	if c.CacheDir != "" {
		key = treecache.Key("go-tests-at", commit, c.ProjectDir, strings.Join(roots, " "))
		var at []goTestAt
		if e, ok := c.cache().Get(key); ok && json.Unmarshal([]byte(e.Feedback), &at) == nil {
			return at, nil
		}
	}
	list, err := treeBlobs(ctx, c.ProjectDir, commit)
	if err != nil {
		return nil, err
	}
	type blob struct{ path, oid string }
	modules := map[string]string{} // dir -> go.mod's object
	var files []blob
	size := 0
	for _, b := range list {
		switch {
		case path.Base(b.path) == "go.mod":
			modules[path.Dir(b.path)] = b.oid
		case strings.HasSuffix(b.path, "_test.go") && !goConstrainedName(path.Base(b.path)):
			if size += b.size; size <= maxGoTestFileBytes {
				files = append(files, blob{b.path, b.oid})
			}
		}
	}
	var want []string
	for _, r := range roots {
		if oid, ok := modules[r]; ok {
			want = append(want, oid)
		}
	}
	var tested []blob
	rootOf := map[string]string{}
	for _, b := range files {
		if r, ok := goRootOf(path.Dir(b.path), roots, modules); ok && modules[r] != "" {
			tested = append(tested, b)
			rootOf[b.path] = r
			want = append(want, b.oid)
		}
	}
	objects, err := catFiles(ctx, c.ProjectDir, want)
	if err != nil {
		return nil, err
	}
	modPath := map[string]string{} // root -> its module's path
	for _, r := range roots {
		if oid, ok := modules[r]; ok {
			modPath[r] = goModulePath(objects[oid])
		}
	}
	var at []goTestAt
	fset := token.NewFileSet()
	for _, b := range tested {
		r := rootOf[b.path]
		if modPath[r] == "" {
			continue
		}
		src := objects[b.oid]
		if goHasBuildLine(src) {
			continue
		}
		pkg := modPath[r]
		if rel := strings.TrimPrefix(strings.TrimPrefix(path.Dir(b.path), r), "/"); rel != "" && rel != "." {
			pkg += "/" + rel
		}
		names, lines := goTestFuncs(fset, b.path, src)
		for i, name := range names {
			at = append(at, goTestAt{Package: pkg, Name: name, File: b.path, Line: lines[i]})
		}
	}
	if key != "" {
		data, _ := json.Marshal(at)
		_ = c.cache().Put(key, treecache.Entry{Complete: true, Feedback: string(data), At: time.Now()})
	}
	return at, nil
}

// goRootOf returns the root of roots whose `ROOT/...` tests dir: dir is
// in it, no path element below it is testdata or vendor or starts with .
// or _, and no go.mod lies between (a nested module is not tested).
func goRootOf(dir string, roots []string, modules map[string]string) (string, bool) {
	for _, r := range roots {
		rel := dir
		if r != "." {
			if dir != r && !strings.HasPrefix(dir, r+"/") {
				continue
			}
			rel = strings.TrimPrefix(strings.TrimPrefix(dir, r), "/")
		}
		if rel == "." || rel == "" {
			return r, true
		}
		ok := true
		for d := rel; ok && d != "."; d = path.Dir(d) {
			e := path.Base(d)
			full := d
			if r != "." {
				full = r + "/" + d
			}
			_, nested := modules[full]
			ok = !nested && e != "testdata" && e != "vendor" && !strings.HasPrefix(e, ".") && !strings.HasPrefix(e, "_")
		}
		if ok {
			return r, true
		}
	}
	return "", false
}

// treeBlob is a file of a commit, as git ls-tree -l lists it.
type treeBlob struct {
	path, oid, mode string
	size            int
}

// treeBlobs lists the files (blobs: no submodule) of commit under dir,
// their paths relative to it.
func treeBlobs(ctx context.Context, dir, commit string) ([]treeBlob, error) {
	list, err := treecache.Git(ctx, dir, "ls-tree", "-r", "-z", "-l", commit)
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s: %w", short(commit), err)
	}
	var blobs []treeBlob
	for _, entry := range strings.Split(string(list), "\x00") {
		meta, p, ok := strings.Cut(entry, "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 || f[1] != "blob" {
			continue
		}
		n, _ := strconv.Atoi(f[3])
		blobs = append(blobs, treeBlob{path: p, oid: f[2], mode: f[0], size: n})
	}
	return blobs, nil
}

// catFiles reads git objects by id.
func catFiles(ctx context.Context, dir string, oids []string) (map[string][]byte, error) {
	objects := map[string][]byte{}
	if len(oids) == 0 {
		return objects, nil
	}
	out, err := treecache.GitInput(ctx, dir, []byte(strings.Join(oids, "\n")+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, fmt.Errorf("reading the test files: %w", err)
	}
	for len(out) > 0 {
		header, rest, ok := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(header))
		if !ok || len(f) != 3 {
			break // "<oid> missing"
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n+1 > len(rest) {
			break
		}
		objects[f[0]] = rest[:n]
		out = rest[n+1:]
	}
	return objects, nil
}

// goModulePath reads a go.mod's module path, "" when it has none.
func goModulePath(gomod []byte) string {
	for _, l := range strings.Split(string(gomod), "\n") {
		l = strings.TrimSpace(l)
		if rest, ok := strings.CutPrefix(l, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '"') {
			if i := strings.Index(rest, "//"); i >= 0 {
				rest = rest[:i]
			}
			rest = strings.TrimSpace(rest)
			if u, err := strconv.Unquote(rest); err == nil {
				rest = u
			}
			return rest
		}
	}
	return ""
}

// goHasBuildLine reports whether a Go file has a build constraint line
// before its package clause.
func goHasBuildLine(src []byte) bool {
	for _, l := range strings.Split(string(src), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "//go:build") || strings.HasPrefix(l, "// +build"):
			return true
		case strings.HasPrefix(l, "package ") || strings.HasPrefix(l, "package\t"):
			return false
		}
	}
	return false
}

// goConstrainedName reports whether a _test.go file's name limits it to
// a GOOS or a GOARCH (x_linux_test.go, x_arm64_test.go).
func goConstrainedName(name string) bool {
	parts := strings.Split(strings.TrimSuffix(name, "_test.go"), "_")
	if len(parts) < 2 {
		return false
	}
	last := parts[len(parts)-1]
	return goOS[last] || goArch[last]
}

var (
	goOS = setOf("aix", "android", "darwin", "dragonfly", "freebsd", "hurd", "illumos", "ios", "js",
		"linux", "nacl", "netbsd", "openbsd", "plan9", "solaris", "wasip1", "windows", "zos")
	goArch = setOf("386", "amd64", "amd64p32", "arm", "armbe", "arm64", "arm64be", "loong64", "mips",
		"mipsle", "mips64", "mips64le", "mips64p32", "mips64p32le", "ppc", "ppc64", "ppc64le",
		"riscv", "riscv64", "s390", "s390x", "sparc", "sparc64", "wasm")
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// goTestFuncs lists what go test runs as top-level tests and fuzz
// targets in a test file's source: func TestX(t *testing.T) and func
// FuzzX(f *testing.F), X not starting with a lower-case letter, with the
// line of each. It reads tokens (go/scanner: go/parser and go/ast would
// add 0.6 MB to each binary), so a comment or a string that holds such a
// line is no test; a file that does not scan gives none, as it would not
// build.
func goTestFuncs(fset *token.FileSet, name string, src []byte) (names []string, lines []int) {
	var sc scanner.Scanner
	failed := false
	sc.Init(fset.AddFile(name, -1, len(src)), src, func(token.Position, string) { failed = true }, 0)
	depth := 0
	var sig []token.Token // a top-level func's tokens after "func", up to its parameters' end
	var lits []string
	var at token.Pos
	collecting := false
	for {
		pos, t, lit := sc.Scan()
		if t == token.EOF {
			break
		}
		switch {
		case depth == 0 && t == token.FUNC:
			collecting, sig, lits, at = true, sig[:0], lits[:0], pos
		case collecting && !(t == token.SEMICOLON && lit == "\n"):
			sig, lits = append(sig, t), append(lits, lit)
			if t == token.RPAREN && depth == 1 || len(sig) > 9 {
				if n, ok := goTestSignature(sig, lits); ok {
					names = append(names, n)
					lines = append(lines, fset.Position(at).Line)
				}
				collecting = false
			}
		}
		switch t {
		case token.LBRACE, token.LPAREN, token.LBRACK:
			depth++
		case token.RBRACE, token.RPAREN, token.RBRACK:
			depth--
		}
	}
	if failed {
		return nil, nil
	}
	return names, lines
}

// goTestSignature reads the tokens of a func's name and parameters: the
// name when they are those of a test or fuzz target, NAME ( [PARAM] *
// [PKG .] T|F [,] ).
func goTestSignature(sig []token.Token, lits []string) (string, bool) {
	if len(sig) < 5 || sig[0] != token.IDENT || sig[1] != token.LPAREN || sig[len(sig)-1] != token.RPAREN {
		return "", false
	}
	name := lits[0]
	var want string
	for prefix, typ := range map[string]string{"Test": "T", "Fuzz": "F"} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			if r, _ := utf8.DecodeRuneInString(rest); rest != "" && unicode.IsLower(r) {
				return "", false
			}
			want = typ
		}
	}
	if want == "" {
		return "", false
	}
	p, pl := sig[2:len(sig)-1], lits[2:len(lits)-1]
	if len(p) > 0 && p[len(p)-1] == token.COMMA {
		p, pl = p[:len(p)-1], pl[:len(pl)-1]
	}
	if len(p) > 0 && p[0] == token.IDENT && len(p) > 1 && p[1] == token.MUL {
		p, pl = p[1:], pl[1:] // the parameter's name
	}
	switch {
	case len(p) == 2 && p[0] == token.MUL && p[1] == token.IDENT: // import . "testing"
		return name, pl[1] == want
	case len(p) == 4 && p[0] == token.MUL && p[1] == token.IDENT && p[2] == token.PERIOD && p[3] == token.IDENT:
		return name, pl[3] == want
	}
	return "", false
}

// goWeaknesses compares the report of a passing run with the tests of
// the baseline commit: each that neither passed nor was skipped at the
// baseline too is a weakness. note says what could not be judged.
func goWeaknesses(ctx context.Context, c *Context, base string, roots []string, rep goReport) (found []weakness, note string, err error) {
	at, err := goTestsAt(ctx, c, base, roots)
	if err != nil {
		return nil, "", err
	}
	was := map[string]bool{}
	for _, t := range at {
		was[t.Package+"\x00"+t.Name] = true
	}
	passed := map[string]bool{}
	movedTo := map[string]string{} // a test's name -> a package it passed in that did not have it
	for pkg, names := range rep.Passed {
		for _, n := range names {
			passed[pkg+"\x00"+n] = true
			if !was[pkg+"\x00"+n] {
				movedTo[n] = pkg
			}
		}
	}
	skipped := map[string]bool{}
	for pkg, names := range rep.Skipped {
		for _, n := range names {
			skipped[pkg+"\x00"+n] = true
		}
	}
	var skips []goTestAt
	for _, t := range at {
		switch k := t.Package + "\x00" + t.Name; {
		case passed[k] || movedTo[t.Name] != "":
		case skipped[k]:
			skips = append(skips, t)
		default:
			found = append(found, weakness{File: t.File, Line: t.Line, Test: t.Name,
				What: fmt.Sprintf("no longer runs: `go test -json` reports no result for it in %s", t.Package)})
		}
	}
	if len(skips) == 0 {
		return found, "", nil
	}
	verdicts, err := goStartVerdicts(ctx, c, base, roots, skips)
	unknown := 0
	for _, t := range skips {
		switch verdicts[t.Package+"\x00"+t.Name] {
		case "pass":
			found = append(found, weakness{File: t.File, Line: t.Line, Test: t.Name,
				What: "is skipped now; at the session's start it ran and passed (run there by donegate)"})
		case "skip":
		default:
			unknown++
		}
	}
	if unknown > 0 {
		note = fmt.Sprintf("%d test(s) of the session's start skipped now could not be run at %s to tell whether they were skipped then too", unknown, short(base))
		if err != nil {
			note += fmt.Sprintf(" (%v)", err)
		}
	}
	return found, note, nil
}

// goStartVerdicts tells, for tests the stop's run skipped, what they did
// at the baseline commit: "pass", "skip", or nothing when that is not
// known. It runs them there, in a copy of the commit's files (see
// goStartTree), once per commit and test: the verdicts are remembered in
// the result cache.
func goStartVerdicts(ctx context.Context, c *Context, base string, roots []string, tests []goTestAt) (map[string]string, error) {
	verdicts := map[string]string{}
	keyOf := func(t goTestAt) string {
		return treecache.Key("go-test-at-start", base, c.ProjectDir, t.Package, t.Name)
	}
	var todo []goTestAt
	for _, t := range tests {
		if c.CacheDir != "" {
			if e, ok := c.cache().Get(keyOf(t)); ok {
				verdicts[t.Package+"\x00"+t.Name] = e.Feedback
				continue
			}
		}
		todo = append(todo, t)
	}
	if len(todo) == 0 {
		return verdicts, nil
	}
	ran, err := goRunAtStart(ctx, c, base, roots, todo)
	if err != nil {
		return verdicts, err
	}
	for _, t := range todo {
		k := t.Package + "\x00" + t.Name
		v := ""
		switch {
		case slices.Contains(ran.Passed[t.Package], t.Name):
			v = "pass"
		case slices.Contains(ran.Skipped[t.Package], t.Name):
			v = "skip"
		default:
			continue
		}
		verdicts[k] = v
		if c.CacheDir != "" {
			_ = c.cache().Put(keyOf(t), treecache.Entry{Complete: true, Feedback: v, At: time.Now()})
		}
	}
	return verdicts, nil
}

// maxStartTreeBytes bounds the copy of the baseline commit's files that
// goRunAtStart writes: past it, skips are not judged.
const maxStartTreeBytes = 512 << 20

// maxGoJSONBytes bounds the stdout of a go test -json run that is read:
// past it the report is not whole, and nothing is judged by it.
const maxGoJSONBytes = 64 << 20

// goRunAtStart runs tests at the baseline commit: it writes the commit's
// files of the project dir to a directory of its own (under the cache
// dir), with git's object contents as they are (no filter, hook or
// checkout the repository could configure runs), runs `go test -json
// -count=1 -run '^(NAMES)$' PACKAGES` there, and removes the copy.
func goRunAtStart(ctx context.Context, c *Context, base string, roots []string, tests []goTestAt) (goReport, error) {
	list, err := treeBlobs(ctx, c.ProjectDir, base)
	if err != nil {
		return goReport{}, err
	}
	var blobs []treeBlob
	var oids []string
	size := 0
	for _, b := range list {
		if (b.mode != "100644" && b.mode != "100755") || !filepath.IsLocal(b.path) {
			continue // links are not copied
		}
		if size += b.size; size > maxStartTreeBytes {
			return goReport{}, fmt.Errorf("the files of %s are more than %d MiB", short(base), maxStartTreeBytes>>20)
		}
		blobs = append(blobs, b)
		oids = append(oids, b.oid)
	}
	objects, err := catFiles(ctx, c.ProjectDir, oids)
	if err != nil {
		return goReport{}, err
	}
	parent := c.CacheDir
	if parent == "" {
		parent = os.TempDir()
	} else if err := os.MkdirAll(parent, 0o700); err != nil {
		return goReport{}, fmt.Errorf("making the cache dir: %w", err)
	}
	dir, err := os.MkdirTemp(parent, "start-tree-")
	if err != nil {
		return goReport{}, fmt.Errorf("copying the files of %s: %w", short(base), err)
	}
	defer os.RemoveAll(dir)
	for _, b := range blobs {
		data, ok := objects[b.oid]
		if !ok {
			return goReport{}, fmt.Errorf("reading %s at %s: git gave no object %s", b.path, short(base), b.oid)
		}
		p := filepath.Join(dir, filepath.FromSlash(b.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return goReport{}, fmt.Errorf("copying the files of %s: %w", short(base), err)
		}
		mode := os.FileMode(0o644)
		if b.mode == "100755" {
			mode = 0o755
		}
		if err := os.WriteFile(p, data, mode); err != nil {
			return goReport{}, fmt.Errorf("copying the files of %s: %w", short(base), err)
		}
	}
	names := map[string]bool{}
	var pkgs []string
	for _, t := range tests {
		names[t.Name] = true
		if !slices.Contains(pkgs, t.Package) {
			pkgs = append(pkgs, t.Package)
		}
	}
	run := "^(" + strings.Join(slices.Sorted(maps.Keys(names)), "|") + ")$"
	// A package path is only read in its module: a go.work's modules are
	// tested from the workspace, a go.mod's from its root.
	where := dir
	if len(roots) == 1 {
		where = filepath.Join(dir, filepath.FromSlash(roots[0]))
	}
	runCtx, cancel, _ := within(ctx, DefaultTimeout)
	defer cancel()
	out, err := c.runner().Run(runCtx, proc.Command{
		Args: append([]string{"go", "test", "-json", "-count=1", "-run", run}, pkgs...),
		Dir:  where, Env: c.Env, SplitStdout: true, MaxStdout: maxGoJSONBytes, Background: c.Early,
	})
	switch {
	case err != nil:
		return goReport{}, fmt.Errorf("running them at %s: %w", short(base), err)
	case out.Ended:
		return goReport{}, fmt.Errorf("running them at %s: stopped after %s", short(base), out.Elapsed.Round(time.Millisecond))
	}
	_, rep := readGoTestJSON(out.Stdout)
	return rep, nil
}
