package treecache

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSkipped(t *testing.T) {
	top := t.TempDir()
	for _, f := range []string{"Cargo.toml", "rust/Cargo.toml", ".venv/pyvenv.cfg", "vendor/composer/installed.json", "envs/x.txt"} {
		require.NoError(t, os.MkdirAll(filepath.Join(top, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(top, f), nil, 0o644))
	}
	tests := []struct {
		path string
		want bool
	}{
		{"__pycache__/a.cpython-312.pyc", true},
		{"pkg/__pycache__/a.txt", true},
		{"pkg/mod.pyc", true},
		{".pytest_cache/v/cache/lastfailed", true},
		{".coverage", true},
		{".coverage.host.123", true},
		{"web/tsconfig.tsbuildinfo", true},
		{"target/debug/app", true},        // beside Cargo.toml
		{"rust/target/release/app", true}, // beside rust/Cargo.toml
		{"docs/target/index.md", false},   // no build manifest beside it
		{"node_modules/left-pad/index.js", true},
		{"pkg/node_modules/x/index.js", true},
		{".venv/lib/python3.12/site-packages/x.py", true},
		{"vendor/monolog/src/Logger.php", true},
		{"gomod/vendor/github.com/x/y.go", false}, // Go's vendor is source
		{"envs/x.txt", false},                     // named like a venv, no pyvenv.cfg
		{"src/main.py", false},
		{"target", false}, // a file named target
		{"coverage.go", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, skipped(top, tt.path), tt.path)
	}
}

// Nothing a repository holds makes the installed state hang or read
// elsewhere: a FIFO where a scope or site-packages dir would be, links.
func TestInstalledRefusesFIFOsAndLinks(t *testing.T) {
	dir := t.TempDir()
	nm := filepath.Join(dir, "node_modules")
	require.NoError(t, os.MkdirAll(filepath.Join(nm, "left-pad"), 0o755))
	fifotest.Make(t, filepath.Join(nm, "@scope"))
	venv := filepath.Join(dir, ".venv")
	require.NoError(t, os.MkdirAll(filepath.Join(venv, "lib", "python3.12"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(venv, "pyvenv.cfg"), []byte("home = /usr\n"), 0o644))
	fifotest.Make(t, filepath.Join(venv, "lib", "python3.12", "site-packages"))
	linktest.Symlink(t, "/", filepath.Join(dir, "venv"))
	f := &fingerprinter{start: now(), buf: make([]byte, readChunk)}
	done := make(chan string, 1)
	go func() {
		s, err := f.installed(context.Background(), dir)
		require.NoError(t, err)
		done <- s
	}()
	select {
	case s := <-done:
		assert.Contains(t, s, "left-pad")
		assert.Contains(t, s, "@scope")
	case <-time.After(10 * time.Second):
		t.Fatal("installed blocked on a FIFO")
	}
}

// Each package manager's record of an install counts, so an install that
// changes only files git ignores runs the checks again: Yarn
// Plug'n'Play's .yarn/install-state.gz (its .pnp.cjs is often ignored),
// Composer's installed.json, npm's, pnpm's and Yarn's node_modules files.
func TestInstalledRecords(t *testing.T) {
	for _, record := range []string{".yarn/install-state.gz", "vendor/composer/installed.json", "node_modules/.package-lock.json", "node_modules/.modules.yaml", "node_modules/.yarn-state.yml"} {
		t.Run(record, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, record)), 0o755))
			state := func() string {
				f := &fingerprinter{start: now(), buf: make([]byte, readChunk)}
				s, err := f.installed(context.Background(), dir)
				require.NoError(t, err)
				return s
			}
			none := state()
			require.NoError(t, os.WriteFile(filepath.Join(dir, record), []byte("one install"), 0o644))
			one := state()
			require.NoError(t, os.WriteFile(filepath.Join(dir, record), []byte("another install"), 0o644))
			assert.NotEqual(t, none, one)
			assert.NotEqual(t, one, state())
		})
	}
}
