package checkers_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
)

// BenchmarkWorkspaceStop measures a stop's test check in a workspace of
// 20 packages whose tests take a while each (1 s with
// DONEGATE_BENCH_LARGE=1, as make bench sets: a 20 s suite; 50 ms
// otherwise), run by a fake npm or pnpm: the whole suite, and the first
// stop of a session whose agent changed one leaf package, or the package
// 10 others depend on. The metrics: packages run, and the stop's time as
// a share of the whole suite's (targets in docs/performance.md: at most
// 15% for the leaf, the 11 packages for the hub).
func BenchmarkWorkspaceStop(b *testing.B) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		b.Skip("needs sh")
	}
	each := 50 * time.Millisecond
	if os.Getenv("DONEGATE_BENCH_LARGE") != "" {
		each = time.Second
	}
	const n = 20
	for _, manager := range []string{"npm", "pnpm"} {
		files := map[string]string{}
		switch manager {
		case "npm":
			files["package.json"] = `{"private":true,"workspaces":["packages/*"],"scripts":{"test":"npm test --workspaces --if-present"}}`
		case "pnpm":
			files["package.json"] = `{"private":true,"scripts":{"test":"pnpm -r test"}}`
			files["pnpm-workspace.yaml"] = "packages:\n  - packages/*\n"
		}
		for i := range n {
			deps := ""
			if i >= 1 && i <= 10 {
				deps = `"p0": "*"` // p0 is the hub
			}
			files[fmt.Sprintf("packages/p%d/package.json", i)] = fmt.Sprintf(`{"name":"p%d","dependencies":{%s},"scripts":{"test":"x"}}`, i, deps)
			for f := range 10 {
				files[fmt.Sprintf("packages/p%d/src/m%d.js", i, f)] = fmt.Sprintf("const x = require('./m%d')\nmodule.exports = %q\n", (f+1)%10, strings.Repeat("x", 2000))
			}
		}
		dir := gitRepo(b, files)
		bin := b.TempDir()
		ms := each.Milliseconds()
		// One package's test sleeps `each`; the whole run, every one's.
		fake := fmt.Sprintf("#!/bin/sh\ncase \"$*\" in *--workspace=*|*--filter=*) sleep %d.%03d;; *) sleep %d.%03d;; esac\n", ms/1000, ms%1000, ms*n/1000, ms*n%1000)
		for _, name := range []string{"npm", "pnpm"} {
			if err := os.WriteFile(filepath.Join(bin, name), []byte(fake), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		b.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
		stop := func(b *testing.B, change string, scope string) (time.Duration, string) {
			start := time.Now()
			time.Sleep(20 * time.Millisecond) // past the file system clock's tick
			if err := os.WriteFile(filepath.Join(dir, "packages", change, "src", "m0.js"), []byte(time.Now().String()), 0o644); err != nil {
				b.Fatal(err)
			}
			c := &checkers.Context{Event: &hookio.Event{SessionID: "s"}, ProjectDir: dir, CacheDir: b.TempDir(), Budget: time.Hour,
				Since: &checkers.SessionStart{At: start, Head: gitIn(b, dir, "rev-parse", "HEAD")}}
			began := time.Now()
			r, err := checkers.Test{Cache: true, ScopeAll: scope == "all"}.Check(context.Background(), c)
			if err != nil || !r.Complete {
				b.Fatalf("got %+v, %v", r, err)
			}
			return time.Since(began), r.Feedback
		}
		var whole time.Duration
		b.Run(manager+"/whole suite", func(b *testing.B) {
			var sum time.Duration
			for range b.N {
				d, _ := stop(b, "p19", "all")
				sum += d
			}
			whole = sum / time.Duration(b.N)
			b.ReportMetric(n, "packages")
		})
		for _, change := range []struct{ what, pkg string }{{"leaf", "p19"}, {"hub", "p0"}} {
			b.Run(manager+"/first stop, "+change.what+" changed", func(b *testing.B) {
				var took time.Duration
				var feedback string
				for range b.N {
					d, f := stop(b, change.pkg, "")
					took, feedback = took+d, f
				}
				took /= time.Duration(b.N)
				ran := 0
				if _, list, ok := strings.Cut(feedback, ": ran "); ok {
					list, _, _ = strings.Cut(list, ";")
					ran = len(strings.Split(strings.TrimSuffix(list, "."), ", "))
				}
				b.ReportMetric(float64(ran), "packages")
				if whole > 0 {
					b.ReportMetric(100*float64(took)/float64(whole), "%suite")
				}
			})
		}
	}
}
