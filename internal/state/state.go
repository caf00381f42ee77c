// Package state keeps what donegate remembers per session: the block counts
// that stop it from trapping an agent, git-commits' baselines and the
// phase checker's progress. One small JSON file per session, named by a
// hash of the session id (ids come from hook input and never become a
// path), is read and rewritten under an exclusive flock(2) on the file
// itself, so concurrent hooks of one session (a Stop and SubagentStops
// together) count exactly. The kernel drops the lock when its holder dies,
// so a killed hook leaves no stale lock.
//
// The record is one line, rewritten in place by a single write at offset 0
// and then cut to its length: a hook killed in between leaves the old or
// the new line, followed at worst by bytes of an older, longer one that
// the reader ignores. Not a temporary file renamed over the old one: on
// ext4 a rename that replaces a file first writes its data to disk
// (auto_da_alloc), about half a millisecond on every stop.
//
// The file is never a symbolic link or anything but a regular file: a link
// would have the record written over whatever it points to, and a FIFO
// would block the read for ever. Either is an error, and the hook fails
// open on it.
package state

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/donegate/donegate/internal/limit"
	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/transcript"
)

// Session is what is stored for one session: a count per gate (the main
// agent's stop, each subagent's stop, each gated tool), each tagged with
// the prompt it belongs to (see package limit).
type Session struct {
	// LegacyPromptID is the one prompt id of records written before each
	// count carried its own; load moves it into the counts.
	LegacyPromptID string                    `json:"prompt_id,omitempty"`
	Counters       map[string]*limit.Counter `json:"counters"`
	// Baselines are the commits the git-commits checker counts from, the
	// latest maxBaselines (see Baseline).
	Baselines []Baseline `json:"baselines,omitempty"`
	// Phase is the phase checker's record of the session; nil until one
	// has run.
	Phase *Phase `json:"phase,omitempty"`
}

// Phase is how far the phase checker has got in a session: the furthest
// phase the agent's markers named, and how much of the transcript it has
// read for them, so that each stop reads only what was appended since.
type Phase struct {
	// Reached is the furthest phase marked so far; "" for none.
	Reached string `json:"reached,omitempty"`
	// Transcript is the transcript read, and Position how far, in which
	// file: the start of its first line not read yet, and what tells that
	// the file there is still the one read. A record of before 2026-11-24
	// has an offset alone, and its transcript is read once from the start.
	Transcript string `json:"transcript,omitempty"`
	transcript.Position
}

// Baseline is where git-commits counts from for one prompt in one work
// tree (see Session.Baseline).
type Baseline struct {
	Prompt string `json:"prompt"`
	Tree   string `json:"tree"`
	Commit string `json:"commit"` // "": the tree had no commit yet
	// Last is HEAD at the prompt's latest hook call: where the next
	// prompt starts from.
	Last string `json:"last"`
}

// maxBaselines bounds the baselines kept per session: prompts interleave
// (a Stop of an earlier prompt may come late), but not many.
const maxBaselines = 8

// Baseline returns the baseline of prompt in the work tree tree, whose
// HEAD is head now, recording one at the prompt's first hook call there.
// Hooks only run when the agent stops, after it may have committed, so
// HEAD now is the wrong baseline for a new prompt: it is HEAD at the
// latest hook call of the session's previous prompt in the tree, else
// what start says (HEAD when the session began), else head.
func (s *Session) Baseline(prompt, tree, head string, start func() (string, bool)) string {
	var prev *Baseline
	for i := range s.Baselines {
		b := &s.Baselines[i]
		if b.Tree != tree {
			continue
		}
		if b.Prompt == prompt {
			b.Last = head
			return b.Commit
		}
		prev = b
	}
	base := head
	if prev != nil {
		base = prev.Last
	} else if start != nil {
		if c, ok := start(); ok {
			base = c
		}
	}
	s.Baselines = append(s.Baselines, Baseline{Prompt: prompt, Tree: tree, Commit: base, Last: head})
	if n := len(s.Baselines); n > maxBaselines {
		s.Baselines = append([]Baseline(nil), s.Baselines[n-maxBaselines:]...)
	}
	return base
}

// Store is a directory of session files.
type Store struct {
	Dir string
	// ReadOnly makes Update hand fn a copy of the stored state (read with
	// Peek) and write nothing: closer explain runs the hooks' own
	// bookkeeping this way, so it cannot drift from it or change it.
	ReadOnly bool
}

// FileName returns the state file name for a session id.
func FileName(sessionID string) string {
	sum := sha256.Sum256([]byte(sessionID))
	return hex.EncodeToString(sum[:16]) + ".json"
}

// Update loads the session's state, lets fn change it and writes it back,
// all under the session's lock.
func (s Store) Update(sessionID string, fn func(*Session) error) error {
	if s.ReadOnly {
		sess, err := s.Peek(sessionID)
		if err != nil {
			return err
		}
		return fn(sess)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("state dir: %w", err)
	}
	f, err := open(filepath.Join(s.Dir, FileName(sessionID)))
	if err != nil {
		return err
	}
	// Closing the file releases the lock.
	defer f.Close()
	if err := flock(f); err != nil {
		return fmt.Errorf("state lock %s: %w", f.Name(), err)
	}
	sess, old, err := load(f)
	if err != nil {
		return err
	}
	if sess.Counters == nil {
		sess.Counters = map[string]*limit.Counter{}
	}
	if err := fn(sess); err != nil {
		return err
	}
	return save(f, sess, old)
}

// Peek returns the session's state as Update would hand it to fn, without
// creating, locking or writing anything: for closer explain, which must
// show what a hook would decide and leave the counts as they are. A
// session with no file yet has empty state. Without the lock a hook
// writing at the same moment can be seen half-way; the record is one
// line, so the reader then sees the old record, or the count starts over
// as it would for a damaged one.
func (s Store) Peek(sessionID string) (*Session, error) {
	path := filepath.Join(s.Dir, FileName(sessionID))
	f, err := regular.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &Session{Counters: map[string]*limit.Counter{}}, nil
	case errors.Is(err, syscall.ELOOP):
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("state file %s %w", path, ErrSymlink)
		}
		return nil, fmt.Errorf("state: %w", err)
	case err != nil:
		return nil, fmt.Errorf("state: %w", err)
	}
	defer f.Close()
	sess, _, err := load(f)
	if err != nil {
		return nil, err
	}
	if sess.Counters == nil {
		sess.Counters = map[string]*limit.Counter{}
	}
	return sess, nil
}

// ErrSymlink is wrapped by the error for a state file that is a symbolic
// link.
var ErrSymlink = errors.New("is a symbolic link, which is not followed")

// open opens or creates the state file at path. O_NOFOLLOW because the
// file is rewritten in place: followed, a link planted in the state dir
// would have the record written over its target. regular.OpenFile because
// a FIFO would block the read (open with O_RDWR does not wait, the read
// does).
func open(path string) (*os.File, error) {
	f, err := regular.OpenFile(path, os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err == nil {
		return f, nil
	}
	// O_NOFOLLOW fails with ELOOP on a link; ELOOP can also come from a
	// loop of links in the directories above, so look before saying which.
	if errors.Is(err, syscall.ELOOP) {
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("state file %s %w", path, ErrSymlink)
		}
	}
	return nil, fmt.Errorf("state: %w", err)
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

// maxRecordBytes bounds what is read of a state file; a record holds a
// few counters and is far smaller.
const maxRecordBytes = 1 << 20

// load reads the record, the file's first line, and returns it with the
// file's whole content. A damaged or foreign record must not wedge the
// hook: the count starts over.
func load(f *os.File) (*Session, []byte, error) {
	data, err := io.ReadAll(io.LimitReader(f, maxRecordBytes))
	if err != nil {
		return nil, nil, fmt.Errorf("state: read %s: %w", f.Name(), err)
	}
	var s Session
	line, _, ok := bytes.Cut(data, []byte("\n"))
	if !ok || json.Unmarshal(line, &s) != nil {
		return &Session{}, data, nil
	}
	if s.LegacyPromptID != "" {
		// Until 2026-11-23 one prompt id covered every count, and any
		// other prompt's event reset them all (a trap when prompts
		// interleave). Each count now carries its own.
		for _, c := range s.Counters {
			if c != nil && c.PromptID == "" {
				c.PromptID, c.Touched = s.LegacyPromptID, c.FirstBlock
			}
		}
		s.LegacyPromptID = ""
	}
	return &s, data, nil
}

// save writes s over the file's old content. Most updates change nothing
// (a finished stop clears a count that is not there, a spent count stays
// spent): those write nothing.
func save(f *os.File, s *Session, old []byte) error {
	data, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	data = append(data, '\n')
	if bytes.Equal(data, old) {
		return nil
	}
	// No fsync: a count lost to a machine crash costs at most a few extra
	// continuations, and an fsync per stop would cost milliseconds on
	// every agent turn.
	if _, err := f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("state: write %s: %w", f.Name(), err)
	}
	if len(data) < len(old) {
		if err := f.Truncate(int64(len(data))); err != nil {
			return fmt.Errorf("state: truncate %s: %w", f.Name(), err)
		}
	}
	return nil
}
