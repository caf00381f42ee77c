package checkers

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNpmWorkspace(t *testing.T) {
	pkg := func(name, deps string) string {
		return `{"name": "` + name + `", "dependencies": {` + deps + `}, "scripts": {"test": "x"}}`
	}
	tests := []struct {
		name  string
		root  string
		files map[string]string
		want  []wsPackage // nil: run the command whole
	}{
		{"packages/* with --workspaces", `{"workspaces": ["packages/*"], "scripts": {"test": "npm test --workspaces --if-present"}}`,
			map[string]string{"packages/a/package.json": pkg("a", `"b": "*", "left-pad": "1"`), "packages/b/package.json": pkg("b", ""), "packages/readme.md": "x"},
			[]wsPackage{{Name: "a", Dir: "packages/a", Deps: []string{"b"}}, {Name: "b", Dir: "packages/b"}}},
		{"the object form, -ws", `{"workspaces": {"packages": ["libs/*"]}, "scripts": {"test": "npm run test -ws"}}`,
			map[string]string{"libs/x/package.json": pkg("@s/x", "")},
			[]wsPackage{{Name: "@s/x", Dir: "libs/x"}}},
		{"a root test script of its own", `{"workspaces": ["packages/*"], "scripts": {"test": "jest"}}`,
			map[string]string{"packages/a/package.json": pkg("a", "")}, nil},
		{"a ** pattern", `{"workspaces": ["packages/**"], "scripts": {"test": "npm test -ws"}}`,
			map[string]string{"packages/a/package.json": pkg("a", "")}, nil},
		{"a pattern out of the project", `{"workspaces": ["../other/*"], "scripts": {"test": "npm test -ws"}}`, nil, nil},
		{"two packages of one name", `{"workspaces": ["p/*"], "scripts": {"test": "npm test -ws"}}`,
			map[string]string{"p/a/package.json": pkg("a", ""), "p/b/package.json": pkg("a", "")}, nil},
		{"no workspaces", `{"scripts": {"test": "npm test -ws"}}`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(tt.root), 0o644))
			for name, content := range tt.files {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			got, ok := npmWorkspace(dir)
			assert.Equal(t, tt.want != nil, ok)
			assert.Equal(t, tt.want, got)
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
