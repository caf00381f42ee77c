package checkers

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUVWorkspace: the members of a uv workspace that the detected pytest
// runs one by one, from manifests written as uv's own example workspaces
// are (astral-sh/uv scripts/workspaces: a virtual root, a root that is a
// package, [tool.uv.sources] workspace = true), and each form that runs
// whole.
func TestUVWorkspace(t *testing.T) {
	const (
		virtual = "[tool.uv.workspace]\nmembers = [\"packages/*\"]\n"
		test    = "def test_x(): pass\n"
	)
	member := func(name, deps string) string {
		return "[project]\nname = \"" + name + "\"\nversion = \"0.1.0\"\ndependencies = [" + deps + "]\n\n[tool.uv.sources]\nbird-feeder = { workspace = true }\n"
	}
	for _, tt := range []struct {
		name    string
		files   map[string]string
		want    []wsPackage // nil: run whole
		command string      // of the member bird-feeder; for none, why it runs whole
	}{
		{"a virtual root", map[string]string{
			"pyproject.toml":                           virtual,
			"packages/albatross/pyproject.toml":        member("albatross", `"Bird_Feeder>=1; python_version > '3'", "iniconfig>=2,<3"`),
			"packages/albatross/tests/test_a.py":       test,
			"packages/bird-feeder/pyproject.toml":      member("bird-feeder", `"seeds[extra]"`),
			"packages/bird-feeder/bird_test.py":        test,
			"packages/seeds/pyproject.toml":            member("seeds", ""),
			"packages/seeds/src/seeds/__init__.py":     "",
			"packages/Unrelated.md":                    "x",
			"packages/no-manifest/README.md":           "x",
			"packages/albatross/.venv/lib/test_pip.py": test,
		}, []wsPackage{{Name: "albatross", Dir: "packages/albatross", Deps: []string{"bird-feeder"}}, {Name: "bird-feeder", Dir: "packages/bird-feeder", Deps: []string{"seeds"}}},
			"pytest --rootdir=. -c pyproject.toml packages/bird-feeder"},
		{"the root a package without tests of its own, a dependency group, a config file of pytest's", map[string]string{
			"pyproject.toml":                       "[project]\nname = \"albatross\"\nversion = \"0.1.0\"\n" + virtual + "\n[tool.pytest.ini_options]\naddopts = \"-ra\"\n",
			"src/albatross/__init__.py":            "",
			"pytest.ini":                           "[pytest]\n",
			"packages/bird-feeder/pyproject.toml":  member("bird-feeder", "") + "\n[dependency-groups]\ndev = [\"seeds\", {include-group = \"x\"}]\n",
			"packages/bird-feeder/tests/test_b.py": test,
			"packages/seeds/pyproject.toml":        member("seeds", ""),
			"packages/seeds/test_s.py":             test,
		}, []wsPackage{{Name: "bird-feeder", Dir: "packages/bird-feeder", Deps: []string{"seeds"}}, {Name: "seeds", Dir: "packages/seeds"}},
			"pytest --rootdir=. -c pytest.ini packages/bird-feeder"},
		{"a test in a directory the members glob matches that is no member", map[string]string{
			"pyproject.toml":                       virtual,
			"packages/no-manifest/test_x.py":       test,
			"packages/bird-feeder/pyproject.toml":  member("bird-feeder", ""),
			"packages/bird-feeder/tests/test_b.py": test,
		}, nil, "packages/no-manifest/test_x.py is a test outside every member"},
		{"the root's own tests", map[string]string{
			"pyproject.toml":                       virtual,
			"tests/test_root.py":                   test,
			"packages/bird-feeder/pyproject.toml":  member("bird-feeder", ""),
			"packages/bird-feeder/tests/test_b.py": test,
		}, nil, "tests/test_root.py is a test outside every member"},
		{"testpaths", map[string]string{
			"pyproject.toml":                       virtual + "\n[tool.pytest.ini_options]\ntestpaths = [\"packages/bird-feeder\"]\n",
			"packages/bird-feeder/pyproject.toml":  member("bird-feeder", ""),
			"packages/bird-feeder/tests/test_b.py": test,
		}, nil, "pyproject.toml sets testpaths"},
		{"testpaths as a dotted key", map[string]string{
			"pyproject.toml":                       virtual + "\n[tool]\npytest.ini_options.testpaths = [\"packages/bird-feeder\"]\n",
			"packages/bird-feeder/pyproject.toml":  member("bird-feeder", ""),
			"packages/bird-feeder/tests/test_b.py": test,
		}, nil, "pyproject.toml sets testpaths"},
		{"doctests", map[string]string{
			"pyproject.toml":                       virtual,
			"setup.cfg":                            "[tool:pytest]\naddopts = --doctest-modules\n",
			"packages/bird-feeder/pyproject.toml":  member("bird-feeder", ""),
			"packages/bird-feeder/tests/test_b.py": test,
		}, nil, "setup.cfg sets doctest-modules"},
		{"two members of one name", map[string]string{
			"pyproject.toml":                       virtual,
			"packages/bird-feeder/pyproject.toml":  member("bird-feeder", ""),
			"packages/bird-feeder/tests/test_b.py": test,
			"packages/bird_feeder/pyproject.toml":  member("Bird.Feeder", ""),
		}, nil, "two members are named bird-feeder"},
		{"a member that does not parse", map[string]string{
			"pyproject.toml":                       virtual,
			"packages/bird-feeder/pyproject.toml":  "[project\n",
			"packages/bird-feeder/tests/test_b.py": test,
		}, nil, "packages/bird-feeder/pyproject.toml does not parse, or names no project"},
		{"a member's tests deep in it, one member without tests", map[string]string{
			"pyproject.toml":                                 virtual,
			"packages/bird-feeder/pyproject.toml":            member("bird-feeder", `"seeds"`),
			"packages/bird-feeder/src/bf/deep/x_test.py":     test,
			"packages/seeds/pyproject.toml":                  member("seeds", ""),
			"packages/seeds/src/seeds/__init__.py":           "",
			"packages/seeds/node_modules/x/test_vendored.py": test,
		}, []wsPackage{{Name: "bird-feeder", Dir: "packages/bird-feeder", Deps: []string{"seeds"}}},
			"pytest --rootdir=. -c pyproject.toml packages/bird-feeder"},
		{"no workspace", map[string]string{"pyproject.toml": "[project]\nname = \"x\"\n", "test_x.py": test}, nil, ""},
		{"a member glob out of the tree", map[string]string{"pyproject.toml": "[tool.uv.workspace]\nmembers = [\"../*\"]\n"}, nil, "a form read here would be a guess"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, data := range tt.files {
				p := filepath.Join(dir, filepath.FromSlash(name))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
			}
			pkgs, perPackage, why := uvWorkspace(dir, "pytest")
			if tt.want == nil {
				assert.Nil(t, pkgs)
				if tt.command == "" {
					assert.Empty(t, why)
				} else {
					assert.Contains(t, why, tt.command)
				}
				return
			}
			require.Empty(t, why)
			assert.Equal(t, tt.want, pkgs)
			assert.Equal(t, tt.command, perPackage("bird-feeder"))
		})
	}
}

// TestPytestConfigAbove: a config pytest finds above the project dir is
// one the split cannot pin.
func TestPytestConfigAbove(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "project")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(top, "tox.ini"), []byte("[tox]\n"), 0o644))
	name, why := pytestConfig(dir)
	assert.Equal(t, "pyproject.toml", name, "a tox.ini without [pytest] is no config")
	assert.Empty(t, why)
	require.NoError(t, os.WriteFile(filepath.Join(top, "tox.ini"), []byte("[pytest]\n"), 0o644))
	name, why = pytestConfig(dir)
	assert.Empty(t, name)
	assert.Contains(t, why, "above the project")
}

// TestPyImported: the modules an import statement or a literal module
// name reaches.
func TestPyImported(t *testing.T) {
	src := `import os, b.sub as s, (c)
from d.e import f
from . import g
from ..h import i
    import j  # indented, in a function
mod = importlib.import_module("k.l")
m = __import__('m')
with mock.patch("n.o.p"):
    pass
"import q" in a string
`
	assert.Equal(t, []string{"os", "b", "c", "d", "j", "k", "m", "n"}, pyImported([]byte(src)))
	assert.Equal(t, "bird-feeder", pyName("Bird__Feeder"))
	assert.Equal(t, "a-b-c", pyName("A.b-_C"))
}

// BenchmarkUVWorkspace: reading a uv workspace of 20 members and 21,000
// files, as each stop of it does: the members' manifests, and a look for
// test files that stops at each member's first and walks only the rest
// of the tree whole (27 ms before, when every file was looked at).
func BenchmarkUVWorkspace(b *testing.B) {
	dir := b.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(b, os.WriteFile(p, []byte(data), 0o644))
	}
	write("pyproject.toml", "[tool.uv.workspace]\nmembers = [\"packages/*\"]\n")
	for m := range 20 {
		d := fmt.Sprintf("packages/m%d/", m)
		write(d+"pyproject.toml", fmt.Sprintf("[project]\nname = \"m%d\"\n", m))
		for f := range 50 {
			for g := range 20 {
				write(fmt.Sprintf("%ssrc/m%d/sub%d/f%d.py", d, m, f, g), "")
			}
			write(fmt.Sprintf("%stests/test_%d.py", d, f), "")
		}
	}
	for b.Loop() {
		if pkgs, _, why := uvWorkspace(dir, "pytest"); why != "" || len(pkgs) != 20 {
			b.Fatal("not read")
		}
	}
}
