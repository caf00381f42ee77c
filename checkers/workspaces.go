package checkers

import (
	"context"
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

// npmWorkspace returns the packages of the npm workspace at dir when its
// root test script runs the packages' tests, and false otherwise.
func npmWorkspace(dir string) ([]wsPackage, bool) {
	data, err := readManifest(dir, "package.json")
	if err != nil || data == nil || !gjson.ValidBytes(data) {
		return nil, false
	}
	if !slices.ContainsFunc(strings.Fields(gjson.GetBytes(data, "scripts.test").Str), func(w string) bool {
		return w == "--workspaces" || w == "-ws" || w == "--ws" || w == "--workspaces=true"
	}) {
		return nil, false
	}
	ws := gjson.GetBytes(data, "workspaces")
	if ws.IsObject() {
		ws = ws.Get("packages")
	}
	if !ws.IsArray() {
		return nil, false
	}
	var patterns []string
	for _, pattern := range ws.Array() {
		if pattern.Type != gjson.String {
			return nil, false
		}
		patterns = append(patterns, pattern.Str)
	}
	dirs, ok := globDirs(dir, patterns)
	if !ok {
		return nil, false
	}
	if len(dirs) == 0 || len(dirs) > maxWorkspacePackages {
		return nil, false
	}
	var pkgs []wsPackage
	names := map[string]bool{}
	for _, d := range dirs {
		if fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(d))); err != nil || !fi.IsDir() {
			continue // a file the glob matched, or a link: npm reads neither as a package here
		}
		data, err := readManifest(filepath.Join(dir, filepath.FromSlash(d)), "package.json")
		if err != nil || data == nil || !gjson.ValidBytes(data) {
			continue
		}
		name := gjson.GetBytes(data, "name").Str
		if name == "" || names[name] {
			return nil, false
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
	return pkgs, len(pkgs) > 0
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

// workspace returns the packages of the workspace at dir whose tests k's
// command runs, and the command that runs one package's tests; ok is
// false where k runs its command whole.
func (k commandCheck) workspace(dir string) (pkgs []wsPackage, perPackage func(name string) string, ok bool) {
	if k.kind != "test" || k.wholeOnly {
		return nil, nil, false
	}
	switch k.from {
	case "package.json":
		pkgs, ok = npmWorkspace(dir)
		return pkgs, func(name string) string {
			return fmt.Sprintf("%s --workspace=%s --if-present", k.command, shellWord(name))
		}, ok
	case "Cargo.toml":
		pkgs, ok = cargoWorkspace(dir)
		return pkgs, func(name string) string {
			return fmt.Sprintf("%s -p %s", k.command, shellWord(name))
		}, ok
	}
	return nil, nil, false
}

// workspaceTest runs the packages of the npm workspace at c.ProjectDir one
// by one, each through the result cache keyed on what it depends on (see
// the top of this file). errNoWorkspace: run the command whole.
func (k commandCheck) workspaceTest(ctx context.Context, c *Context, own time.Duration) (Result, error) {
	if !k.cache || c.CacheDir == "" {
		return Result{}, errNoWorkspace
	}
	pkgs, perPackage, ok := k.workspace(c.ProjectDir)
	if !ok {
		return Result{}, errNoWorkspace
	}
	lookCtx, cancel := context.WithTimeout(ctx, own/fingerprintShare)
	states, rest, err := k.partStates(lookCtx, c, pkgs)
	cancel()
	if err != nil {
		return Result{}, errNoWorkspace
	}
	byName := map[string]wsPackage{}
	for _, p := range pkgs {
		byName[p.Name] = p
	}
	keyOf := func(p wsPackage, states map[string]string, rest string) string {
		parts := []string{"test-workspace", k.command, p.Name, c.ProjectDir, rest}
		for _, d := range dependsOn(p, byName) {
			parts = append(parts, d, states[d])
		}
		return treecache.Key(parts...)
	}
	var ran, reused []string
	for _, p := range pkgs {
		key := keyOf(p, states, rest)
		pk := k
		pk.command = perPackage(p.Name)
		keep := func() bool {
			// Remembered only if the run left what it depends on as it was.
			after, afterRest, err := k.partStates(ctx, c, pkgs)
			return err == nil && keyOf(p, after, afterRest) == key
		}
		r, e, err := c.runOnce(ctx, treecache.Key("test-workspace", k.command, p.Name, c.ProjectDir), key, func(ctx context.Context) (Result, bool, error) {
			c.noteFresh(fmt.Sprintf("%s %s: package %s changed, or a package it depends on, or a file outside the packages", k.kind, k.command, p.Name))
			return pk.run(ctx, c, own, fingerprint{})
		}, keep)
		switch {
		case e != nil:
			reused = append(reused, p.Name)
			if r := c.reuse(*e); !r.Complete {
				r.Feedback += fmt.Sprintf("\n(donegate reused the result of %s of package %s at %s: neither it, the packages it depends on nor the files outside the packages have changed since.)",
					e.RunBy(), p.Name, e.At.UTC().Format(time.RFC3339))
				return r, nil
			}
			continue
		case err != nil || !r.Complete || r.NotRun:
			return r, err
		}
		ran = append(ran, p.Name)
	}
	msg := fmt.Sprintf("The test command `%s` passed, package by package:", k.command)
	if len(ran) > 0 {
		msg += fmt.Sprintf(" ran %s", strings.Join(ran, ", "))
	}
	if len(reused) > 0 {
		if len(ran) > 0 {
			msg += ";"
		}
		msg += fmt.Sprintf(" reused %s (unchanged, as are the packages they depend on and the files outside the packages)", strings.Join(reused, ", "))
	}
	r := OK(msg + ".")
	if len(ran) == 0 {
		r.Feedback += "\n(donegate reused the result of the runs: the working tree has not changed since.)"
	}
	return r, nil
}

// partStates fingerprints the workspace's packages and the rest of the
// tree (see treecache.PartStates).
func (k commandCheck) partStates(ctx context.Context, c *Context, pkgs []wsPackage) (map[string]string, string, error) {
	st, err := treecache.ReadStatus(ctx, c.ProjectDir)
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
