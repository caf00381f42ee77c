package send

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/donegate/donegate/internal/decisionlog"
	"github.com/donegate/donegate/internal/otlp"
)

// ErrRunning: another exporter holds the lock and sends the decisions.
var ErrRunning = errors.New("an exporter is running already")

// Background bounds a background exporter (the one the hooks start).
type Background struct {
	// Linger is how long it waits for another decision after its last
	// send before it ends: a run of stops starts one exporter.
	Linger time.Duration
	// GiveUp is how long it retries a collector that fails before it
	// ends; the decisions wait in the log for the next one.
	GiveUp time.Duration
	// Poll is how often it looks at the log while it lingers.
	Poll time.Duration
}

// DefaultBackground are the bounds of the exporter the hooks start.
var DefaultBackground = Background{Linger: 30 * time.Second, GiveUp: 10 * time.Minute, Poll: 250 * time.Millisecond}

// maxBackoff bounds the wait between two tries of a failing collector.
const maxBackoff = time.Minute

// RunBackground sends until the log has been quiet for b.Linger, or the
// collector has failed for b.GiveUp, or ctx ends; it holds the lock all
// the while. It ends at once when another exporter runs, and when the
// state dir is removed.
func (s *Sender) RunBackground(ctx context.Context, b Background) error {
	release, ok, err := otlp.TryLock(s.StateDir)
	if err != nil {
		return err
	}
	if !ok {
		return ErrRunning
	}
	backoff := time.Second
	var failingSince time.Time
	for {
		_, err := s.Send(ctx)
		if err != nil {
			if failingSince.IsZero() {
				failingSince = time.Now()
			}
			if time.Since(failingSince) >= b.GiveUp || sleep(ctx, backoff) != nil || gone(s.StateDir) {
				release()
				return err
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		failingSince, backoff = time.Time{}, time.Second
		if s.waitForMore(ctx, b) {
			continue
		}
		// Give the lock back, then look once more: a hook that found the
		// lock held after its append relies on this look.
		release()
		if ctx.Err() != nil || !s.unsent() {
			return nil
		}
		if release, ok, err = otlp.TryLock(s.StateDir); err != nil || !ok {
			return err // another exporter took it, and sends it
		}
	}
}

// waitForMore waits up to b.Linger for the log to grow, and reports
// whether it did.
func (s *Sender) waitForMore(ctx context.Context, b Background) bool {
	size := logSize(s.StateDir)
	for waited := time.Duration(0); waited < b.Linger; waited += b.Poll {
		if sleep(ctx, b.Poll) != nil {
			return false
		}
		if gone(s.StateDir) {
			return false // nothing more to send
		}
		if logSize(s.StateDir) != size {
			return true
		}
	}
	return false
}

// gone reports whether the state dir was removed: the exporter ends.
func gone(stateDir string) bool {
	_, err := os.Stat(stateDir)
	return errors.Is(err, fs.ErrNotExist)
}

// unsent reports whether the log holds a decision after the cursor.
func (s *Sender) unsent() bool {
	n, err := Pending(s.StateDir)
	return err == nil && n > 0
}

func logSize(stateDir string) int64 {
	st, err := os.Stat(filepath.Join(stateDir, decisionlog.FileName))
	if err != nil {
		return -1
	}
	return st.Size()
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
