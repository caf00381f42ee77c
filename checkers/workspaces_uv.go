package checkers

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// A uv workspace tested by the detected `pytest` (pyproject.toml at the
// project's root with a [tool.uv.workspace] table): pytest run there
// collects the tests of every member, so each member's tests run on their
// own — `pytest --rootdir=. -c CONFIG MEMBER_DIR`, the same pytest with
// the same rootdir, the same config file (the one the root's run reads,
// pinned, so that a member's own [tool.pytest.ini_options] is not read in
// its place) and the member's directory as the only path — remembered by
// the state of the member, of the members it depends on and of the rest
// of the tree (see workspaceTest). A member depends on another it names
// in [project] dependencies or optional-dependencies, [dependency-groups]
// or [tool.uv] dev-dependencies (by the name's normalized form, whatever
// its source says), or whose modules its files import (a member imports
// any other installed in the workspace's one environment: see reachOf).
//
// uv itself is not run, and not needed: what is read is its workspace's
// manifests, as uv documents them (members and exclude globs, [project]
// names). It runs whole — the root's `pytest` — where the split would not
// be the same tests: a root that names testpaths or python_files, or
// --doctest-modules, or whose config pytest finds above the project dir;
// a test file outside every member (the root package's own tests); two
// members of one name, or one that cannot be read; more than
// maxWorkspacePackages members. A member with no test file is not run on
// its own: a change there runs every member, as a change outside them
// does.

// pyproject is what is read of a pyproject.toml.
type pyproject struct {
	Project *struct {
		Name                 string              `toml:"name"`
		Dependencies         []string            `toml:"dependencies"`
		OptionalDependencies map[string][]string `toml:"optional-dependencies"`
	} `toml:"project"`
	DependencyGroups map[string][]any `toml:"dependency-groups"`
	Tool             struct {
		UV struct {
			Workspace *struct {
				Members []string `toml:"members"`
				Exclude []string `toml:"exclude"`
			} `toml:"workspace"`
			Sources         map[string]any `toml:"sources"`
			DevDependencies []string       `toml:"dev-dependencies"`
		} `toml:"uv"`
		Pytest *struct {
			IniOptions map[string]any `toml:"ini_options"`
		} `toml:"pytest"`
	} `toml:"tool"`
}

// readPyproject reads dir's pyproject.toml; ok is false when there is
// none or it does not parse.
func readPyproject(dir string) (pyproject, bool) {
	var m pyproject
	data, err := readManifest(dir, "pyproject.toml")
	if err != nil || data == nil {
		return m, false
	}
	return m, toml.Unmarshal(data, &m) == nil
}

// pyRequirementName is the name at the start of a requirement
// ("bird-feeder[extra]>=1; python_version>'3'").
var pyRequirementName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)`)
})

// pyName is a distribution name in its normalized form (PEP 503).
func pyName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r == '-' || r == '_' || r == '.' {
			dash = true
			continue
		}
		if dash && b.Len() > 0 {
			b.WriteByte('-')
		}
		dash = false
		b.WriteRune(r)
	}
	return b.String()
}

// requirements lists the names a member's manifest depends on.
func (m pyproject) requirements() []string {
	var reqs []string
	if m.Project != nil {
		reqs = append(reqs, m.Project.Dependencies...)
		for _, group := range m.Project.OptionalDependencies {
			reqs = append(reqs, group...)
		}
	}
	for _, group := range m.DependencyGroups {
		for _, r := range group {
			if s, ok := r.(string); ok { // {include-group = "..."} names a group of the same file
				reqs = append(reqs, s)
			}
		}
	}
	reqs = append(reqs, m.Tool.UV.DevDependencies...)
	var names []string
	for _, r := range reqs {
		if n := pyRequirementName().FindStringSubmatch(r); n != nil {
			names = append(names, pyName(n[1]))
		}
	}
	return names
}

// pytestConfigs are the files pytest reads its config from, in the order
// it looks at them in a directory, each with how to tell that it holds
// pytest's config (nil: it does, whatever it holds).
var pytestConfigs = []struct {
	name  string
	holds func(data []byte) bool
}{
	{"pytest.ini", nil},
	{".pytest.ini", nil},
	// A [tool.pytest.ini_options] table, in any TOML spelling (a dotted
	// key too), as pytest reads it.
	{"pyproject.toml", func(data []byte) bool {
		var m pyproject
		return toml.Unmarshal(data, &m) == nil && m.Tool.Pytest != nil && m.Tool.Pytest.IniOptions != nil
	}},
	{"tox.ini", section("[pytest]")},
	{"setup.cfg", section("[tool:pytest]")},
}

// section tells an ini file that holds the section header.
func section(header string) func([]byte) bool {
	return func(data []byte) bool { return bytes.Contains(data, []byte(header)) }
}

// pytestConfig is the config file pytest's run in dir reads (a name in
// dir), "" with why where the split would not be the same tests: its
// config names testpaths, python_files or --doctest-modules, or it is
// above dir.
func pytestConfig(dir string) (name, why string) {
	for d := dir; ; {
		for _, c := range pytestConfigs {
			data, err := readManifest(d, c.name)
			if err != nil {
				return "", fmt.Sprintf("%s could not be read", filepath.Join(d, c.name))
			}
			if data == nil || c.holds != nil && !c.holds(data) {
				continue
			}
			if d != dir {
				return "", fmt.Sprintf("pytest reads its config from %s, above the project", filepath.Join(d, c.name))
			}
			for _, setting := range []string{"testpaths", "python_files", "doctest-modules"} {
				if strings.Contains(string(data), setting) {
					return "", fmt.Sprintf("%s sets %s", c.name, setting)
				}
			}
			return c.name, ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			// None: the root's pyproject.toml, which holds no pytest
			// config, is pinned (pytest reads it as empty).
			return "pyproject.toml", ""
		}
		d = parent
	}
}

// pyTestFile reports whether a file's name is one pytest collects by
// default (python_files: test_*.py, *_test.py).
func pyTestFile(base string) bool {
	return strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py"))
}

// pytestSkipsDir reports whether pytest's collection does not enter a
// directory of this name (norecursedirs' default, __pycache__).
func pytestSkipsDir(base string) bool {
	switch base {
	case "build", "dist", "node_modules", "venv", "CVS", "_darcs", "{arch}", "__pycache__":
		return true
	}
	return strings.HasPrefix(base, ".") || strings.HasSuffix(base, ".egg")
}

// maxUVWalk bounds the entries looked at for test files.
const maxUVWalk = 50000

// findPyTest returns the first file pytest collects by default in the
// tree at root ("" for none), looking first in the tests and test dirs a
// project's tests are usually in; a dir skip reports true for is not
// entered, nor one pytest's collection does not enter. ok is false where
// the tree could not be read or budget, the entries left to look at, ran
// out.
func findPyTest(root string, skip func(dir string) bool, budget *int) (found string, ok bool) {
	look := func(top string) error {
		return filepath.WalkDir(top, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if p != top || !errors.Is(err, fs.ErrNotExist) {
					return err
				}
				return nil // no such dir
			}
			if *budget--; *budget < 0 {
				return errUVBudget
			}
			switch {
			case p == top:
			case e.IsDir() && (pytestSkipsDir(e.Name()) || skip != nil && skip(p)):
				return filepath.SkipDir
			case !e.IsDir() && pyTestFile(e.Name()):
				found = p
				return fs.SkipAll
			}
			return nil
		})
	}
	for _, top := range []string{filepath.Join(root, "tests"), filepath.Join(root, "test"), root} {
		if err := look(top); err != nil {
			return "", false
		}
		if found != "" {
			return found, true
		}
	}
	return "", true
}

// errUVBudget stops a walk past maxUVWalk entries.
var errUVBudget = errors.New("past the entries looked at")

// uvWorkspace returns the members of the uv workspace at dir that hold
// tests, and the command that runs one member's tests, when command (the
// detected pytest) tests them all; pkgs is nil otherwise, with why where
// dir is a uv workspace whose split would not be the same tests.
func uvWorkspace(dir, command string) (pkgs []wsPackage, perPackage func(name string) string, why string) {
	root, ok := readPyproject(dir)
	if !ok || root.Tool.UV.Workspace == nil {
		return nil, nil, ""
	}
	config, why := pytestConfig(dir)
	if why != "" {
		return nil, nil, why
	}
	dirs, ok := globDirs(dir, root.Tool.UV.Workspace.Members)
	excluded, okExcluded := globDirs(dir, root.Tool.UV.Workspace.Exclude)
	if !ok || !okExcluded {
		return nil, nil, "its members or exclude name a form read here would be a guess (**, !, a path out of the project)"
	}
	dirs = slices.DeleteFunc(dirs, func(d string) bool { return slices.Contains(excluded, d) })
	if len(dirs) > maxWorkspacePackages {
		return nil, nil, fmt.Sprintf("more than %d members", maxWorkspacePackages)
	}
	type member struct {
		wsPackage
		manifest pyproject
		tests    bool // it holds a test file
	}
	var members []*member
	for _, d := range dirs {
		abs := filepath.Join(dir, filepath.FromSlash(d))
		if fi, err := os.Lstat(abs); err != nil || !fi.IsDir() {
			continue // a file the glob matched, or a link
		}
		if _, err := os.Lstat(filepath.Join(abs, "pyproject.toml")); err != nil {
			continue // uv takes a directory without one for no member
		}
		m, ok := readPyproject(abs)
		if !ok || m.Project == nil || m.Project.Name == "" {
			return nil, nil, fmt.Sprintf("%s/pyproject.toml does not parse, or names no project", d)
		}
		name := pyName(m.Project.Name)
		if slices.ContainsFunc(members, func(o *member) bool { return o.Name == name }) {
			return nil, nil, fmt.Sprintf("two members are named %s", name)
		}
		members = append(members, &member{wsPackage: wsPackage{Name: name, Dir: d}, manifest: m})
	}
	if len(members) == 0 {
		return nil, nil, ""
	}
	// A test file outside every member is one the split would not run;
	// the rest of the tree is walked, the members' dirs left out.
	memberDir := map[string]*member{}
	for _, m := range members {
		memberDir[filepath.Join(dir, filepath.FromSlash(m.Dir))] = m
	}
	budget := maxUVWalk
	outside, ok := findPyTest(dir, func(p string) bool { return memberDir[p] != nil }, &budget)
	switch {
	case !ok:
		return nil, nil, fmt.Sprintf("the tree could not be read for test files within %d entries", maxUVWalk)
	case outside != "":
		rel, _ := filepath.Rel(dir, outside)
		return nil, nil, fmt.Sprintf("%s is a test outside every member", filepath.ToSlash(rel))
	}
	for _, m := range members {
		found, ok := findPyTest(filepath.Join(dir, filepath.FromSlash(m.Dir)), nil, &budget)
		if !ok {
			return nil, nil, fmt.Sprintf("the tree could not be read for test files within %d entries", maxUVWalk)
		}
		m.tests = found != ""
	}
	dirOf := map[string]string{}
	for _, m := range members {
		for _, r := range m.manifest.requirements() {
			if r != m.Name && !slices.Contains(m.Deps, r) && slices.ContainsFunc(members, func(o *member) bool { return o.Name == r }) {
				m.Deps = append(m.Deps, r)
			}
		}
		sort.Strings(m.Deps)
		if m.tests {
			pkgs = append(pkgs, m.wsPackage)
			dirOf[m.Name] = m.Dir
		}
	}
	if len(pkgs) == 0 {
		return nil, nil, "no member holds a test file"
	}
	return pkgs, func(name string) string {
		return fmt.Sprintf("%s --rootdir=. -c %s %s", command, shellWord(config), shellWord(dirOf[name]))
	}, ""
}

// pyModules maps each top-level module a workspace's members provide to
// the members (indexes of pkgs) that provide it: under a member's src/,
// every directory and .py file; at its root, a directory with an
// __init__.py and a .py file other than a test file, conftest.py or
// setup.py. files are relative to the work tree's top, prefix the
// project dir's place there; owner is the member holding a path relative
// to the project dir.
func pyModules(files []string, prefix string, owner func(rel string) int, pkgs []wsPackage) map[string][]int {
	modules := map[string][]int{}
	provide := func(name string, i int) {
		if name != "" && !slices.Contains(modules[name], i) {
			modules[name] = append(modules[name], i)
		}
	}
	for _, f := range files {
		rel, ok := strings.CutPrefix(f, prefix)
		if !ok || !strings.HasSuffix(rel, ".py") {
			continue
		}
		i := owner(rel)
		if i < 0 {
			continue
		}
		in := strings.TrimPrefix(rel, pkgs[i].Dir+"/")
		src := strings.HasPrefix(in, "src/")
		in = strings.TrimPrefix(in, "src/")
		top, rest, nested := strings.Cut(in, "/")
		switch {
		case nested && (src || rest == "__init__.py"):
			provide(top, i)
		case !nested && (src || !pyTestFile(top) && top != "conftest.py" && top != "setup.py"):
			provide(strings.TrimSuffix(top, ".py"), i)
		}
	}
	return modules
}

// pyImportLine is an import statement — from NAME import, or import
// NAME[, NAME] (relative imports, from . import, are not another's) — or
// a call given a module's name in a literal: importlib's import_module
// and find_spec, __import__, a mock's patch and patch.object.
var pyImportLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*(?:from[ \t]+([A-Za-z_][\w.]*)[ \t]+import\b|import[ \t]+([^\n#;]+))|\b(?:import_module|find_spec|__import__|patch|patch\.object)\(\s*[rbu]?["']([A-Za-z_][\w.]*)`)
})

// pyImported lists the top-level modules data's import statements name.
func pyImported(data []byte) []string {
	var names []string
	for _, m := range pyImportLine().FindAllSubmatch(data, -1) {
		list := string(m[1]) + string(m[2]) + string(m[3]) // one of them
		for _, part := range strings.Split(list, ",") {
			fields := strings.Fields(strings.Trim(part, " \t()\\"))
			if len(fields) == 0 {
				continue
			}
			top, _, _ := strings.Cut(fields[0], ".")
			if top != "" && !slices.Contains(names, top) {
				names = append(names, top)
			}
		}
	}
	return names
}
