package treecache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/donegate/donegate/internal/redact"
	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/safewrite"
)

// Key combines what a result depends on into a cache key.
func Key(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(strconv.Itoa(len(p))))
		h.Write([]byte{':'})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Entry is a remembered result. A failure keeps its pattern and
// parameters (see package feedback), so that it is worded again with the
// templates of the day when it is reused; Feedback is what it said when
// it ran (and all an entry written before patterns has).
type Entry struct {
	Complete bool           `json:"complete"`
	Feedback string         `json:"feedback"`
	Pattern  string         `json:"pattern,omitempty"`
	Params   map[string]any `json:"params,omitempty"`
	// Ran is the runner's report of the tests a passing run ran, where
	// the check reads one (checkers' goReport).
	Ran json.RawMessage `json:"ran,omitempty"`
	At  time.Time       `json:"at"`
	// By is who ran the command: "" donegate, ByAgent the agent itself,
	// through its host's shell tool (see checkers.RecordAgentRun).
	By string `json:"by,omitempty"`
}

// ByAgent marks an entry of the agent's own run; ByEarly one of a run
// started before the stop (stop-hook --start).
const (
	ByAgent = "agent"
	ByEarly = "early"
)

// RunBy names the run the entry is the result of, for feedback.
func (e Entry) RunBy() string {
	switch e.By {
	case ByAgent:
		return "the agent's own run (through its shell tool)"
	case ByEarly:
		return "the run started after the agent's last edit"
	}
	return "the run"
}

// Cache is a directory of entries, one file per key, and of the stat
// caches of the trees fingerprinted with it (see State).
type Cache struct {
	Dir string
	// ReadOnly: entries and stat caches are read, never written (closer
	// explain must leave the cache as the next hook will find it).
	ReadOnly bool
}

// maxAge is how long entries are kept.
const maxAge = 7 * 24 * time.Hour

// maxEntryBytes bounds an entry read: feedback is cut at 8,000 characters.
const maxEntryBytes = 1 << 20

// Get returns the entry for key, if any.
func (c Cache) Get(key string) (Entry, bool) {
	data, err := readRegular(filepath.Join(c.Dir, key+".json"), maxEntryBytes)
	if err != nil {
		return Entry{}, false
	}
	var e Entry
	if json.Unmarshal(data, &e) != nil {
		return Entry{}, false
	}
	return e, true
}

// Put stores e under key, atomically, and now and then removes old entries.
func (c Cache) Put(key string, e Entry) error {
	if c.ReadOnly {
		return nil
	}
	// What a check printed may hold a secret of the hook's environment:
	// kept masked (a reused result tells the agent the masked text).
	mask := redact.Process()
	e.Feedback = mask.Mask(e.Feedback)
	if len(e.Params) > 0 {
		params := make(map[string]any, len(e.Params))
		for k, v := range e.Params {
			params[k] = maskValue(mask, v)
		}
		e.Params = params
	}
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("result cache: %w", err)
	}
	if err := writeAtomic(c.Dir, key+".json", data); err != nil {
		return fmt.Errorf("result cache: %w", err)
	}
	if rand.IntN(32) == 0 {
		c.prune(time.Now())
	}
	return nil
}

// maskValue masks the strings of a feedback parameter: a string, or
// strings in a list or a map (what a template's params hold).
func maskValue(mask *redact.Masker, v any) any {
	switch x := v.(type) {
	case string:
		return mask.Mask(x)
	case []string:
		out := make([]string, len(x))
		for i, s := range x {
			out[i] = mask.Mask(s)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = maskValue(mask, s)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, s := range x {
			out[k] = maskValue(mask, s)
		}
		return out
	}
	return v
}

// readRegular reads up to limit bytes of the regular file at path (see
// regular.Open: never a FIFO or a device): the package's own files in the
// state dir, and the git files it reads instead of starting git.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// projectFile names the file of the project at dir that the cache keeps
// under prefix (its stat cache, its tree's snapshot).
func (c Cache) projectFile(prefix, dir string) string {
	sum := sha256.Sum256([]byte(dir))
	return filepath.Join(c.Dir, prefix+hex.EncodeToString(sum[:16])+".json")
}

// writeAtomic writes data to dir/name through a temporary file and a
// rename, so a reader sees the old file or the new one, never a part.
func writeAtomic(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := safewrite.Rename(tmp.Name(), filepath.Join(dir, name)); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// prune removes entries older than maxAge; failures only leave files behind.
func (c Cache) prune(now time.Time) {
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > maxAge {
			os.Remove(filepath.Join(c.Dir, e.Name()))
		}
	}
}

// GetNote returns what PutNote stored under key, if anything.
func (c Cache) GetNote(key string) ([]byte, bool) {
	data, err := readRegular(filepath.Join(c.Dir, "note-"+key+".json"), maxEntryBytes)
	return data, err == nil
}

// PutNote stores data under key, atomically: what a check worked out
// from a state of the tree and may reuse while it stands (what a
// workspace's packages reach), kept and pruned as results are.
func (c Cache) PutNote(key string, data []byte) error {
	if c.ReadOnly {
		return nil
	}
	if err := writeAtomic(c.Dir, "note-"+key+".json", data); err != nil {
		return fmt.Errorf("result cache: %w", err)
	}
	return nil
}
