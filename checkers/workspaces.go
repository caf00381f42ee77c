package checkers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/treecache"
)

// A change to one package of a monorepo ran the tests of every package.
// In an npm workspace whose own test script runs the packages' tests
// (`npm test --workspaces`, `-ws`), the test checker with the detected
// `npm test` and scope "changed" (the default) runs each package's tests
// on their own (`npm test --workspace=NAME --if-present`) and remembers
// each result by the state of what it depends on: the package's files,
// those of the workspace packages it depends on (dependencies,
// devDependencies, peerDependencies and optionalDependencies naming
// them, transitively), and everything outside every package (root
// config, the lockfile, installed dependencies: see
// treecache.PartStates). So a stop after a change inside packages runs
// the changed packages and the packages that depend on them; a change
// outside every package runs all. Each package's pass or failure is
// reused as any result is. Anything else — another root test script (a
// root jest run, a task runner), workspaces that cannot be read, outside
// git — runs the whole command as before.

// maxWorkspacePackages bounds the packages read of one workspace.
const maxWorkspacePackages = 500

// wsPackage is one package of a workspace: its name, its dir and the
// names of the workspace packages it depends on.
type wsPackage struct {
	Name string
	Dir  string // relative to the project dir, slash-separated
	Deps []string
}

// jsWorkspace returns the packages of the JavaScript workspace at dir
// whose tests its root test script runs, and the command that runs one
// package's tests; ok is false for any other root script:
//
//   - npm: `npm test --workspaces` (-ws), the packages from package.json's
//     "workspaces"; one package: `npm test --workspace=NAME --if-present`;
//   - pnpm: `pnpm -r test` (--recursive, `run test`), the packages from
//     pnpm-workspace.yaml; one package: `pnpm --filter=NAME run
//     --if-present test`. A root script that filters (--filter, -F) runs
//     whole;
//   - Yarn (berry): `yarn workspaces foreach -A run test` (see
//     yarnForeachAll), the packages from package.json's "workspaces"; one
//     package: `yarn workspaces foreach --all --include NAME run test`,
//     which skips a package without a test script as the root's run does;
//   - Yarn 1 (classic): `yarn workspaces run test`, the packages from
//     package.json's "workspaces"; one package: `yarn workspace NAME run
//     test` (both fail on a package without a test script).
func jsWorkspace(dir string) (pkgs []wsPackage, perPackage func(name string) string, ok bool) {
	data, err := readManifest(dir, "package.json")
	if err != nil || data == nil || !gjson.ValidBytes(data) {
		return nil, nil, false
	}
	script := strings.Fields(gjson.GetBytes(data, "scripts.test").Str)
	has := func(words ...string) bool {
		return slices.ContainsFunc(script, func(w string) bool { return slices.Contains(words, w) })
	}
	filters := slices.ContainsFunc(script, func(w string) bool {
		return w == "-F" || w == "--filter" || w == "--filter-prod" || strings.HasPrefix(w, "--filter=") || strings.HasPrefix(w, "--filter-prod=")
	})
	manifestPatterns := func() ([]string, bool) { return manifestWorkspaces(data) }
	var patterns []string
	switch {
	case len(script) > 0 && script[0] == "npm" && has("--workspaces", "--workspaces=true", "-ws", "--ws"):
		if patterns, ok = manifestPatterns(); !ok {
			return nil, nil, false
		}
		perPackage = func(name string) string {
			return fmt.Sprintf("npm test --workspace=%s --if-present", shellWord(name))
		}
	case yarnForeachAll(script):
		if patterns, ok = manifestPatterns(); !ok {
			return nil, nil, false
		}
		perPackage = func(name string) string {
			return fmt.Sprintf("yarn workspaces foreach --all --include %s run test", shellWord(name))
		}
	case slices.Equal(script, []string{"yarn", "workspaces", "run", "test"}):
		// Yarn 1 (classic): every workspace's test script, in turn.
		if patterns, ok = manifestPatterns(); !ok {
			return nil, nil, false
		}
		perPackage = func(name string) string {
			return fmt.Sprintf("yarn workspace %s run test", shellWord(name))
		}
	case len(script) > 0 && script[0] == "pnpm" && has("-r", "--recursive") && !filters:
		if patterns, ok = pnpmPatterns(dir); !ok {
			return nil, nil, false
		}
		perPackage = func(name string) string {
			return fmt.Sprintf("pnpm --filter=%s run --if-present test", shellWord(name))
		}
	default:
		return nil, nil, false
	}
	dirs, ok := globDirs(dir, patterns)
	if !ok || len(dirs) == 0 || len(dirs) > maxWorkspacePackages {
		return nil, nil, false
	}
	names := map[string]bool{}
	for _, d := range dirs {
		if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(d))); err != nil || !fi.IsDir() {
			continue // a file the glob matched, or a link: not read as a package here
		}
		data, err := readManifest(filepath.Join(dir, filepath.FromSlash(d)), "package.json")
		if err != nil || data == nil || !gjson.ValidBytes(data) {
			continue
		}
		name := gjson.GetBytes(data, "name").Str
		if name == "" || names[name] {
			return nil, nil, false
		}
		names[name] = true
		p := wsPackage{Name: name, Dir: d}
		for _, field := range []string{"dependencies", "devDependencies", "peerDependencies", "optionalDependencies"} {
			gjson.GetBytes(data, field).ForEach(func(k, _ gjson.Result) bool {
				p.Deps = append(p.Deps, k.Str)
				return true
			})
		}
		pkgs = append(pkgs, p)
	}
	for i := range pkgs {
		pkgs[i].Deps = slices.DeleteFunc(pkgs[i].Deps, func(d string) bool { return !names[d] })
	}
	return pkgs, perPackage, len(pkgs) > 0
}

// manifestWorkspaces returns package.json's "workspaces" patterns (npm,
// Yarn: a list, or an object's "packages" list); ok is false where there
// is none, or an item is no string.
func manifestWorkspaces(data []byte) (patterns []string, ok bool) {
	ws := gjson.GetBytes(data, "workspaces")
	if ws.IsObject() {
		ws = ws.Get("packages")
	}
	if !ws.IsArray() {
		return nil, false
	}
	for _, pattern := range ws.Array() {
		if pattern.Type != gjson.String {
			return nil, false
		}
		patterns = append(patterns, pattern.Str)
	}
	return patterns, true
}

// yarnForeachAll reports whether script (a root test script, in words)
// runs the test script of every workspace with Yarn (berry): `yarn
// workspaces foreach` with --all (-A, also within combined flags such as
// -Apt) or --worktree (-W), ending in `run test` or `test`, filtering
// none out (--include, --exclude, --since, --from, --no-private).
func yarnForeachAll(script []string) bool {
	if len(script) < 5 || script[0] != "yarn" || script[1] != "workspaces" || script[2] != "foreach" {
		return false
	}
	flags := script[3:]
	switch {
	case flags[len(flags)-1] != "test":
		return false
	case flags[len(flags)-2] == "run":
		flags = flags[:len(flags)-2]
	default:
		flags = flags[:len(flags)-1]
	}
	all := false
	for _, f := range flags {
		switch {
		case f == "--all" || f == "--worktree":
			all = true
		case strings.HasPrefix(f, "--include") || strings.HasPrefix(f, "--exclude") || strings.HasPrefix(f, "--since") ||
			strings.HasPrefix(f, "--from") || f == "--no-private":
			return false
		case strings.HasPrefix(f, "--"):
		case strings.HasPrefix(f, "-"):
			all = all || strings.ContainsAny(f[1:], "AW")
		default:
			return false // an argument of a flag, or another command
		}
	}
	return all
}

// pnpmPatterns returns the package patterns of dir's pnpm-workspace.yaml:
// its top-level "packages" list, in the forms pnpm's docs write it —
// a block list (`- "packages/*"`, one a line) or a flow list on one line
// (`packages: ["apps/*", 'libs/*']`), items plain or quoted, comments
// after #. Any other form is not read (false: the command runs whole).
// Not a YAML library: its package init would cost every hook call's
// start-up (docs/checkers.md has the figure), for a file only pnpm
// projects have.
func pnpmPatterns(dir string) ([]string, bool) {
	data, err := readManifest(dir, "pnpm-workspace.yaml")
	if err != nil || data == nil {
		return nil, false
	}
	var patterns []string
	in, indent := false, ""
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		line = yamlUncomment(line)
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			continue
		case line[0] != ' ' && line[0] != '-':
			// A top-level key ends the list.
			if in {
				return patterns, len(patterns) > 0
			}
			rest, ok := strings.CutPrefix(line, "packages:")
			if !ok {
				continue
			}
			rest = strings.TrimSpace(rest)
			if rest == "" {
				in = true
				continue
			}
			if !strings.HasPrefix(rest, "[") || !strings.HasSuffix(rest, "]") {
				return nil, false
			}
			for _, item := range strings.Split(rest[1:len(rest)-1], ",") {
				p, ok := yamlScalar(item)
				if !ok {
					return nil, false
				}
				patterns = append(patterns, p)
			}
			return patterns, len(patterns) > 0
		case in:
			lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
			item, ok := strings.CutPrefix(trimmed, "- ")
			if !ok || (indent != "" && lead != indent) {
				return nil, false
			}
			indent = lead
			p, ok := yamlScalar(item)
			if !ok {
				return nil, false
			}
			patterns = append(patterns, p)
		}
	}
	return patterns, in && len(patterns) > 0
}

// yamlUncomment cuts a comment off line: from a # at its start or after
// a space, outside quotes.
func yamlUncomment(line string) string {
	var quote rune
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '#' && (i == 0 || line[i-1] == ' '):
			return strings.TrimRight(line[:i], " \t")
		}
	}
	return strings.TrimRight(line, " \t")
}

// yamlScalar reads a list item: a plain scalar, or one quoted with ' or "
// without escapes. ok is false for anything else.
func yamlScalar(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		inner := s[1 : len(s)-1]
		if strings.ContainsAny(inner, "\"'\\") {
			return "", false
		}
		return inner, inner != ""
	}
	if s == "" || strings.ContainsAny(s[:1], "\"'[]{}&*|>%@`!,-?:") || strings.ContainsAny(s, "[]{},") || strings.Contains(s, ": ") {
		return "", false
	}
	return s, true
}

// dependsOn returns the dirs of p and of every workspace package it
// depends on, transitively.
func dependsOn(p wsPackage, byName map[string]wsPackage) []string {
	seen := map[string]bool{p.Name: true}
	queue := []wsPackage{p}
	var dirs []string
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		dirs = append(dirs, q.Dir)
		for _, d := range q.Deps {
			if !seen[d] {
				seen[d] = true
				queue = append(queue, byName[d])
			}
		}
	}
	sort.Strings(dirs)
	return dirs
}

// errNoWorkspace says the run is not one of a workspace's packages.
var errNoWorkspace = errors.New("not a workspace run package by package")

// errWhole is errNoWorkspace for a workspace run whole, saying why (a
// form whose split would not be the same tests): the run notes it.
type errWhole struct{ why string }

func (e errWhole) Error() string { return "run whole: " + e.why }
func (e errWhole) Unwrap() error { return errNoWorkspace }

// workspace returns the packages of the workspace at dir whose tests k's
// command runs, and the command that runs one package's tests; the error
// is errNoWorkspace where k runs its command whole (an errWhole where
// that is a workspace's form whose split would not be the same tests).
func (k commandCheck) workspace(dir string) (pkgs []wsPackage, perPackage func(name string) string, err error) {
	if k.kind != "test" || k.wholeOnly {
		return nil, nil, errNoWorkspace
	}
	ok := false
	switch k.from {
	case "package.json":
		pkgs, perPackage, ok = jsWorkspace(dir)
	case "Cargo.toml":
		pkgs, ok = cargoWorkspace(dir)
		perPackage = func(name string) string {
			return fmt.Sprintf("%s -p %s", k.command, shellWord(name))
		}
	case "go.work":
		pkgs, ok = goWorkspace(dir, k.goRoots)
		perPackage = goModuleTest(pkgs)
	case "pyproject.toml":
		var why string
		if pkgs, perPackage, why = uvWorkspace(dir, k.command); why != "" {
			return nil, nil, errWhole{why: why}
		}
		ok = pkgs != nil
	}
	if !ok {
		return nil, nil, errNoWorkspace
	}
	return pkgs, perPackage, nil
}

// workspaceTest runs the packages of the npm workspace at c.ProjectDir one
// by one, each through the result cache keyed on what it depends on (see
// the top of this file). errNoWorkspace: run the command whole.
func (k commandCheck) workspaceTest(ctx context.Context, c *Context, own time.Duration) (Result, error) {
	if !k.cache || c.CacheDir == "" {
		return Result{}, errNoWorkspace
	}
	pkgs, perPackage, err := k.workspace(c.ProjectDir)
	if err != nil {
		return Result{}, err
	}
	lookCtx, cancel := context.WithTimeout(ctx, own/fingerprintShare)
	defer cancel()
	states, rest, err := k.partStates(lookCtx, c, pkgs)
	if err != nil {
		return Result{}, errNoWorkspace
	}
	plan, err := k.planWorkspace(lookCtx, c, pkgs, states, rest)
	cancel()
	if err != nil {
		return Result{}, err
	}
	pkgs = plan.pkgs
	byName := map[string]wsPackage{}
	for _, p := range pkgs {
		byName[p.Name] = p
	}
	// The files the agent wrote outside every package count as the rest.
	restEdited := c.editedWhere(func(e string) bool {
		return !slices.ContainsFunc(pkgs, func(p wsPackage) bool { return under(filepath.Join(c.ProjectDir, filepath.FromSlash(p.Dir)), e) })
	})
	keyOf := func(p wsPackage, states map[string]string, rest string) string {
		parts := []string{"test-workspace", k.command, p.Name, c.ProjectDir, rest}
		if edited := restEdited; edited != "" {
			parts = append(parts, edited)
		}
		for _, d := range dependsOn(p, byName) {
			parts = append(parts, d, states[d])
			if edited := c.editedState(filepath.Join(c.ProjectDir, filepath.FromSlash(d))); edited != "" {
				parts = append(parts, edited)
			}
		}
		return treecache.Key(parts...)
	}
	for _, why := range plan.notes {
		c.noteFresh(fmt.Sprintf("%s %s: %s", k.kind, k.command, why))
	}
	var ran, reused, skipped []string
	// A Go workspace's runs report which tests ran: the reports of the
	// modules run or reused are the whole check's (see goReport).
	var report *goReport
	if k.jsonCommand != "" {
		report = &goReport{Roots: []string{}}
	}
	addReport := func(pk commandCheck, ran []byte) {
		var rep goReport
		if report == nil || json.Unmarshal(ran, &rep) != nil {
			report = nil // a run without its report: none for the check
			return
		}
		report.merge(rep, pk.goRoots)
	}
	for _, p := range pkgs {
		if plan.skip[p.Name] {
			skipped = append(skipped, p.Name)
			continue
		}
		key := keyOf(p, states, rest)
		pk := k
		pk.command = perPackage(p.Name)
		// A runner's report is read of a whole command only.
		pk.jsonCommand, pk.goRoots, pk.ran = "", nil, nil
		if k.jsonCommand != "" {
			pk.jsonCommand, pk.goRoots, _ = goJSONCommand(pk.command, k.from)
		}
		keep := func() bool {
			// Remembered only if the run left what it depends on as it was.
			after, afterRest, err := k.partStates(ctx, c, pkgs)
			return err == nil && keyOf(p, after, afterRest) == key
		}
		r, e, err := c.runOnce(ctx, treecache.Key("test-workspace", k.command, p.Name, c.ProjectDir), key, func(ctx context.Context) (Result, bool, error) {
			why := fmt.Sprintf("%s %s: package %s changed, or a package it depends on, or a file outside the packages", k.kind, k.command, p.Name)
			if found := plan.found[p.Name]; found != "" {
				why += " (" + found + ")"
			}
			c.noteFresh(why)
			return pk.run(ctx, c, own, fingerprint{})
		}, keep)
		switch {
		case e != nil:
			reused = append(reused, p.Name)
			r := c.reuse(*e)
			if !r.Complete {
				r.Feedback += fmt.Sprintf("\n(donegate reused the result of %s of package %s at %s: neither it, the packages it depends on nor the files outside the packages have changed since.)",
					e.RunBy(), p.Name, e.At.UTC().Format(time.RFC3339))
				return r, nil
			}
			addReport(pk, r.ran)
			continue
		case err != nil || !r.Complete || r.NotRun:
			return r, err
		}
		addReport(pk, r.ran)
		ran = append(ran, p.Name)
	}
	var said []string
	if len(ran) > 0 {
		said = append(said, "ran "+strings.Join(ran, ", "))
	}
	if len(reused) > 0 {
		said = append(said, fmt.Sprintf("reused %s (unchanged, as are the packages they depend on and the files outside the packages)", strings.Join(reused, ", ")))
	}
	if len(skipped) > 0 {
		said = append(said, fmt.Sprintf("left out %s (the agent has changed neither them nor a package they depend on since the session began)", strings.Join(skipped, ", ")))
	}
	r := OK(fmt.Sprintf("The test command `%s` passed, package by package: %s.", k.command, strings.Join(said, "; ")))
	if len(ran) == 0 && len(reused) > 0 {
		r.Feedback += "\n(donegate reused the result of the runs: the working tree has not changed since.)"
	}
	if report != nil {
		r.ran, _ = json.Marshal(report)
	}
	return r, nil
}

// partStates fingerprints the workspace's packages and the rest of the
// tree (see treecache.PartStates), from the run's shared look at the tree:
// before the runs, the one the other checks (and the gate's session rule)
// read; after each run, a new one, since the run may have written files.
func (k commandCheck) partStates(ctx context.Context, c *Context, pkgs []wsPackage) (map[string]string, string, error) {
	st, err := c.GitStatus(ctx)
	if err != nil {
		return nil, "", err
	}
	dirs := make([]string, len(pkgs))
	for i, p := range pkgs {
		dirs[i] = p.Dir
	}
	return c.cache().PartStates(ctx, st, dirs)
}

// shellWord quotes s for sh when it holds more than a package name's
// usual characters.
func shellWord(s string) string {
	if strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// globDirs returns the paths (relative to dir, slash-separated, sorted)
// that patterns match, as a workspace's member list names them: ok is
// false for a form read here would be a guess (`**`, a negation, a path
// out of dir).
func globDirs(dir string, patterns []string) ([]string, bool) {
	var dirs []string
	for _, pattern := range patterns {
		p := filepath.ToSlash(filepath.Clean(pattern))
		if p == "." || strings.Contains(p, "**") || strings.HasPrefix(p, "..") || strings.HasPrefix(p, "!") || filepath.IsAbs(p) {
			return nil, false
		}
		matches, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			return nil, false
		}
		for _, m := range matches {
			if rel, err := filepath.Rel(dir, m); err == nil && !slices.Contains(dirs, filepath.ToSlash(rel)) {
				dirs = append(dirs, filepath.ToSlash(rel))
			}
		}
	}
	sort.Strings(dirs)
	return dirs, true
}
