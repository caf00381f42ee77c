package checkers_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
)

// BenchmarkWorkspaceStopThroughItsGraph is BenchmarkWorkspaceStop with
// the real Turborepo and Nx ($DONEGATE_TURBO, $DONEGATE_NX: make bench
// installs them): 20 packages whose test takes 1 s each
// (DONEGATE_BENCH_LARGE=1; 100 ms otherwise), one at a time (turbo
// --concurrency=1, nx --parallel=1), so the whole suite is the sum. After
// one whole run filled the tool's cache, the first stop of a session whose
// agent changed one leaf package, as a share of the whole suite's time.
func BenchmarkWorkspaceStopThroughItsGraph(b *testing.B) {
	if _, err := exec.LookPath("npm"); err != nil {
		b.Skip("needs npm")
	}
	each := 100 * time.Millisecond
	if os.Getenv("DONEGATE_BENCH_LARGE") != "" {
		each = time.Second
	}
	const n = 20
	for _, tool := range []struct{ name, env, script, config, file string }{
		{"turbo", "DONEGATE_TURBO", "turbo run test --concurrency=1", `{"tasks":{"test":{"outputs":[]}}}`, "turbo.json"},
		{"nx", "DONEGATE_NX", "nx run-many -t test --parallel=1", `{"targetDefaults":{"test":{"cache":true}}}`, "nx.json"},
	} {
		b.Run(tool.name, func(b *testing.B) {
			bin := os.Getenv(tool.env)
			if bin == "" {
				b.Skipf("set %s (make bench installs it)", tool.env)
			}
			files := map[string]string{
				"package.json": fmt.Sprintf(`{"name":"mono","private":true,"packageManager":"npm@10.0.0","workspaces":["packages/*"],"scripts":{"test":%q}}`, tool.script),
				tool.file:      tool.config,
				".gitignore":   "node_modules/\n.turbo/\n.nx/\n",
			}
			for i := range n {
				files[fmt.Sprintf("packages/p%d/package.json", i)] = fmt.Sprintf(`{"name":"p%d","version":"1.0.0","scripts":{"test":"sleep %.3f"}}`, i, each.Seconds())
				files[fmt.Sprintf("packages/p%d/index.js", i)] = "module.exports = 1\n"
			}
			dir := gitRepo(b, files)
			env := append(os.Environ(), "TURBO_TELEMETRY_DISABLED=1", "TURBO_NO_UPDATE_NOTIFIER=1", "DO_NOT_TRACK=1", "NX_DAEMON=false", "NX_NO_CLOUD=true", "NX_TUI=false")
			tools := b.TempDir()
			if err := os.Symlink(bin, filepath.Join(tools, tool.name)); err != nil {
				b.Fatal(err)
			}
			b.Setenv("PATH", tools+string(os.PathListSeparator)+os.Getenv("PATH"))
			for _, k := range []string{"TURBO_TELEMETRY_DISABLED", "TURBO_NO_UPDATE_NOTIFIER", "DO_NOT_TRACK"} {
				b.Setenv(k, "1")
			}
			b.Setenv("NX_DAEMON", "false")
			b.Setenv("NX_NO_CLOUD", "true")
			b.Setenv("NX_TUI", "false")
			install := exec.Command("npm", "install", "--offline", "--no-audit", "--no-fund")
			install.Dir, install.Env = dir, env
			if out, err := install.CombinedOutput(); err != nil {
				b.Fatalf("npm install: %v\n%s", err, out)
			}
			if tool.name == "nx" {
				if err := os.Symlink(filepath.Dir(filepath.Dir(filepath.Dir(bin))), filepath.Join(dir, "node_modules", "nx")); err != nil {
					b.Fatal(err)
				}
			}
			gitIn(b, dir, "add", "-A")
			gitIn(b, dir, "commit", "-q", "-m", "installed")
			head := gitIn(b, dir, "rev-parse", "HEAD")
			check := func(b *testing.B, since *checkers.SessionStart) time.Duration {
				c := &checkers.Context{Event: &hookio.Event{SessionID: "s"}, ProjectDir: dir, CacheDir: b.TempDir(), Budget: time.Hour, Since: since}
				began := time.Now()
				r, err := checkers.Test{Cache: true}.Check(context.Background(), c)
				if err != nil || !r.Complete {
					b.Fatalf("got %+v, %v", r, err)
				}
				return time.Since(began)
			}
			whole := check(b, nil) // fills the tool's cache, and is the whole suite
			b.ResetTimer()
			var took time.Duration
			for i := range b.N {
				start := time.Now()
				time.Sleep(20 * time.Millisecond)
				if err := os.WriteFile(filepath.Join(dir, "packages", "p19", "index.js"), fmt.Appendf(nil, "module.exports = %d\n", i+2), 0o644); err != nil {
					b.Fatal(err)
				}
				took += check(b, &checkers.SessionStart{At: start, Head: strings.TrimSpace(head)})
			}
			b.ReportMetric(float64(whole.Milliseconds()), "ms-suite")
			b.ReportMetric(100*float64(took)/float64(b.N)/float64(whole), "%suite")
		})
	}
}
