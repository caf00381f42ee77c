// Package state keeps what donegate remembers per session: the block counts
// that stop it from trapping an agent, and what checker types keep of the
// session (git-commits' baselines, the phase checker's progress), each in
// a slot of its own that this package does not look into. One small JSON
// file per session, named by a hash of the session id (ids come from hook
// input and never become a path), is read and rewritten under an exclusive flock(2) on the file
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
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/donegate/donegate/internal/filelock"
	"github.com/donegate/donegate/internal/limit"
	"github.com/donegate/donegate/internal/regular"
)

// Session is what is stored for one session: a count per gate (the main
// agent's stop, each subagent's stop, each gated tool), each tagged with
// the prompt it belongs to (see package limit), and each checker type's
// own record.
type Session struct {
	// LegacyPromptID is the one prompt id of records written before each
	// count carried its own; load moves it into the counts.
	LegacyPromptID string                    `json:"prompt_id,omitempty"`
	Counters       map[string]*limit.Counter `json:"counters"`
	// Checkers holds what checker types keep of the session (git-commits'
	// baselines, the phase reached), by type name, each as its type
	// encodes it (see Get and Put): a type keeps what it needs without
	// this package knowing it, as go/analysis' analyzers declare their
	// own fact types.
	Checkers map[string]json.RawMessage `json:"checkers,omitempty"`

	// LegacyBaselines and LegacyPhase are where records written before
	// 2026-11-24 kept git-commits' and phase's records: load moves them
	// into Checkers, as they are.
	LegacyBaselines json.RawMessage `json:"baselines,omitempty"`
	LegacyPhase     json.RawMessage `json:"phase,omitempty"`
}

// Get decodes the record the checker type typ keeps in the session into
// v, a pointer, and reports whether there was one. A record that does
// not decode is none: a damaged record starts over, as a count does. A v
// that is a RecordDecoder decodes itself.
func (s *Session) Get(typ string, v any) bool {
	data, ok := s.Checkers[typ]
	if r, is := v.(RecordDecoder); is {
		return ok && r.DecodeRecord(data) == nil
	}
	return ok && json.Unmarshal(data, v) == nil
}

// Put stores v as the record the checker type typ keeps in the session.
// A v that is a RecordAppender encodes itself.
func (s *Session) Put(typ string, v any) error {
	var data []byte
	var err error
	if r, is := v.(RecordAppender); is {
		data = r.AppendRecord(nil)
	} else if data, err = json.Marshal(v); err != nil {
		return fmt.Errorf("state: %s's record: %w", typ, err)
	}
	if s.Checkers == nil {
		s.Checkers = map[string]json.RawMessage{}
	}
	s.Checkers[typ] = data
	return nil
}

// A record every stop reads or writes reads and writes its own JSON, as
// encoding/json would for the same value, without its reflection (see
// codec.go): Get hands a RecordDecoder the stored JSON, to be decoded
// whole or refused, and Put takes the compact JSON a RecordAppender
// appends.
type (
	RecordDecoder  interface{ DecodeRecord(data []byte) error }
	RecordAppender interface{ AppendRecord(b []byte) []byte }
)

// migrate moves what records written before 2026-11-24 kept in fields of
// their own into Checkers, unchanged: the types read the same JSON from
// there, so a hook upgraded in the middle of a session goes on from
// where the old one left off.
func (s *Session) migrate() {
	for _, old := range []struct {
		typ  string
		data *json.RawMessage
	}{{"git-commits", &s.LegacyBaselines}, {"phase", &s.LegacyPhase}} {
		if len(*old.data) == 0 {
			continue
		}
		if _, ok := s.Checkers[old.typ]; !ok && string(*old.data) != "null" {
			if s.Checkers == nil {
				s.Checkers = map[string]json.RawMessage{}
			}
			s.Checkers[old.typ] = *old.data
		}
		*old.data = nil
	}
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

// IsFileName reports whether name is a session's file name, as FileName
// makes them: what else a state dir holds (the decision log, consent/,
// results/) is not.
func IsFileName(name string) bool {
	hash, ok := strings.CutSuffix(name, ".json")
	if !ok || len(hash) != 32 {
		return false
	}
	for _, c := range []byte(hash) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ReadFile reads the session record at path (a file FileName names in a
// state dir) whole, under its lock, creating nothing: for a reader
// outside the hooks that must not see a record half rewritten (closer's,
// of the last event). A file that does not exist is an error that wraps
// fs.ErrNotExist.
func ReadFile(path string) (*Session, error) { return read(path, true) }

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
	path := filepath.Join(s.Dir, FileName(sessionID))
	f, err := open(path)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// The dir is made only when it is missing (or says why it cannot
		// be): a stat per update is a cost every stop would pay for the
		// first one's sake.
		if err = os.MkdirAll(s.Dir, 0o700); err != nil {
			return fmt.Errorf("state dir: %w", err)
		}
		f, err = open(path)
	}
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
	sess, err := read(filepath.Join(s.Dir, FileName(sessionID)), false)
	if errors.Is(err, fs.ErrNotExist) {
		return &Session{Counters: map[string]*limit.Counter{}}, nil
	}
	return sess, err
}

// read reads the record at path, under its lock if lock is set, creating
// nothing; a session's counts are never nil. A file that does not exist
// is an error that wraps fs.ErrNotExist; a link is refused, and said to
// be one.
func read(path string, lock bool) (*Session, error) {
	f, err := regular.OpenFile(path, os.O_RDONLY|regular.NoFollow, 0)
	if errors.Is(err, syscall.ELOOP) {
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("state file %s %w", path, errSymlink)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	defer f.Close()
	if lock {
		if err := flock(f); err != nil {
			return nil, fmt.Errorf("state lock %s: %w", path, err)
		}
	}
	sess, _, err := load(f)
	if err != nil {
		return nil, err
	}
	if sess.Counters == nil {
		sess.Counters = map[string]*limit.Counter{}
	}
	return sess, nil
}

// Slot is one record of a session's state, named Key, as a host's reader
// keeps it (hookio.Memo).
type Slot struct {
	Store   Store
	Session string
	Key     string
}

// Recall decodes the record into v; false when there is none, or the
// session's state cannot be read.
func (s Slot) Recall(v any) bool {
	sess, err := s.Store.Peek(s.Session)
	return err == nil && sess.Get(s.Key, v)
}

// Update replaces the record with what next returns, under the session's
// lock; nil leaves it as it is. A read-only store writes nothing.
func (s Slot) Update(next func(recall func(v any) bool) any) error {
	return s.Store.Update(s.Session, func(sess *Session) error {
		return sess.Slot(s.Key).Update(next)
	})
}

// LockedSlot is one record of a session whose state is held under its
// lock (within Store.Update).
type LockedSlot struct {
	sess *Session
	key  string
}

// Slot is the record named key of s, which the caller holds under the
// session's lock.
func (s *Session) Slot(key string) LockedSlot { return LockedSlot{s, key} }

// Recall decodes the record into v; false when there is none.
func (s LockedSlot) Recall(v any) bool { return s.sess.Get(s.key, v) }

// Update replaces the record with what next returns; nil leaves it as it
// is.
func (s LockedSlot) Update(next func(recall func(v any) bool) any) error {
	v := next(s.Recall)
	if v == nil {
		return nil
	}
	return s.sess.Put(s.key, v)
}

// errSymlink is wrapped by the error for a state file that is a symbolic
// link.
var errSymlink = errors.New("is a symbolic link, which is not followed")

// open opens or creates the state file at path. O_NOFOLLOW because the
// file is rewritten in place: followed, a link planted in the state dir
// would have the record written over its target. regular.OpenFile because
// a FIFO would block the read (open with O_RDWR does not wait, the read
// does).
func open(path string) (*os.File, error) {
	f, err := regular.OpenFile(path, os.O_CREATE|os.O_RDWR|regular.NoFollow, 0o600)
	if err == nil {
		return f, nil
	}
	// O_NOFOLLOW fails with ELOOP on a link; ELOOP can also come from a
	// loop of links in the directories above, so look before saying which.
	if errors.Is(err, syscall.ELOOP) {
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&os.ModeSymlink != 0 {
			return nil, fmt.Errorf("state file %s %w", path, errSymlink)
		}
	}
	return nil, fmt.Errorf("state: %w", err)
}

// LockWait bounds the wait for another hook of the same session. Holders
// keep the lock for a read and a write only, so a longer wait means a
// stuck holder; the caller then fails open rather than hang the agent.
var LockWait = 10 * time.Second

// ErrLockBusy is returned when the lock could not be had within LockWait.
var ErrLockBusy = filelock.ErrBusy

func flock(f *os.File) error { return filelock.Lock(f, LockWait) }

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
	line, _, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return &Session{}, data, nil
	}
	s, err := decodeSession(line)
	if err != nil {
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
	s.migrate()
	return s, data, nil
}

// save writes s over the file's old content. Most updates change nothing
// (a finished stop clears a count that is not there, a spent count stays
// spent): those write nothing.
func save(f *os.File, s *Session, old []byte) error {
	data, err := s.appendJSON(nil)
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
