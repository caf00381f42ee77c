package checkers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/regular"
)

// A package's manifest does not say all it reads. A test of package b may
// require('../a') without declaring a, import a workspace package by its
// name (npm links every workspace package into the root's node_modules),
// go through a tsconfig "paths" alias, or build a path with '..' to read
// another package's files. A result of b keyed on b and its declared
// dependencies alone was reused after a change to a while b failed.
//
// So, before a workspace is run package by package, each package's files
// (tracked, and untracked but not ignored) are read for what they name:
//
//   - a relative path token ('./x', '../a/src', '../../packages/a'),
//     resolved from the file's directory and from the package's own (a
//     test's working directory): a path inside another package makes it a
//     dependency; one that holds other packages (`..` from a package at
//     the root of packages/) makes them all dependencies;
//   - path pieces made only of '..' (path.join(__dirname, '..', '..')):
//     together they may climb that many directories from the file's, so
//     what the package may reach is read as from the highest of them
//     (above the project dir: every package);
//   - a quoted string naming a workspace package, or an alias of a
//     tsconfig/jsconfig "compilerOptions.paths" (of the package or of the
//     files outside every package) into one: that package (JavaScript
//     workspaces: a Cargo crate reaches another only as a declared
//     dependency); in a Go workspace, an import path of a workspace
//     module (a module may import one it does not require);
//   - in a uv workspace, an import of a member's module (import a.b,
//     from a import x, importlib.import_module("a.b"), __import__("a"),
//     a mock's patch("a.b.f")): every member
//     is installed in the workspace's one environment, so a member may
//     import one it does not declare;
//   - a bundler's or test runner's config outside every package
//     (vite, vitest, webpack, jest, babel, rollup) naming a package's
//     directory: every package depends on it.
//
// A path that leaves the project dir is outside every package: it is in
// the rest of the tree, which every result depends on, when inside the
// work tree; outside it, the workspace runs whole (see outsideTree).
// Where a package's files cannot all be read (one over maxReachFileBytes,
// the total over maxReachBytes) or a tsconfig with "paths" does not
// parse, the package is taken to depend on every package, and explain
// says why. What this does not see: a path built from pieces other than
// literals ('pack' + 'ages'), from the environment or from git, or an
// absolute one.

const (
	// maxReachFileBytes bounds one file read; maxReachBytes all read of
	// one workspace.
	maxReachFileBytes = 4 << 20
	maxReachBytes     = 256 << 20
)

// wsReach is what a workspace's files were found to reach beyond what
// its manifests declare.
type wsReach struct {
	// Deps are the packages each package (by name) reaches, beyond its
	// declared dependencies.
	Deps map[string][]string `json:"deps"`
	// Wide says why a package is taken to depend on every package.
	Wide map[string]string `json:"wide"`
	// Outside is why the workspace reaches files outside the work tree:
	// "" when it does not.
	Outside string `json:"outside"`
}

// reachOf reads what the files of pkgs reach, until ctx ends (its error
// then). files are the work tree's
// files under the project dir, relative to top (slash-separated); prefix
// is the project dir relative to top ("" or ending in "/"); inRepo tells
// whether a path relative to the project dir is still inside the work
// tree; kind is the manifest the workspace was read from, which turns on
// the rules of its language: package names and aliases for JavaScript
// ("package.json"), import paths for Go ("go.work").
func reachOf(ctx context.Context, top, prefix string, files []string, pkgs []wsPackage, inRepo func(rel string) bool, kind string) (wsReach, error) {
	js, goMod, py := kind == "package.json", kind == "go.work", kind == "pyproject.toml"
	var imports func([]byte) []int
	if goMod {
		imports = goImports(pkgs)
	}
	re := wsReach{Deps: map[string][]string{}, Wide: map[string]string{}}
	dirs := make([]string, len(pkgs)) // each with a trailing slash
	for i, p := range pkgs {
		dirs[i] = p.Dir + "/"
	}
	// owner is the index of the package holding rel (relative to the
	// project dir), -1 for none.
	owner := func(rel string) int {
		best := -1
		for i, d := range dirs {
			if (len(rel) == len(d)-1 && rel == d[:len(d)-1] || strings.HasPrefix(rel, d)) && (best < 0 || len(d) > len(dirs[best])) {
				best = i
			}
		}
		return best
	}
	// reached lists the packages a path (relative to the project dir,
	// cleaned) reaches: the one holding it, or every one under it. The
	// same paths come back file after file: each is worked out once.
	memo := map[string][]int{}
	joined := map[joinKey]string{} // path.Join's of the tokens met
	reached := func(rel string) []int {
		if r, ok := memo[rel]; ok {
			return r
		}
		var all []int
		if i := owner(rel); i >= 0 {
			all = []int{i}
		} else {
			for i, d := range dirs {
				if rel == "." || len(d) > len(rel)+1 && d[len(rel)] == '/' && strings.HasPrefix(d, rel) {
					all = append(all, i)
				}
			}
		}
		memo[rel] = all
		return all
	}
	add := func(from int, to []int) {
		for _, t := range to {
			if t != from && !slices.Contains(re.Deps[pkgs[from].Name], pkgs[t].Name) {
				re.Deps[pkgs[from].Name] = append(re.Deps[pkgs[from].Name], pkgs[t].Name)
			}
		}
	}
	everyone := make([]int, len(pkgs))
	for i := range everyone {
		everyone[i] = i
	}
	names := map[string]int{}
	for i, p := range pkgs {
		names[p.Name] = i
	}
	aliases := map[string][]int{} // an alias's prefix: the packages it leads to
	var modules map[string][]int
	if py {
		modules = pyModules(files, prefix, owner, pkgs)
	}
	var read int64
	var rootConfigs []string
	for _, f := range files {
		rel, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		base := path.Base(rel)
		if (strings.HasPrefix(base, "tsconfig") || strings.HasPrefix(base, "jsconfig")) && strings.HasSuffix(base, ".json") {
			if why := tsAliases(top, f, rel, reached, aliases); why != "" {
				if i := owner(rel); i >= 0 {
					re.Wide[pkgs[i].Name] = why
				} else {
					for _, p := range pkgs {
						re.Wide[p.Name] = why
					}
				}
			}
		}
		if owner(rel) < 0 && js && bundlerConfig(base) {
			rootConfigs = append(rootConfigs, f)
		}
	}
	for _, f := range rootConfigs {
		data, err := readBounded(filepath.Join(top, filepath.FromSlash(f)), maxReachFileBytes)
		if err != nil {
			for _, p := range pkgs {
				re.Wide[p.Name] = fmt.Sprintf("%s could not be read", f)
			}
			continue
		}
		for _, q := range quotedBytes(data) {
			s := strings.TrimPrefix(path.Clean(strings.TrimPrefix(string(q), "./")), "./")
			if i := owner(s); i >= 0 {
				for from := range pkgs {
					add(from, []int{i})
				}
			}
		}
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return wsReach{}, err
		}
		rel, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		from := owner(rel)
		if from < 0 {
			continue
		}
		p := pkgs[from]
		if _, ok := re.Wide[p.Name]; ok {
			continue
		}
		data, err := readBounded(filepath.Join(top, filepath.FromSlash(f)), maxReachFileBytes)
		if err != nil {
			re.Wide[p.Name] = fmt.Sprintf("%s could not be read whole (%v)", rel, err)
			continue
		}
		if read += int64(len(data)); read > maxReachBytes {
			re.Wide[p.Name] = fmt.Sprintf("its files are more than the %d MiB read of a workspace", maxReachBytes>>20)
			continue
		}
		if bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 {
			continue // binary: names no module, builds no path
		}
		fileDir := path.Dir(rel)
		climb := 0
		for _, tok := range dotTokens(data) {
			if strings.Trim(tok, "./") == "" {
				climb += strings.Count(tok, "..")
				continue
			}
			if !strings.HasPrefix(tok, ".") {
				// '..' within a path of unknown base: `${root}/../a`.
				re.Wide[p.Name] = fmt.Sprintf("%s builds a path with '..' from a base not written there (%q)", rel, clip(tok))
				break
			}
			tok, _, _ = strings.Cut(tok, "*")
			for _, base := range []string{fileDir, p.Dir} {
				jk := joinKey{base, tok}
				target, ok := joined[jk]
				if !ok {
					target = path.Join(base, tok)
					joined[jk] = target
				}
				if strings.HasPrefix(target, "../") || target == ".." {
					// Out of the project dir: in the rest of the work
					// tree, which every result depends on, or out of it.
					// From the package's dir (a path the test opens
					// from its working directory) this is usually a
					// path written for the file's: not read so.
					if base == fileDir && !inRepo(target) {
						re.Outside = fmt.Sprintf("%s names %s, outside the work tree", rel, tok)
					}
					continue
				}
				add(from, reached(target))
			}
		}
		if climb > 0 {
			// Together the pieces may climb that far from the file's dir.
			// Summed over the file, they climb further than any one
			// path may: above the project dir every package is under
			// them, and no more is told (several path.join(__dirname,
			// '..') in one test are common; the work tree left by them
			// is not).
			target := path.Join(fileDir, strings.Repeat("../", climb))
			if target == ".." || strings.HasPrefix(target, "../") {
				target = "."
			}
			if target != p.Dir && !strings.HasPrefix(target, p.Dir+"/") {
				add(from, reached(target))
			}
		}
		if goMod && strings.HasSuffix(rel, ".go") {
			for _, q := range quotedBytes(data) {
				add(from, imports(q))
			}
		}
		if py && strings.HasSuffix(rel, ".py") {
			for _, name := range pyImported(data) {
				add(from, modules[name])
			}
		}
		if !js {
			continue
		}
		for _, q := range quotedBytes(data) {
			if i, ok := names[string(moduleName(q))]; ok {
				add(from, []int{i})
			}
			for a, to := range aliases {
				if string(q) == strings.TrimSuffix(a, "/") || bytes.HasPrefix(q, []byte(a)) {
					add(from, to)
				}
			}
		}
	}
	for name := range re.Wide {
		add(names[name], everyone)
	}
	for _, d := range re.Deps {
		sort.Strings(d)
	}
	return re, nil
}

// bundlerConfig reports whether a file's name is that of a bundler's or
// test runner's config, which may alias another package's files.
func bundlerConfig(base string) bool {
	for _, p := range []string{"vite.config.", "vitest.config.", "vitest.workspace.", "webpack.config.", "jest.config.", "babel.config.", ".babelrc", "rollup.config."} {
		if strings.HasPrefix(base, p) {
			return true
		}
	}
	return false
}

// moduleName is the package name a module specifier names: "@s/n" of
// "@s/n/x", "n" of "n/x".
func moduleName(s []byte) []byte {
	i := bytes.IndexByte(s, '/')
	if i < 0 {
		return s
	}
	if s[0] == '@' {
		if j := bytes.IndexByte(s[i+1:], '/'); j >= 0 {
			return s[:i+1+j]
		}
		return s
	}
	return s[:i]
}

// joinKey is a token and the dir it is joined to.
type joinKey struct{ base, tok string }

// tsAliases reads the "compilerOptions.paths" of the tsconfig or
// jsconfig f (rel: relative to the project dir) into aliases: each
// alias's prefix (cut at its '*') and the packages its targets reach.
// It returns why it could not read them, "" when it could or there are
// none.
func tsAliases(top, f, rel string, reached func(string) []int, aliases map[string][]int) string {
	data, err := readBounded(filepath.Join(top, filepath.FromSlash(f)), maxReachFileBytes)
	if err != nil {
		return fmt.Sprintf("%s could not be read (%v)", rel, err)
	}
	if !bytes.Contains(data, []byte(`"paths"`)) {
		return ""
	}
	data = jsoncToJSON(data)
	if !gjson.ValidBytes(data) {
		return fmt.Sprintf("%s has \"paths\" but does not parse", rel)
	}
	opts := gjson.GetBytes(data, "compilerOptions")
	base := path.Join(path.Dir(rel), opts.Get("baseUrl").Str)
	var why string
	opts.Get("paths").ForEach(func(k, v gjson.Result) bool {
		prefix, _, _ := strings.Cut(k.Str, "*")
		v.ForEach(func(_, t gjson.Result) bool {
			target, _, _ := strings.Cut(t.Str, "*")
			target = path.Join(base, target)
			if strings.HasPrefix(target, "../") {
				why = fmt.Sprintf("%s aliases %q to a path outside the project dir", rel, k.Str)
				return false
			}
			aliases[prefix] = append(aliases[prefix], reached(target)...)
			return true
		})
		return why == ""
	})
	return why
}

// jsoncToJSON drops the comments and trailing commas JSON with comments
// (tsconfig's form) allows.
func jsoncToJSON(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(data))
			out = append(out, data[i:end]...)
			i = end - 1
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
		case c == ',':
			rest := bytes.TrimLeft(data[i+1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
				continue
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// dotTokens returns the path tokens of data that hold a '..' segment:
// the run of path characters around each "..", as written.
func dotTokens(data []byte) []string {
	var toks []string
	pathChar := func(c byte) bool {
		return c > ' ' && !strings.ContainsRune("'\"`(),;{}[]<>|=$+:!&?^%#~", rune(c)) && c != 0x7f
	}
	for i := 0; i < len(data); {
		j := bytes.Index(data[i:], []byte(".."))
		if j < 0 {
			break
		}
		at := i + j
		from, to := at, at+2
		for from > 0 && pathChar(data[from-1]) {
			from--
		}
		for to < len(data) && pathChar(data[to]) {
			to++
		}
		i = to
		tok := strings.ReplaceAll(string(data[from:to]), `\`, "/")
		// A '..' segment, not an ellipsis ("wait..."), a range (a..b) or
		// a spread (...x).
		if !slices.Contains(strings.Split(tok, "/"), "..") {
			continue
		}
		toks = append(toks, tok)
	}
	return toks
}

// quotedBytes returns the strings of data between matching quotes (' and
// " within a line, ` across lines), at most 512 bytes each, as slices of
// data.
func quotedBytes(data []byte) [][]byte {
	var out [][]byte
	for i := 0; i < len(data); i++ {
		q := data[i]
		if q != '\'' && q != '"' && q != '`' {
			continue
		}
		j := i + 1
		for j < len(data) && j-i <= 512 && data[j] != q && (q == '`' || data[j] != '\n') {
			if data[j] == '\\' {
				j++
			}
			j++
		}
		if j < len(data) && data[j] == q {
			out = append(out, data[i+1:j])
			i = j
		}
	}
	return out
}

// readBounded reads the regular file at p, at most limit bytes (an error
// past that).
func readBounded(p string, limit int64) ([]byte, error) {
	f, err := regular.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("larger than %d MiB", limit>>20)
	}
	return data, nil
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
