package gate

import (
	"context"
	"sync"
	"time"
)

// budgetContext is context.WithTimeout(parent, budget) whose timer starts
// when something first waits for its end (Done, or a context derived from
// it): most stops run no command (the plan, the files are read and
// answered) and never wait. In a hook's process a timer is what starts
// the runtime's network poller — an epoll instance, an eventfd and a
// thread parked in it, for nothing else there polls (package regular's
// files are not polled) — which cost a blocking stop about 0.03 ms.
// Before its timer starts it answers Err from the clock, as the started
// one would.
type budgetContext struct {
	parent   context.Context
	deadline time.Time

	mu       sync.Mutex
	ctx      context.Context // the started one; nil before
	cancel   context.CancelFunc
	canceled bool
}

// withBudget returns a context that ends at now+budget, or with parent,
// or when the returned function is called, as context.WithTimeout's.
func withBudget(parent context.Context, budget time.Duration) (context.Context, context.CancelFunc) {
	c := &budgetContext{parent: parent, deadline: time.Now().Add(budget)}
	if d, ok := parent.Deadline(); ok && d.Before(c.deadline) {
		c.deadline = d
	}
	return c, c.stop
}

// started is the context the budget runs on, started now if it was not.
func (c *budgetContext) started() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx == nil {
		c.ctx, c.cancel = context.WithDeadline(c.parent, c.deadline)
		if c.canceled {
			c.cancel()
		}
	}
	return c.ctx
}

func (c *budgetContext) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.canceled = true
	if c.cancel != nil {
		c.cancel()
	}
}

func (c *budgetContext) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *budgetContext) Done() <-chan struct{} { return c.started().Done() }

func (c *budgetContext) Err() error {
	c.mu.Lock()
	ctx, canceled := c.ctx, c.canceled
	c.mu.Unlock()
	switch {
	case ctx != nil:
		return ctx.Err()
	case canceled:
		return context.Canceled
	}
	if err := c.parent.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// Value is the started context's, which derived contexts find their
// parent by (context.WithCancel attaches to its cancelation directly).
func (c *budgetContext) Value(key any) any {
	c.mu.Lock()
	ctx := c.ctx
	c.mu.Unlock()
	if ctx != nil {
		return ctx.Value(key)
	}
	return c.parent.Value(key)
}
