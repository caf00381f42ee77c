package treecache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// A result is keyed on what can change it, and on nothing else.
//
// What a check writes itself does not void its result: pytest's
// .pytest_cache and __pycache__, coverage data, Cargo's target. In a
// repository that does not ignore them they are untracked files, and a
// state that counted them changed with every run: a Python project
// without __pycache__ in .gitignore reran its 20 s suite at every stop
// of an unchanged tree, and outside git nothing was ever reused. They
// count for nothing (byproduct), wherever git would list them as
// untracked and in the walk outside git. A tracked file counts whatever
// its name.
//
// What is installed does void it, though git ignores it: an `npm
// install` into node_modules/ left a failure on "Cannot find module"
// standing. The installed state of each dependency dir at the project's
// root and the work tree's top level counts (installed): what the
// package manager records of what it installed (npm's
// node_modules/.package-lock.json, pnpm's .modules.yaml, Yarn's state
// files, Yarn Plug'n'Play's .yarn/install-state.gz, which stands for a
// .pnp.cjs git may ignore, Composer's installed.json), the names of the
// packages there,
// and a virtual environment's installed distributions (their
// *.dist-info names carry the versions) — never the thousands of files
// under them, which git's status would list one by one where the dir is
// not ignored.

// byproductDirs are directories that only tools' runs write: caches and
// reports, which no test reads as input.
var byproductDirs = []string{
	"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis",
	".tox", ".nox", "htmlcov", ".nyc_output", ".jest-cache", ".gradle",
}

// byproductFile reports whether a file's name is one only tools' runs
// write: compiled Python, coverage data, TypeScript's and ESLint's
// incremental caches.
func byproductFile(name string) bool {
	switch {
	case strings.HasSuffix(name, ".pyc"), strings.HasSuffix(name, ".pyo"),
		name == ".coverage", strings.HasPrefix(name, ".coverage."),
		strings.HasSuffix(name, ".tsbuildinfo"), name == ".eslintcache":
		return true
	}
	return false
}

// buildDir reports whether dir (a directory named target) is a build
// tool's output: it sits beside a Cargo.toml or a pom.xml.
func buildDir(dir string) bool {
	parent := filepath.Dir(dir)
	for _, manifest := range []string{"Cargo.toml", "pom.xml"} {
		if fi, err := os.Lstat(filepath.Join(parent, manifest)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// depsDir reports whether dir is a dependency dir whose installed state
// counts (see installed) instead of its files: node_modules, a virtual
// environment (a pyvenv.cfg in it), Composer's vendor.
func depsDir(dir string) bool {
	switch filepath.Base(dir) {
	case "node_modules":
		return true
	case "vendor":
		return isRegular(filepath.Join(dir, "composer", "installed.json"))
	}
	return isRegular(filepath.Join(dir, "pyvenv.cfg"))
}

func isRegular(p string) bool {
	fi, err := os.Lstat(p)
	return err == nil && fi.Mode().IsRegular()
}

// skipped reports whether the file at rel (slash-separated, relative to
// top) counts for nothing in the state: it is a by-product, or lies in a
// dependency dir whose installed state counts instead.
func skipped(top, rel string) bool {
	rel = strings.TrimSuffix(rel, "/")
	parts := strings.Split(rel, "/")
	if byproductFile(parts[len(parts)-1]) {
		return true
	}
	for i, p := range parts {
		if slices.Contains(byproductDirs, p) {
			return true
		}
		// Only a directory can hold what follows it; the last part is
		// itself a directory only in a "? dir/" entry (a nested
		// repository), which is fingerprinted as one.
		if i == len(parts)-1 && !strings.HasSuffix(rel, "/") {
			break
		}
		dir := filepath.Join(top, filepath.FromSlash(strings.Join(parts[:i+1], "/")))
		switch {
		case p == "target" && buildDir(dir):
			return true
		case (p == "node_modules" || p == "vendor" || strings.Contains(p, "env")) && depsDir(dir):
			// A virtual environment is told by its pyvenv.cfg, looked
			// for only in dirs named like one (.venv, venv, env-3.12):
			// a stat per part of every untracked path would cost more.
			return true
		}
	}
	return false
}

// skippedDir is skipped for a directory met in the walk outside git.
func skippedDir(dir string) bool {
	name := filepath.Base(dir)
	return slices.Contains(byproductDirs, name) || name == "target" && buildDir(dir) || depsDir(dir)
}

// depsMarkers are the files in node_modules where a package manager
// records what it installed: npm 7+, pnpm, Yarn berry, Yarn 1.
var depsMarkers = []string{".package-lock.json", ".modules.yaml", ".yarn-state.yml", ".yarn-integrity"}

// maxDepsNames bounds the names read of one dependency dir.
const maxDepsNames = 20_000

// installed describes the installed state of the dependency dirs at each
// of roots (see the comment at the top of this file), "" where there are
// none.
func (f *fingerprinter) installed(ctx context.Context, roots ...string) (string, error) {
	var b strings.Builder
	seen := map[string]bool{}
	for _, root := range roots {
		if seen[root] {
			continue
		}
		seen[root] = true
		if rec, err := f.nodeModules(ctx, filepath.Join(root, "node_modules")); err != nil {
			return "", err
		} else if rec != "" {
			writeRecord(&b, root+"/node_modules", rec)
		}
		for _, venv := range []string{".venv", "venv", "env"} {
			rec, err := f.venv(ctx, filepath.Join(root, venv))
			if err != nil {
				return "", err
			}
			if rec != "" {
				writeRecord(&b, root+"/"+venv, rec)
			}
		}
		for _, record := range []string{filepath.Join(root, "vendor", "composer", "installed.json"), filepath.Join(root, ".yarn", "install-state.gz")} {
			if !isRegular(record) {
				continue
			}
			rec, err := f.file(ctx, record)
			if err != nil {
				return "", err
			}
			writeRecord(&b, record, rec)
		}
	}
	return b.String(), nil
}

// nodeModules describes node_modules at dir: its markers' content and
// its packages' names (scoped ones included), its own dot entries (.bin,
// .cache: written by installs and runs) aside.
func (f *fingerprinter) nodeModules(ctx context.Context, dir string) (string, error) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return "", nil
	}
	var b strings.Builder
	for _, m := range depsMarkers {
		p := filepath.Join(dir, m)
		if !isRegular(p) {
			continue
		}
		rec, err := f.file(ctx, p)
		if err != nil {
			return "", err
		}
		writeRecord(&b, m, rec)
	}
	names, err := entryNames(dir)
	if err != nil {
		return "", fmt.Errorf("fingerprint %s: %w", dir, err)
	}
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			continue
		}
		b.WriteString(n + "\x00")
		if strings.HasPrefix(n, "@") {
			scoped, err := entryNames(filepath.Join(dir, n))
			if err != nil {
				continue // a file or link named @x: its name is enough
			}
			for _, s := range scoped {
				b.WriteString(n + "/" + s + "\x00")
			}
		}
	}
	return b.String(), nil
}

// venv describes the virtual environment at dir, if it is one: its
// pyvenv.cfg and the names of the distributions installed in it.
func (f *fingerprinter) venv(ctx context.Context, dir string) (string, error) {
	cfg := filepath.Join(dir, "pyvenv.cfg")
	if !isRegular(cfg) {
		return "", nil
	}
	var b strings.Builder
	rec, err := f.file(ctx, cfg)
	if err != nil {
		return "", err
	}
	writeRecord(&b, "pyvenv.cfg", rec)
	sites, _ := filepath.Glob(filepath.Join(dir, "lib", "python*", "site-packages"))
	sites = append(sites, filepath.Join(dir, "Lib", "site-packages"))
	for _, site := range sites {
		names, err := entryNames(site)
		if err != nil {
			continue
		}
		for _, n := range names {
			if strings.HasSuffix(n, ".dist-info") || strings.HasSuffix(n, ".egg-info") || strings.HasSuffix(n, ".pth") || strings.HasSuffix(n, ".egg-link") {
				b.WriteString(path.Join(filepath.Base(filepath.Dir(site)), n) + "\x00")
			}
		}
	}
	return b.String(), nil
}

// file describes one regular file as the state does (see regular).
func (f *fingerprinter) file(ctx context.Context, p string) (string, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return "gone", nil
	}
	if !fi.Mode().IsRegular() {
		return "special " + fi.Mode().String(), nil
	}
	return f.regular(ctx, p, statOf(fi))
}

// entryNames returns the sorted names in dir, at most maxDepsNames. A
// dir that is a link, or no directory, is refused before it is opened:
// opening a FIFO there would block the hook.
func entryNames(dir string) ([]string, error) {
	if fi, err := os.Lstat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", dir)
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(maxDepsNames)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

// writeRecord writes a named record, length-prefixed.
func writeRecord(b *strings.Builder, name, rec string) {
	fmt.Fprintf(b, "%d:%s%d:%s", len(name), name, len(rec), rec)
}
