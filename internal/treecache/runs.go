package treecache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/donegate/donegate/internal/filelock"
	"github.com/donegate/donegate/internal/regular"
)

// A check may be started before the stop (stop-hook --start, run by the
// host in the background after the agent's edits), and the stop must then
// join that run rather than start a second one for the same tree. The
// runs of one check (a slot: its type, command and project) are ordered
// among the hook processes by two files in the cache's runs/ dir:
//
//   - slot.lock, held (flock) by the one process that runs the check;
//   - slot.want, the key (the tree's state) most recently asked for, and
//     whether by an early run.
//
// A process that finds the lock held waits for it when the holder runs
// the key it wants (it joins the run: the entry is there when the lock is
// free); an early one has nothing to add and returns (ErrJoined). When
// the holder runs another key, a stop or a newer early start says so in
// slot.want and waits: a holder that started early sees it and stops its
// run (its tree is gone), which kills the command's process tree. An
// early run never stops a stop's run, and an early waiter gives way to
// anyone who wants another tree after it (ErrYield): the newest tree
// wins. So one run at a time per check, never two for one tree, and a
// superseded run is gone within WatchEvery. A holder that dies leaves the
// lock free (the kernel drops it); a want left behind by one is only read
// while the lock is held.

// ErrYield is returned by Claim to an early run when a stop, or a newer
// start, runs or waits to run the check for another state of the tree.
var ErrYield = errors.New("a stop or a newer start runs this check for another state of the tree")

// ErrJoined is returned by Claim to an early run when another early run
// already runs the check for the same state.
var ErrJoined = errors.New("an earlier start runs this check for the same state of the tree")

// WatchEvery is how often an early run looks whether it was superseded,
// and how long a waiter sleeps at most between looks at the lock.
var WatchEvery = 100 * time.Millisecond

// want is the content of slot.want.
type want struct {
	Key   string `json:"key"`
	Early bool   `json:"early,omitempty"`
}

// Claim is the right to run a check for one key, held until Release.
type Claim struct {
	lock     *os.File
	wantPath string
	key      string
	early    bool
}

// Claim returns the entry remembered for key once no other process runs
// the check of slot for it, or, when none is remembered, the right to run
// it (the caller then Puts the result and Releases the claim). early says
// the caller starts before the stop: it gets ErrYield or ErrJoined instead
// of waiting. An error from ctx ends the wait; any other error means the
// runs could not be ordered, and the caller runs the check on its own.
func (c Cache) Claim(ctx context.Context, slot, key string, early bool) (Entry, bool, *Claim, error) {
	if c.ReadOnly {
		return Entry{}, false, nil, errors.New("result cache: read-only")
	}
	dir := filepath.Join(c.Dir, "runs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Entry{}, false, nil, fmt.Errorf("result cache: %w", err)
	}
	// O_NOFOLLOW: a link planted in the cache dir is refused, never
	// followed; regular: a FIFO there cannot block the open.
	f, err := regular.OpenFile(filepath.Join(dir, slot+".lock"), os.O_CREATE|os.O_RDWR|regular.NoFollow, 0o600)
	if err != nil {
		return Entry{}, false, nil, fmt.Errorf("result cache: %w", err)
	}
	cl := &Claim{lock: f, wantPath: filepath.Join(dir, slot+".want"), key: key, early: early}
	announced := false
	for delay := time.Millisecond; ; delay = min(2*delay, WatchEvery) {
		if e, ok := c.Get(key); ok {
			f.Close()
			return e, true, nil, nil
		}
		locked, err := filelock.TryLock(f)
		switch {
		case err != nil:
			f.Close()
			return Entry{}, false, nil, fmt.Errorf("result cache: lock %s: %w", f.Name(), err)
		case locked:
			// The holder before may have put it just now.
			if e, ok := c.Get(key); ok {
				f.Close()
				return e, true, nil, nil
			}
			if err := cl.announce(); err != nil {
				f.Close()
				return Entry{}, false, nil, err
			}
			return Entry{}, false, cl, nil
		}
		w := cl.wanted()
		switch {
		case w.Key == key && early && !announced:
			f.Close()
			return Entry{}, false, nil, ErrJoined
		case w.Key == key:
			// Join the run (the entry is there when the lock is free), or
			// wait for the one it stops.
		case early && (announced || !w.Early):
			// A stop wants another tree, or a newer start does: the run
			// would be for a tree that is gone.
			f.Close()
			return Entry{}, false, nil, ErrYield
		case !early && !w.Early && w.Key != "":
			// Another stop waits for another tree, or runs it: runs of a
			// stop are never stopped, so wait for the lock.
		default:
			// The holder started early for another tree: it stops its run.
			if err := cl.announce(); err != nil {
				f.Close()
				return Entry{}, false, nil, err
			}
			announced = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return Entry{}, false, nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// announce writes the claim's key as the one wanted.
func (cl *Claim) announce() error {
	data, _ := json.Marshal(want{Key: cl.key, Early: cl.early})
	if err := writeAtomic(filepath.Dir(cl.wantPath), filepath.Base(cl.wantPath), data); err != nil {
		return fmt.Errorf("result cache: %w", err)
	}
	return nil
}

// wanted reads slot.want; a missing or damaged one wants nothing.
func (cl *Claim) wanted() want {
	var w want
	f, err := regular.OpenFile(cl.wantPath, os.O_RDONLY|regular.NoFollow, 0)
	if err != nil {
		return w
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err == nil {
		_ = json.Unmarshal(data, &w)
	}
	return w
}

// Watch returns ctx, ended as well when a stop wants the check for
// another key than the claim's (an early claim only: a stop's run is
// never stopped). Its cancel func must be called.
func (cl *Claim) Watch(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	if !cl.early {
		return ctx, func() { cancel(nil) }
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(WatchEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if w := cl.wanted(); w.Key != cl.key {
					cancel(ErrSuperseded)
					return
				}
			}
		}
	}()
	return ctx, func() { close(done); cancel(nil) }
}

// ErrSuperseded is the cause of a watched context that ended because the
// tree it ran for is gone.
var ErrSuperseded = errors.New("superseded: the working tree changed, or a stop wants the check for another state")

// Release lets the next process run the check.
func (cl *Claim) Release() {
	cl.lock.Close() // closing drops the flock
}
