package checkers

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGraphCommand: which root test scripts are asked through their build
// graph, and how.
func TestGraphCommand(t *testing.T) {
	const base = "0123456789abcdef0123456789abcdef01234567"
	tests := []struct {
		name, script, graphFile, base string
		want, tool                    string // "" runs the script as written
	}{
		{"turbo run test", "turbo run test", "turbo.json", base, "npm test -- '--filter=...[" + base + "]'", "Turborepo"},
		{"turbo test, with flags", "turbo test --concurrency=2", "turbo.json", base, "npm test -- '--filter=...[" + base + "]'", "Turborepo"},
		{"turbo without turbo.json", "turbo run test", "", base, "", ""},
		{"turbo that filters", "turbo run test --filter=web", "turbo.json", base, "", ""},
		{"turbo --affected", "turbo run test --affected", "turbo.json", base, "", ""},
		{"turbo of another task", "turbo run lint", "turbo.json", base, "", ""},
		{"nx run-many -t test", "nx run-many -t test", "nx.json", base, "npm exec --no -- nx affected -t test --base=" + base, "Nx"},
		{"nx run-many --target=test --all --parallel=3", "nx run-many --target=test --all --parallel=3", "nx.json", base,
			"npm exec --no -- nx affected --target=test --parallel=3 --base=" + base, "Nx"},
		{"nx of some projects", "nx run-many -t test -p web", "nx.json", base, "", ""},
		{"nx of another target", "nx run-many -t lint", "nx.json", base, "", ""},
		{"nx without nx.json", "nx run-many -t test", "", base, "", ""},
		{"a quote in the script", "turbo run test '--x'", "turbo.json", base, "", ""},
		{"a chain", "turbo run test && echo done", "turbo.json", base, "", ""},
		{"no start commit", "turbo run test", "turbo.json", "", "", ""},
		{"a branch with no commit at the start", "turbo run test", "turbo.json", "-", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts":{"test":"`+tt.script+`"}}`), 0o644))
			if tt.graphFile != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, tt.graphFile), []byte("{}"), 0o644))
			}
			got, tool, ok := graphCommand(dir, tt.base)
			assert.Equal(t, tt.want != "", ok)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.tool, tool)
		})
	}
}

// TestReadsOutside: the member patterns and path dependencies that leave
// the work tree (here the project dir, in no repository) are told.
func TestReadsOutside(t *testing.T) {
	tests := []struct {
		name, from, file, body string
		outside                bool
	}{
		{"npm workspaces inside", "package.json", "package.json", `{"workspaces":["packages/*"]}`, false},
		{"npm workspaces outside", "package.json", "package.json", `{"workspaces":["packages/*","../ext/*"]}`, true},
		{"the object form outside", "package.json", "package.json", `{"workspaces":{"packages":["../ext/*"]}}`, true},
		{"pnpm outside", "package.json", "pnpm-workspace.yaml", "packages:\n  - ../shared/*\n", true},
		{"a Cargo member outside", "Cargo.toml", "Cargo.toml", "[workspace]\nmembers = [\"../x\"]\n", true},
		{"a Cargo path dependency outside", "Cargo.toml", "Cargo.toml", "[package]\nname = \"a\"\n[dependencies]\nb = { path = \"../../b\" }\n", true},
		{"a Cargo path dependency inside", "Cargo.toml", "Cargo.toml", "[package]\nname = \"a\"\n[dependencies]\nb = { path = \"crates/b\" }\n", false},
		{"an absolute path", "Cargo.toml", "Cargo.toml", "[workspace]\nmembers = [\"/opt/x\"]\n", true},
		{"a uv member outside", "pyproject.toml", "pyproject.toml", "[tool.uv.workspace]\nmembers = [\"../libs/*\"]\n", true},
		{"a uv path source outside", "pyproject.toml", "pyproject.toml", "[project]\nname = \"a\"\n[tool.uv.sources]\nb = { path = \"../b\", editable = true }\nc = { workspace = true }\n", true},
		{"uv sources inside", "pyproject.toml", "pyproject.toml", "[tool.uv.workspace]\nmembers = [\"packages/*\"]\n[tool.uv.sources]\nb = { path = \"packages/b\" }\nc = { git = \"https://example.com/c\" }\n", false},
		{"a command the config names", "", "package.json", `{"workspaces":["../ext/*"]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.file != "package.json" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{}`), 0o644))
			}
			require.NoError(t, os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.body), 0o644))
			why := commandCheck{kind: "test", from: tt.from}.readsOutside(dir)
			assert.Equal(t, tt.outside, why != "", why)
		})
	}
}
