// Package state keeps the per-session block counts that stop donegate from
// trapping an agent. One small JSON file per session, named by a hash of
// the session id (ids come from hook input and never become a path), is
// read and rewritten under an exclusive flock(2), so concurrent hooks of
// one session (a Stop and SubagentStops together) count exactly. The kernel
// drops the lock when its holder dies, so a killed hook leaves no stale
// lock. Writes go to a temporary file that is renamed over the old one.
package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Counter is the count for one gate (the main agent's stop, one subagent's
// stop, a gated tool) within one prompt.
type Counter struct {
	Blocks     int       `json:"blocks"`
	FirstBlock time.Time `json:"first_block"`
	// Exhausted is set once the limit let the agent through; further
	// stops of the same prompt pass at once instead of starting over.
	Exhausted bool `json:"exhausted,omitempty"`
}

// Session is what is stored for one session.
type Session struct {
	PromptID string              `json:"prompt_id"`
	Counters map[string]*Counter `json:"counters"`
}

// Store is a directory of session files.
type Store struct {
	Dir string
}

// FileName returns the state file name for a session id.
func FileName(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return hex.EncodeToString(sum[:16]) + ".json"
}

// Update loads the session's state, lets fn change it and writes it back,
// all under the session's lock. A new prompt id starts from empty counts.
func (s Store) Update(sessionID, promptID string, fn func(*Session) error) error {
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	path := filepath.Join(s.Dir, FileName(sessionID))
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("state lock: %w", err)
	}
	defer lock.Close()
	if err := flock(lock); err != nil {
		return fmt.Errorf("state lock %s: %w", lock.Name(), err)
	}
	// Closing the file releases the lock.

	sess, err := load(path)
	if err != nil {
		return err
	}
	if sess.PromptID != promptID || sess.Counters == nil {
		sess = &Session{PromptID: promptID, Counters: map[string]*Counter{}}
	}
	if err := fn(sess); err != nil {
		return err
	}
	return save(path, sess)
}

// LockWait bounds the wait for another hook of the same session. Holders
// keep the lock for a read and a write only, so a longer wait means a
// stuck holder; the caller then fails open rather than hang the agent.
var LockWait = 10 * time.Second

// ErrLockBusy is returned when the lock could not be had within LockWait.
var ErrLockBusy = errors.New("lock held by another process for too long")

func flock(f *os.File) error {
	deadline := time.Now().Add(LockWait)
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return err
		case time.Now().After(deadline):
			return ErrLockBusy
		}
		time.Sleep(delay)
	}
}

func load(path string) (*Session, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Session{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	var s Session
	if err := json.Unmarshal(data, &s); err != nil {
		// A damaged file must not wedge the hook: start the count over.
		return &Session{}, nil
	}
	return &s, nil
}

func save(path string, s *Session) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	// No fsync: a count lost to a machine crash costs at most a few extra
	// continuations, and an fsync per stop would cost milliseconds on
	// every agent turn. The rename keeps readers from a half-written file.
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("state: write %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("state: %w", err)
	}
	return nil
}
