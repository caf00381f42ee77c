package checkers

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A Go workspace (a go.work whose root is no module) is detected as `go
// test ./a/... ./b/...`, each module it uses named (see goWorkKind). With
// scope "changed" it runs module by module (`go test ./a/...`), each run
// in its -json form for the runner's report as the whole command's (see
// goReport), remembered by the state of the module and of the workspace
// modules it depends on: those its go.mod requires, and those its files
// import — in workspace mode a module may import another of the
// workspace without requiring it (measured with Go 1.26), so the import
// paths of the files count (see reachOf). Go's own test cache still
// serves each run; what this adds is a session's first stop running only
// the modules the agent changed and those that depend on them, as in
// every workspace. A module at the workspace's root (`use .`), a go.mod
// without a module line, or two modules of one path run the command
// whole.

// goWorkspace returns the modules of the Go workspace at dir whose roots
// (relative, slash-separated, as the detected command names them) are
// roots, each named by its module path; ok is false where it runs whole.
func goWorkspace(dir string, roots []string) (pkgs []wsPackage, ok bool) {
	if len(roots) < 2 || len(roots) > maxWorkspacePackages {
		return nil, false
	}
	names := map[string]bool{}
	requires := map[string][]string{}
	for _, root := range roots {
		if root == "." || strings.HasPrefix(root, "..") {
			return nil, false
		}
		data, err := readManifest(filepath.Join(dir, filepath.FromSlash(root)), "go.mod")
		if err != nil || data == nil {
			return nil, false
		}
		module, reqs := goModFile(data)
		if module == "" || names[module] {
			return nil, false
		}
		names[module] = true
		requires[module] = reqs
		pkgs = append(pkgs, wsPackage{Name: module, Dir: path.Clean(root)})
	}
	for i := range pkgs {
		for _, r := range requires[pkgs[i].Name] {
			if names[r] && r != pkgs[i].Name {
				pkgs[i].Deps = append(pkgs[i].Deps, r)
			}
		}
	}
	return pkgs, true
}

// goModFile reads a go.mod's module path and the module paths it
// requires (single lines and blocks; comments cut).
func goModFile(data []byte) (module string, requires []string) {
	block := false
	for _, line := range strings.Split(string(data), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case block && f[0] == ")":
			block = false
		case block:
			requires = append(requires, strings.Trim(f[0], `"`))
		case f[0] == "module" && len(f) >= 2:
			module = strings.Trim(f[1], `"`)
		case f[0] == "require" && len(f) == 2 && f[1] == "(":
			block = true
		case f[0] == "require" && len(f) >= 3:
			requires = append(requires, strings.Trim(f[1], `"`))
		}
	}
	return module, requires
}

// goModuleTest is the command that tests the module at root of a Go
// workspace.
func goModuleTest(pkgs []wsPackage) func(name string) string {
	return func(name string) string {
		i := slices.IndexFunc(pkgs, func(p wsPackage) bool { return p.Name == name })
		return fmt.Sprintf("go test ./%s/...", pkgs[i].Dir)
	}
}

// goImports reports the workspace modules (their indexes in pkgs) that a
// quoted string of a Go file names as an import path: the module's path,
// or a package under it.
func goImports(pkgs []wsPackage) func(q []byte) []int {
	return func(q []byte) []int {
		var out []int
		for i, p := range pkgs {
			if len(q) >= len(p.Name) && string(q[:len(p.Name)]) == p.Name && (len(q) == len(p.Name) || q[len(p.Name)] == '/') {
				out = append(out, i)
			}
		}
		return out
	}
}
