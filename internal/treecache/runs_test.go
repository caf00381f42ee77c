package treecache_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/linktest"
	"github.com/donegate/donegate/internal/treecache"
)

// claimResult is what a Claim made in a goroutine returned.
type claimResult struct {
	entry treecache.Entry
	hit   bool
	claim *treecache.Claim
	err   error
}

func claimAsync(ctx context.Context, c treecache.Cache, slot, key string, early bool) <-chan claimResult {
	ch := make(chan claimResult, 1)
	go func() {
		e, hit, cl, err := c.Claim(ctx, slot, key, early)
		ch <- claimResult{e, hit, cl, err}
	}()
	return ch
}

// pending fails the test unless ch stays empty for a while: the claim
// waits.
func pending(t *testing.T, ch <-chan claimResult) {
	t.Helper()
	select {
	case r := <-ch:
		t.Fatalf("the claim returned while it should wait: %+v", r)
	case <-time.After(3 * treecache.WatchEvery):
	}
}

func receive(t *testing.T, ch <-chan claimResult) claimResult {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the claim is still waiting")
	}
	return claimResult{}
}

func TestClaim(t *testing.T) {
	ctx := context.Background()
	const slot = "slot"

	t.Run("a stop joins the run of its tree and takes its result", func(t *testing.T) {
		c := treecache.Cache{Dir: t.TempDir()}
		_, hit, early, err := c.Claim(ctx, slot, "A", true)
		require.NoError(t, err)
		require.False(t, hit)
		stop := claimAsync(ctx, c, slot, "A", false)
		pending(t, stop)
		require.NoError(t, c.Put("A", treecache.Entry{Complete: true, Feedback: "passed", By: treecache.ByEarly}))
		early.Release()
		r := receive(t, stop)
		require.NoError(t, r.err)
		assert.True(t, r.hit)
		assert.Equal(t, "passed", r.entry.Feedback)
		assert.Equal(t, "the run started after the agent's last edit", r.entry.RunBy())
	})

	t.Run("a joined run that remembers nothing leaves the run to the stop", func(t *testing.T) {
		c := treecache.Cache{Dir: t.TempDir()}
		_, _, early, err := c.Claim(ctx, slot, "A", true)
		require.NoError(t, err)
		stop := claimAsync(ctx, c, slot, "A", false)
		pending(t, stop)
		early.Release() // cut short: no entry
		r := receive(t, stop)
		require.NoError(t, r.err)
		require.NotNil(t, r.claim, "the stop runs it")
		r.claim.Release()
	})

	t.Run("a stop for another tree stops an early run", func(t *testing.T) {
		c := treecache.Cache{Dir: t.TempDir()}
		_, _, early, err := c.Claim(ctx, slot, "A", true)
		require.NoError(t, err)
		watched, cancel := early.Watch(ctx)
		defer cancel()
		stop := claimAsync(ctx, c, slot, "B", false)
		select {
		case <-watched.Done():
			assert.ErrorIs(t, context.Cause(watched), treecache.ErrSuperseded)
		case <-time.After(10 * time.Second):
			t.Fatal("the early run was not told to stop")
		}
		pending(t, stop) // until the early run lets go
		early.Release()
		r := receive(t, stop)
		require.NoError(t, r.err)
		require.NotNil(t, r.claim)
		r.claim.Release()
	})

	t.Run("a newer early start stops an older one", func(t *testing.T) {
		c := treecache.Cache{Dir: t.TempDir()}
		_, _, older, err := c.Claim(ctx, slot, "A", true)
		require.NoError(t, err)
		watched, cancel := older.Watch(ctx)
		defer cancel()
		newer := claimAsync(ctx, c, slot, "B", true)
		<-watched.Done()
		older.Release()
		r := receive(t, newer)
		require.NoError(t, r.err)
		require.NotNil(t, r.claim)
		r.claim.Release()
	})

	t.Run("an early start gives way to a stop's run, and never starts a second run of one tree", func(t *testing.T) {
		c := treecache.Cache{Dir: t.TempDir()}
		_, _, stop, err := c.Claim(ctx, slot, "A", false)
		require.NoError(t, err)
		watched, cancel := stop.Watch(ctx)
		defer cancel()
		_, _, _, err = c.Claim(ctx, slot, "B", true)
		assert.ErrorIs(t, err, treecache.ErrYield)
		_, _, _, err = c.Claim(ctx, slot, "A", true)
		assert.ErrorIs(t, err, treecache.ErrJoined)
		time.Sleep(3 * treecache.WatchEvery)
		assert.NoError(t, watched.Err(), "a stop's run is never stopped")
		stop.Release()
	})

	t.Run("two stops of two trees run one after the other", func(t *testing.T) {
		c := treecache.Cache{Dir: t.TempDir()}
		_, _, first, err := c.Claim(ctx, slot, "A", false)
		require.NoError(t, err)
		second := claimAsync(ctx, c, slot, "B", false)
		pending(t, second)
		first.Release()
		r := receive(t, second)
		require.NotNil(t, r.claim)
		r.claim.Release()
	})

	t.Run("the wait ends with the caller's context", func(t *testing.T) {
		c := treecache.Cache{Dir: t.TempDir()}
		_, _, held, err := c.Claim(ctx, slot, "A", true)
		require.NoError(t, err)
		defer held.Release()
		short, cancel := context.WithTimeout(ctx, 3*treecache.WatchEvery)
		defer cancel()
		_, _, _, err = c.Claim(short, slot, "A", false)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})

	t.Run("a remembered result needs no claim", func(t *testing.T) {
		c := treecache.Cache{Dir: t.TempDir()}
		require.NoError(t, c.Put("A", treecache.Entry{Complete: true, Feedback: "passed"}))
		e, hit, cl, err := c.Claim(ctx, slot, "A", true)
		require.NoError(t, err)
		assert.True(t, hit)
		assert.Nil(t, cl)
		assert.Equal(t, "the run", e.RunBy())
	})

	t.Run("a link planted as the lock is refused, never followed", func(t *testing.T) {
		c := treecache.Cache{Dir: t.TempDir()}
		target := filepath.Join(t.TempDir(), "target")
		require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
		require.NoError(t, os.MkdirAll(filepath.Join(c.Dir, "runs"), 0o700))
		linktest.Symlink(t, target, filepath.Join(c.Dir, "runs", slot+".lock"))
		_, _, cl, err := c.Claim(ctx, slot, "A", false)
		require.Error(t, err)
		assert.Nil(t, cl)
		data, _ := os.ReadFile(target)
		assert.Equal(t, "keep", string(data))
	})

	t.Run("a read-only cache orders nothing", func(t *testing.T) {
		c := treecache.Cache{Dir: t.TempDir(), ReadOnly: true}
		_, _, cl, err := c.Claim(ctx, slot, "A", false)
		require.Error(t, err)
		assert.False(t, errors.Is(err, context.Canceled))
		assert.Nil(t, cl)
	})
}
