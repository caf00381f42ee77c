package checkers

import (
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/pelletier/go-toml/v2"
)

// A Cargo workspace whose root manifest is virtual (a [workspace] table
// and no [package]) and names no default-members: `cargo test` there
// tests every member, so the detected `cargo test` runs each member's
// tests on their own (`cargo test -p NAME`), remembered by the state of
// the member, of the members it depends on and of the rest of the tree
// (see workspaceTest). A member depends on another through a path
// dependency — in [dependencies], [dev-dependencies] or
// [build-dependencies], plain or under [target.'cfg'.*] — written there
// or inherited from [workspace.dependencies] (`b = { workspace = true }`).
// A root that is a package itself (its `cargo test` tests only it), or
// default-members, glob forms Cargo reads otherwise, two members of one
// name or a member that cannot be read: the command runs whole.

// cargoManifest is what is read of a Cargo.toml, with
// github.com/pelletier/go-toml/v2: BurntSushi/toml, used before, reads the
// local time zone when a program starts, which cost every hook's start
// (docs/performance.md).
type cargoManifest struct {
	Package *struct {
		Name string `toml:"name"`
	} `toml:"package"`
	Workspace *struct {
		Members        []string          `toml:"members"`
		Exclude        []string          `toml:"exclude"`
		DefaultMembers []string          `toml:"default-members"`
		Dependencies   cargoDependencies `toml:"dependencies"`
	} `toml:"workspace"`
	Dependencies      cargoDependencies `toml:"dependencies"`
	DevDependencies   cargoDependencies `toml:"dev-dependencies"`
	BuildDependencies cargoDependencies `toml:"build-dependencies"`
	Target            map[string]struct {
		Dependencies      cargoDependencies `toml:"dependencies"`
		DevDependencies   cargoDependencies `toml:"dev-dependencies"`
		BuildDependencies cargoDependencies `toml:"build-dependencies"`
	} `toml:"target"`
}

// cargoDependencies is a table of dependencies by key, each entry a
// version string or a table (see dependency).
type cargoDependencies map[string]any

// cargoDependency is what matters here of a dependency's entry.
type cargoDependency struct {
	Path      string
	Workspace bool
}

// dependency reads the entry of key in either form: a version string has
// neither a path nor workspace = true.
func (t cargoDependencies) dependency(key string) cargoDependency {
	var d cargoDependency
	if table, ok := t[key].(map[string]any); ok {
		d.Path, _ = table["path"].(string)
		d.Workspace, _ = table["workspace"].(bool)
	}
	return d
}

// readCargo reads dir's Cargo.toml; ok is false when there is none or it
// does not parse.
func readCargo(dir string) (cargoManifest, bool) {
	var m cargoManifest
	data, err := readManifest(dir, "Cargo.toml")
	if err != nil || data == nil {
		return m, false
	}
	if err := toml.Unmarshal(data, &m); err != nil {
		return m, false
	}
	return m, true
}

// cargoWorkspace returns the members of the Cargo workspace at dir when
// `cargo test` there tests them all, and false otherwise.
func cargoWorkspace(dir string) ([]wsPackage, bool) {
	root, ok := readCargo(dir)
	if !ok || root.Workspace == nil || root.Package != nil || len(root.Workspace.DefaultMembers) > 0 {
		return nil, false
	}
	dirs, ok := globDirs(dir, root.Workspace.Members)
	if !ok {
		return nil, false
	}
	excluded, ok := globDirs(dir, root.Workspace.Exclude)
	if !ok {
		return nil, false
	}
	dirs = slices.DeleteFunc(dirs, func(d string) bool { return slices.Contains(excluded, d) })
	if len(dirs) == 0 || len(dirs) > maxWorkspacePackages {
		return nil, false
	}
	type member struct {
		wsPackage
		manifest cargoManifest
	}
	var members []member
	nameOf := map[string]string{} // dir → package name
	for _, d := range dirs {
		abs := filepath.Join(dir, filepath.FromSlash(d))
		if fi, err := os.Lstat(abs); err != nil || !fi.IsDir() {
			continue // a file the glob matched, or a link
		}
		m, ok := readCargo(abs)
		if !ok || m.Package == nil || m.Package.Name == "" {
			return nil, false // Cargo refuses a member it cannot read
		}
		if slices.ContainsFunc(members, func(o member) bool { return o.Name == m.Package.Name }) {
			return nil, false
		}
		nameOf[d] = m.Package.Name
		members = append(members, member{wsPackage{Name: m.Package.Name, Dir: d}, m})
	}
	// memberAt is the name of the member at path, relative to from (a
	// dir relative to the root), "" for none.
	memberAt := func(from, path string) string {
		if path == "" || filepath.IsAbs(path) {
			return ""
		}
		return nameOf[filepath.ToSlash(filepath.Clean(filepath.Join(filepath.FromSlash(from), path)))]
	}
	var pkgs []wsPackage
	for _, m := range members {
		tables := []cargoDependencies{m.manifest.Dependencies, m.manifest.DevDependencies, m.manifest.BuildDependencies}
		for _, t := range m.manifest.Target {
			tables = append(tables, t.Dependencies, t.DevDependencies, t.BuildDependencies)
		}
		for _, table := range tables {
			for key := range table {
				dep := table.dependency(key)
				name := memberAt(m.Dir, dep.Path)
				if dep.Workspace {
					name = memberAt(".", root.Workspace.Dependencies.dependency(key).Path)
				}
				if name != "" && name != m.Name && !slices.Contains(m.Deps, name) {
					m.Deps = append(m.Deps, name)
				}
			}
		}
		sort.Strings(m.Deps)
		pkgs = append(pkgs, m.wsPackage)
	}
	return pkgs, len(pkgs) > 0
}
