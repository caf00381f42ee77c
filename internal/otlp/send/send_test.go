package send

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdklog "go.opentelemetry.io/otel/sdk/log"

	"github.com/donegate/donegate/internal/decisionlog"
	"github.com/donegate/donegate/internal/otlp"
)

// collector is an Exporter that keeps what it was sent, by session, and
// fails when fail says so.
type collector struct {
	mu      sync.Mutex
	got     []string
	dropped int // records that say decisions were lost
	fail    func() bool
}

func (c *collector) received() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.got)
}

func (c *collector) Export(_ context.Context, records []sdklog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil && c.fail() {
		return errors.New("collector down")
	}
	for _, r := range records {
		if r.EventName() == DroppedEventName {
			c.dropped++
		}
		r.WalkAttributes(func(kv attribute.KeyValue) bool {
			if kv.Key == "gen_ai.conversation.id" {
				c.got = append(c.got, kv.Value.AsString())
			}
			return true
		})
	}
	return nil
}

func (c *collector) Shutdown(context.Context) error { return nil }

func appendDecision(t *testing.T, state string, i int) {
	t.Helper()
	require.NoError(t, decisionlog.Append(state, decisionlog.Entry{
		Time: time.Unix(int64(i), int64(i)).UTC(), Project: "/p", Host: "claude", Session: fmt.Sprint(i),
		Hook: "stop-hook", Event: "Stop", Decision: "blocked", Why: "tests fail",
	}))
}

func want(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprint(i))
	}
	return out
}

// Every decision reaches the collector once and in order, whatever
// fails when: the cursor moves only past what the collector took.
func TestSendIsOnceAndInOrder(t *testing.T) {
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			state := t.TempDir()
			col := &collector{fail: func() bool { return rng.IntN(3) == 0 }}
			s := &Sender{StateDir: state, Settings: otlp.Settings{Endpoint: "http://c"}, Exporter: col}
			n := 0
			for range 12 {
				for range rng.IntN(2 * batchSize) { // more than a batch at times
					appendDecision(t, state, n)
					n++
				}
				_, _ = s.Send(context.Background())
			}
			col.fail = nil
			_, err := s.Send(context.Background())
			require.NoError(t, err)
			assert.Equal(t, want(0, n), col.got)
			p, err := Pending(state)
			require.NoError(t, err)
			assert.Zero(t, p)
		})
	}
}

// A rotation between two sends: the rest of the older file, then the
// new one; a cursor in a file rotated out is said, and the send goes on
// from the oldest kept.
func TestSendFollowsTheRotation(t *testing.T) {
	state := t.TempDir()
	col := &collector{}
	s := &Sender{StateDir: state, Settings: otlp.Settings{Endpoint: "http://c"}, Exporter: col}
	log := filepath.Join(state, decisionlog.FileName)
	appendDecision(t, state, 0)
	_, err := s.Send(context.Background())
	require.NoError(t, err)
	appendDecision(t, state, 1)
	require.NoError(t, os.Rename(log, log+".1"))
	appendDecision(t, state, 2)
	_, err = s.Send(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want(0, 3), col.got)

	// Two rotations while the collector was away: what was in the
	// first file is lost, and said.
	appendDecision(t, state, 3)
	require.NoError(t, os.Rename(log, log+".1"))
	appendDecision(t, state, 4)
	require.NoError(t, os.Rename(log, log+".1"))
	appendDecision(t, state, 5)
	_, err = s.Send(context.Background())
	require.NoError(t, err)
	assert.Equal(t, append(want(0, 3), "4", "5"), col.got)
	st, err := ReadStatus(state)
	require.NoError(t, err)
	assert.False(t, st.Dropped.IsZero(), "the loss is said")
	assert.Equal(t, 1, col.dropped, "to the collector too")
	assert.EqualValues(t, 5, st.Sent)
}

// A line cut by a crash is not sent until it is whole; one that never
// decodes is passed over.
func TestSendWaitsForAWholeLine(t *testing.T) {
	state := t.TempDir()
	col := &collector{}
	s := &Sender{StateDir: state, Settings: otlp.Settings{Endpoint: "http://c"}, Exporter: col}
	appendDecision(t, state, 0)
	f, err := os.OpenFile(filepath.Join(state, decisionlog.FileName), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString("not json\n{\"time\":\"2026-01-01T00:00:00Z\",\"session\":\"cut")
	require.NoError(t, err)
	_, err = s.Send(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want(0, 1), col.got)
	_, err = f.WriteString("\",\"decision\":\"blocked\"}\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = s.Send(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"0", "cut"}, col.got)
}

// A background exporter that finds the collector down keeps retrying,
// holding the lock (the hooks start no other), and sends once it is up.
func TestRunBackgroundRetriesAndLingers(t *testing.T) {
	state := t.TempDir()
	var down atomic.Bool
	down.Store(true)
	col := &collector{fail: down.Load}
	s := &Sender{StateDir: state, Settings: otlp.Settings{Endpoint: "http://c"}, Exporter: col}
	appendDecision(t, state, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- s.RunBackground(ctx, Background{Linger: 300 * time.Millisecond, GiveUp: time.Minute, Poll: 10 * time.Millisecond})
	}()
	require.Eventually(t, func() bool {
		st, _ := ReadStatus(state)
		return st.LastError != ""
	}, 5*time.Second, 10*time.Millisecond)
	_, free, err := otlp.TryLock(state)
	require.NoError(t, err)
	assert.False(t, free, "the retrying exporter holds the lock")
	down.Store(false)
	require.Eventually(t, func() bool { return len(col.received()) == 1 }, 5*time.Second, 10*time.Millisecond)
	appendDecision(t, state, 1) // while it lingers
	require.Eventually(t, func() bool { return len(col.received()) == 2 }, 5*time.Second, 10*time.Millisecond)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the exporter did not end after lingering")
	}
	assert.Equal(t, want(0, 2), col.received())
	release, free, err := otlp.TryLock(state)
	require.NoError(t, err)
	assert.True(t, free, "the lock is given back")
	release()
}

// A background exporter whose state dir is removed (a test's, a
// benchmark's) ends, even while the collector fails.
func TestRunBackgroundEndsWithItsStateDir(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows removes no dir whose files a process holds open (the exporter's lock)")
	}
	state := filepath.Join(t.TempDir(), "state")
	require.NoError(t, os.Mkdir(state, 0o700))
	col := &collector{fail: func() bool { return true }}
	s := &Sender{StateDir: state, Settings: otlp.Settings{Endpoint: "http://c"}, Exporter: col}
	appendDecision(t, state, 0)
	done := make(chan error, 1)
	go func() {
		done <- s.RunBackground(context.Background(), Background{Linger: time.Hour, GiveUp: time.Hour, Poll: 10 * time.Millisecond})
	}()
	require.Eventually(t, func() bool {
		st, _ := ReadStatus(state)
		return st.LastError != ""
	}, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, os.RemoveAll(state))
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("the exporter outlived its state dir")
	}
}
