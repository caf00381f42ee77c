package checkers

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSWorkspace(t *testing.T) {
	pkg := func(name, deps string) string {
		return `{"name": "` + name + `", "dependencies": {` + deps + `}, "scripts": {"test": "x"}}`
	}
	tests := []struct {
		name  string
		root  string
		files map[string]string
		want  []wsPackage // nil: run the command whole
		// command is the command of the package @s/x.
		command string
	}{
		{"packages/* with --workspaces", `{"workspaces": ["packages/*"], "scripts": {"test": "npm test --workspaces --if-present"}}`,
			map[string]string{"packages/a/package.json": pkg("a", `"b": "*", "left-pad": "1"`), "packages/b/package.json": pkg("b", ""), "packages/readme.md": "x"},
			[]wsPackage{{Name: "a", Dir: "packages/a", Deps: []string{"b"}}, {Name: "b", Dir: "packages/b"}}, "npm test --workspace=@s/x --if-present"},
		{"the object form, -ws", `{"workspaces": {"packages": ["libs/*"]}, "scripts": {"test": "npm run test -ws"}}`,
			map[string]string{"libs/x/package.json": pkg("@s/x", "")},
			[]wsPackage{{Name: "@s/x", Dir: "libs/x"}}, "npm test --workspace=@s/x --if-present"},
		{"--workspaces=false", `{"workspaces": ["packages/*"], "scripts": {"test": "npm test --workspaces=false"}}`,
			map[string]string{"packages/a/package.json": pkg("a", "")}, nil, ""},
		{"pnpm -r test, pnpm-workspace.yaml, workspace: dependencies", `{"scripts": {"test": "pnpm -r test"}}`,
			map[string]string{"pnpm-workspace.yaml": "packages:\n  - 'apps/*'\n  - libs/*\n", "apps/a/package.json": pkg("a", `"b": "workspace:*"`), "libs/b/package.json": pkg("b", "")},
			[]wsPackage{{Name: "a", Dir: "apps/a", Deps: []string{"b"}}, {Name: "b", Dir: "libs/b"}}, "pnpm --filter=@s/x run --if-present test"},
		{"yarn workspaces foreach -Apt run test", `{"workspaces": ["packages/*"], "scripts": {"test": "yarn workspaces foreach -Apt run test"}}`,
			map[string]string{"packages/a/package.json": pkg("a", `"b": "workspace:^"`), "packages/b/package.json": pkg("b", "")},
			[]wsPackage{{Name: "a", Dir: "packages/a", Deps: []string{"b"}}, {Name: "b", Dir: "packages/b"}}, "yarn workspaces foreach --all --include @s/x run test"},
		{"yarn workspaces foreach --worktree test", `{"workspaces": ["packages/*"], "scripts": {"test": "yarn workspaces foreach --worktree --parallel test"}}`,
			map[string]string{"packages/a/package.json": pkg("a", "")},
			[]wsPackage{{Name: "a", Dir: "packages/a"}}, "yarn workspaces foreach --all --include @s/x run test"},
		{"yarn foreach that excludes", `{"workspaces": ["packages/*"], "scripts": {"test": "yarn workspaces foreach -A --exclude a run test"}}`,
			map[string]string{"packages/a/package.json": pkg("a", "")}, nil, ""},
		{"yarn foreach of some workspaces only", `{"workspaces": ["packages/*"], "scripts": {"test": "yarn workspaces foreach -R run test"}}`,
			map[string]string{"packages/a/package.json": pkg("a", "")}, nil, ""},
		{"yarn foreach with a flag's argument", `{"workspaces": ["packages/*"], "scripts": {"test": "yarn workspaces foreach -A --jobs 2 run test"}}`,
			map[string]string{"packages/a/package.json": pkg("a", "")}, nil, ""},
		{"yarn foreach of another script", `{"workspaces": ["packages/*"], "scripts": {"test": "yarn workspaces foreach -A run lint"}}`,
			map[string]string{"packages/a/package.json": pkg("a", "")}, nil, ""},
		{"pnpm --recursive run test", `{"scripts": {"test": "pnpm --recursive run test"}}`,
			map[string]string{"pnpm-workspace.yaml": "packages: [\"p/*\"]\n", "p/a/package.json": pkg("a", "")},
			[]wsPackage{{Name: "a", Dir: "p/a"}}, "pnpm --filter=@s/x run --if-present test"},
		{"pnpm filtering in the root script", `{"scripts": {"test": "pnpm -r --filter=./libs/** test"}}`,
			map[string]string{"pnpm-workspace.yaml": "packages: [\"p/*\"]\n", "p/a/package.json": pkg("a", "")}, nil, ""},
		{"pnpm negated patterns", `{"scripts": {"test": "pnpm -r test"}}`,
			map[string]string{"pnpm-workspace.yaml": "packages: [\"p/*\", \"!p/old\"]\n", "p/a/package.json": pkg("a", "")}, nil, ""},
		{"pnpm without pnpm-workspace.yaml", `{"scripts": {"test": "pnpm -r test"}}`,
			map[string]string{"p/a/package.json": pkg("a", "")}, nil, ""},
		{"pnpm-workspace.yaml that is not YAML", `{"scripts": {"test": "pnpm -r test"}}`,
			map[string]string{"pnpm-workspace.yaml": "packages: [\n", "p/a/package.json": pkg("a", "")}, nil, ""},
		{"a root test script of its own", `{"workspaces": ["packages/*"], "scripts": {"test": "jest"}}`,
			map[string]string{"packages/a/package.json": pkg("a", "")}, nil, ""},
		{"a ** pattern", `{"workspaces": ["packages/**"], "scripts": {"test": "npm test -ws"}}`,
			map[string]string{"packages/a/package.json": pkg("a", "")}, nil, ""},
		{"a pattern out of the project", `{"workspaces": ["../other/*"], "scripts": {"test": "npm test -ws"}}`, nil, nil, ""},
		{"two packages of one name", `{"workspaces": ["p/*"], "scripts": {"test": "npm test -ws"}}`,
			map[string]string{"p/a/package.json": pkg("a", ""), "p/b/package.json": pkg("a", "")}, nil, ""},
		{"no workspaces", `{"scripts": {"test": "npm test -ws"}}`, nil, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tt.files, "package.json", tt.root)
			got, perPackage, ok := jsWorkspace(dir)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, got)
			if ok {
				assert.Equal(t, tt.command, perPackage("@s/x"))
			}
		})
	}
}

func TestDependsOn(t *testing.T) {
	byName := map[string]wsPackage{
		"app":  {Name: "app", Dir: "apps/app", Deps: []string{"ui", "util"}},
		"ui":   {Name: "ui", Dir: "libs/ui", Deps: []string{"util"}},
		"util": {Name: "util", Dir: "libs/util", Deps: []string{"app"}}, // a cycle
		"solo": {Name: "solo", Dir: "libs/solo"},
	}
	assert.Equal(t, []string{"apps/app", "libs/ui", "libs/util"}, dependsOn(byName["app"], byName))
	assert.Equal(t, []string{"apps/app", "libs/ui", "libs/util"}, dependsOn(byName["ui"], byName))
	assert.Equal(t, []string{"libs/solo"}, dependsOn(byName["solo"], byName))
}

func TestCargoWorkspace(t *testing.T) {
	crate := func(name, deps string) string {
		return "[package]\nname = \"" + name + "\"\nversion = \"0.1.0\"\n" + deps
	}
	tests := []struct {
		name  string
		root  string
		files map[string]string
		want  []wsPackage // nil: run the command whole
	}{
		{"a virtual manifest, path dependencies of each kind",
			"[workspace]\nmembers = [\"crates/*\", \"tools/x\"]\nexclude = [\"crates/old\"]\n[workspace.dependencies]\nb = { path = \"crates/b\" }\nserde = \"1\"\n",
			map[string]string{
				"crates/a/Cargo.toml":   crate("a", "[dependencies]\nb = { workspace = true }\nserde = { workspace = true }\n[dev-dependencies]\nx-tool = { path = \"../../tools/x\", package = \"x\" }\n"),
				"crates/b/Cargo.toml":   crate("b", "[target.'cfg(unix)'.dependencies]\nc = { path = \"../c\", version = \"0.1\" }\n"),
				"crates/c/Cargo.toml":   crate("c", "[build-dependencies]\nc = { path = \".\" }\n"),
				"crates/old/Cargo.toml": "not toml [",
				"tools/x/Cargo.toml":    crate("x", ""),
				"crates/README.md":      "x",
			},
			[]wsPackage{{Name: "a", Dir: "crates/a", Deps: []string{"b", "x"}}, {Name: "b", Dir: "crates/b", Deps: []string{"c"}}, {Name: "c", Dir: "crates/c"}, {Name: "x", Dir: "tools/x"}}},
		{"a root package: cargo test tests it alone",
			"[package]\nname = \"root\"\nversion = \"0.1.0\"\n[workspace]\nmembers = [\"crates/*\"]\n",
			map[string]string{"crates/a/Cargo.toml": crate("a", "")}, nil},
		{"default-members", "[workspace]\nmembers = [\"crates/*\"]\ndefault-members = [\"crates/a\"]\n",
			map[string]string{"crates/a/Cargo.toml": crate("a", "")}, nil},
		{"a member that does not parse", "[workspace]\nmembers = [\"crates/*\"]\n",
			map[string]string{"crates/a/Cargo.toml": "[package\n"}, nil},
		{"two members of one name", "[workspace]\nmembers = [\"crates/*\"]\n",
			map[string]string{"crates/a/Cargo.toml": crate("a", ""), "crates/b/Cargo.toml": crate("a", "")}, nil},
		{"a ** pattern", "[workspace]\nmembers = [\"crates/**\"]\n",
			map[string]string{"crates/a/Cargo.toml": crate("a", "")}, nil},
		{"a member out of the project", "[workspace]\nmembers = [\"../other\"]\n", nil, nil},
		{"no workspace", crate("solo", ""), nil, nil},
		{"a root that does not parse", "[workspace\n", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, tt.files, "Cargo.toml", tt.root)
			got, ok := cargoWorkspace(dir)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestCargoManifestsNestedDeep: a Cargo.toml is the repository's to write,
// and a stop reads it in the hook's own process, where no timeout can
// stop a parser. BurntSushi/toml, the parser before, took 24 s on 40 KB
// of nested inline tables and 4 s on 20 KB of dotted keys, growing with
// the square of the nesting: a manifest of the 1 MiB read would have held
// a stop for hours. Each case here, at 1 MiB, is read (or refused) at
// once; the guard only turns a hang into a failure.
func TestCargoManifestsNestedDeep(t *testing.T) {
	const n = 1 << 20
	member := "[package]\nname = \"a\"\nversion = \"0.1.0\"\n[dependencies]\n"
	workspace := "[workspace]\nmembers = [\"crates/*\"]\n"
	for _, tt := range []struct{ name, root, member string }{
		{"a member's inline tables", workspace, member + "b = " + strings.Repeat("{c=", n/4) + "1" + strings.Repeat("}", n/4) + "\n"},
		{"a member's arrays", workspace, member + "b = " + strings.Repeat("[", n/2) + strings.Repeat("]", n/2) + "\n"},
		{"a member's dotted keys", workspace, member + strings.Repeat("b.", n/2) + "c = 1\n"},
		{"the root's table header", "[" + strings.Repeat("w.", n/2) + "x]\n" + workspace, member},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{"crates/a/Cargo.toml": tt.member[:min(len(tt.member), n)]}, "Cargo.toml", tt.root[:min(len(tt.root), n)])
			done := make(chan struct{})
			go func() {
				defer close(done)
				cargoWorkspace(dir)
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("reading the manifests did not end within a minute")
			}
		})
	}
}

// pnpm-workspace.yaml's packages list in the forms pnpm's docs write it;
// anything else is not read, and the command runs whole.
func TestPnpmPatterns(t *testing.T) {
	for _, tt := range []struct {
		name, yaml string
		want       []string // nil: not read
	}{
		{"a block list", "packages:\n  - 'apps/*'\n  - \"libs/*\"\n  - tools/x # the tools\n", []string{"apps/*", "libs/*", "tools/x"}},
		{"a flow list", "packages: [\"apps/*\", 'libs/*', tools]\n", []string{"apps/*", "libs/*", "tools"}},
		{"other keys around it, CRLF, comments", "# workspace\r\ncatalog:\r\n  react: ^19\r\npackages:\r\n\r\n  - apps/*\r\n\r\nonlyBuiltDependencies:\r\n  - esbuild\r\n", []string{"apps/*"}},
		{"a list item at the key's indentation", "packages:\n- apps/*\n- libs/*\n", []string{"apps/*", "libs/*"}},
		{"items at two indentations", "packages:\n  - apps/*\n    - libs/*\n", nil},
		{"an alias", "packages: *all\n", nil},
		{"an anchor in an item", "packages:\n  - &p apps/*\n", nil},
		{"a flow list over lines", "packages: [\n  apps/*\n]\n", nil},
		{"an escape in a quoted item", "packages:\n  - \"apps/\\u002a\"\n", nil},
		{"a mapping item", "packages:\n  - path: apps/*\n", nil},
		{"no packages key", "catalog:\n  react: ^19\n", nil},
		{"an empty list", "packages: []\n", nil},
		{"a key of another name that starts alike", "packagesExtra:\n  - apps/*\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "pnpm-workspace.yaml"), []byte(tt.yaml), 0o644))
			got, ok := pnpmPatterns(dir)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// writeTree writes files (path relative to dir: content) into dir, and
// more, pairs of a path and its content.
func writeTree(t *testing.T, dir string, files map[string]string, more ...string) {
	t.Helper()
	for i := 0; i+1 < len(more); i += 2 {
		files = maps.Clone(files)
		if files == nil {
			files = map[string]string{}
		}
		files[more[i]] = more[i+1]
	}
	for name, content := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
}
