package treecache_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/donegate/donegate/internal/treecache"
)

// BenchmarkStateLargeFile fingerprints a git tree holding an untracked
// 1 GiB file (sparse, so cheap to make), first with an empty stat cache,
// then again; the file counts by its metadata and is never read. It runs
// only when asked for, like the other large benchmarks:
// DONEGATE_BENCH_LARGE=1 go test -run '^$' -bench . ./internal/treecache/
func BenchmarkStateLargeFile(b *testing.B) {
	if os.Getenv("DONEGATE_BENCH_LARGE") == "" {
		b.Skip("set DONEGATE_BENCH_LARGE=1 to fingerprint a tree with a 1 GiB file")
	}
	needGit(b)
	treecache.PretendLater(b, time.Hour)
	dir := b.TempDir()
	repo(b, dir, map[string]string{"a.go": "package a\n"})
	sparse(b, filepath.Join(dir, "huge.bin"), 1<<30)
	ctx := context.Background()
	b.Run("first", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			c := treecache.Cache{Dir: b.TempDir()}
			b.StartTimer()
			if _, err := c.State(ctx, dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("again", func(b *testing.B) {
		c := treecache.Cache{Dir: b.TempDir()}
		if _, err := c.State(ctx, dir); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for range b.N {
			if _, err := c.State(ctx, dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkStateSmallFiles fingerprints a git tree with 500 untracked
// files of 32 KiB, which count by their content: read every time without
// a stat cache, by their metadata with one.
func BenchmarkStateSmallFiles(b *testing.B) {
	needGit(b)
	treecache.PretendLater(b, time.Hour)
	dir := b.TempDir()
	repo(b, dir, map[string]string{"a.go": "package a\n"})
	data := make([]byte, 32<<10)
	for i := range 500 {
		rand.Read(data)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d", i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	for _, bb := range []struct {
		name  string
		cache treecache.Cache
	}{{"no stat cache", treecache.Cache{}}, {"stat cache", treecache.Cache{Dir: b.TempDir()}}} {
		b.Run(bb.name, func(b *testing.B) {
			if _, err := bb.cache.State(ctx, dir); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := bb.cache.State(ctx, dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkChangedSinceNothingChanged is what the rule for a session
// whose agent changed nothing costs a stop of such a session, beside its
// git status: no file listed changed, so every tracked one is looked at
// (git ls-files and a stat each), here 10,000 of them in 100 dirs. A large
// benchmark: DONEGATE_BENCH_LARGE=1.
func BenchmarkChangedSinceNothingChanged(b *testing.B) {
	if os.Getenv("DONEGATE_BENCH_LARGE") == "" {
		b.Skip("set DONEGATE_BENCH_LARGE=1 to look at a tree of 10,000 tracked files")
	}
	needGit(b)
	dir := b.TempDir()
	files := map[string]string{}
	for d := range 100 {
		for f := range 100 {
			files[fmt.Sprintf("d%d/f%d.txt", d, f)] = "x\n"
		}
	}
	repo(b, dir, files)
	ctx := context.Background()
	st, err := treecache.ReadStatus(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	since := time.Now()
	b.ResetTimer()
	for range b.N {
		if changed, err := treecache.ChangedSince(ctx, st, since); err != nil || changed {
			b.Fatal(changed, err)
		}
	}
}
