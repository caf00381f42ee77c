package gate

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// started reports whether b's timer runs.
func started(ctx context.Context) bool {
	b := ctx.(*budgetContext)
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ctx != nil
}

// TestBudgetContextIsWithTimeoutsTwin: the budget ends as
// context.WithTimeout's context does, in every order of waiting,
// cancelling and running out; its timer starts only when something
// waits for its end.
func TestBudgetContextIsWithTimeoutsTwin(t *testing.T) {
	closed := func(t *testing.T, ch <-chan struct{}) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("Done never closed")
		}
	}
	t.Run("runs out, waited for", func(t *testing.T) {
		ctx, cancel := withBudget(context.Background(), 50*time.Millisecond)
		defer cancel()
		require.NoError(t, ctx.Err())
		assert.False(t, started(ctx), "no timer before a wait")
		d, ok := ctx.Deadline()
		assert.True(t, ok)
		assert.WithinDuration(t, time.Now().Add(50*time.Millisecond), d, 40*time.Millisecond)
		closed(t, ctx.Done())
		assert.True(t, started(ctx))
		assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	})
	t.Run("runs out, never waited for", func(t *testing.T) {
		ctx, cancel := withBudget(context.Background(), time.Millisecond)
		defer cancel()
		time.Sleep(5 * time.Millisecond)
		assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
		assert.False(t, started(ctx))
		closed(t, ctx.Done())
		assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	})
	t.Run("cancelled before a wait", func(t *testing.T) {
		ctx, cancel := withBudget(context.Background(), time.Hour)
		cancel()
		assert.ErrorIs(t, ctx.Err(), context.Canceled)
		closed(t, ctx.Done())
		assert.ErrorIs(t, ctx.Err(), context.Canceled)
		cancel() // twice, as a CancelFunc may be
	})
	t.Run("cancelled while waited for", func(t *testing.T) {
		ctx, cancel := withBudget(context.Background(), time.Hour)
		done := ctx.Done()
		cancel()
		closed(t, done)
		assert.ErrorIs(t, ctx.Err(), context.Canceled)
	})
	t.Run("the parent ends first", func(t *testing.T) {
		parent, stop := context.WithCancel(context.Background())
		ctx, cancel := withBudget(parent, time.Hour)
		defer cancel()
		stop()
		assert.ErrorIs(t, ctx.Err(), context.Canceled)
		closed(t, ctx.Done())
	})
	t.Run("the parent's earlier deadline", func(t *testing.T) {
		parent, stop := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer stop()
		want, _ := parent.Deadline()
		ctx, cancel := withBudget(parent, time.Hour)
		defer cancel()
		got, _ := ctx.Deadline()
		assert.Equal(t, want, got)
		closed(t, ctx.Done())
		assert.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	})
	t.Run("a derived context ends with it", func(t *testing.T) {
		ctx, cancel := withBudget(context.WithValue(context.Background(), budgetKey{}, "v"), 30*time.Millisecond)
		defer cancel()
		child, stop := context.WithCancel(ctx)
		defer stop()
		assert.True(t, started(ctx), "a derived context waits for it")
		assert.Equal(t, "v", child.Value(budgetKey{}))
		closed(t, child.Done())
		assert.ErrorIs(t, child.Err(), context.DeadlineExceeded)
	})
	t.Run("waited for, checked and cancelled at once", func(t *testing.T) {
		ctx, cancel := withBudget(context.Background(), 20*time.Millisecond)
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if i%2 == 0 {
					<-ctx.Done()
				}
				for ctx.Err() == nil {
					time.Sleep(time.Millisecond)
				}
			}()
		}
		time.Sleep(5 * time.Millisecond)
		cancel()
		wg.Wait()
		assert.Error(t, ctx.Err())
	})
}

type budgetKey struct{}
