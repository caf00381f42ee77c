package treecache

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
)

// stat is the metadata of a file that says whether it may have changed.
type stat struct {
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime"` // ns since the epoch
	Ctime int64  `json:"ctime"` // ns since the epoch
	Ino   uint64 `json:"ino"`
	Dev   uint64 `json:"dev"`
	Mode  uint32 `json:"mode"` // fs.FileMode: kind and permission bits
}

func (s stat) String() string {
	return fmt.Sprintf("%o %d %d %d %d %d", s.Mode, s.Size, s.Mtime, s.Ctime, s.Ino, s.Dev)
}

// statCache remembers the content hashes of a project's files by their
// metadata, so a file that has not changed is not read again at the next
// stop. It is one small JSON file per project dir beside the results.
//
// A remembered hash is reused only when the file's metadata is identical,
// and it is remembered only when the file is not racy: its modification
// and change times must be older than racyMargin before the fingerprint
// began, and its metadata the same before and after it was read. Any later
// write gives the file a change time after that moment, so it cannot keep
// the remembered metadata; a file changed just before or while it was
// hashed is hashed again at the next stop (git's "racily clean" problem).
// The change time is in the metadata because a program may set the
// modification time back, but not the change time.
type statCache struct {
	path string
	old  map[string]statEntry // as loaded
	seen map[string]statEntry // looked up or hashed in this fingerprint
}

type statEntry struct {
	stat
	Sum string `json:"sum"`
}

// maxStatEntries bounds the stat cache like the walk outside git.
const maxStatEntries = 50_000

// maxStatFileBytes bounds the stat cache read: maxStatEntries entries of
// about 300 bytes, with room.
const maxStatFileBytes = 32 << 20

// statPath names the stat cache of the project at dir.
func (c Cache) statPath(dir string) string { return c.projectFile("stat-", dir) }

// loadStats reads the stat cache at path; a missing or damaged one is empty.
func loadStats(path string) *statCache {
	s := &statCache{path: path, old: map[string]statEntry{}, seen: map[string]statEntry{}}
	data, err := readRegular(path, maxStatFileBytes)
	if err != nil || json.Unmarshal(data, &s.old) != nil {
		s.old = map[string]statEntry{}
	}
	return s
}

// lookup returns the remembered hash of the file at path if its metadata
// is still st.
func (s *statCache) lookup(path string, st stat) (string, bool) {
	if s == nil {
		return "", false
	}
	e, ok := s.old[path]
	if !ok || e.stat != st {
		return "", false
	}
	s.seen[path] = e
	return e.Sum, true
}

// store remembers the hash of a file that is not racy.
func (s *statCache) store(path string, st stat, sum string) {
	if s != nil && len(s.seen) < maxStatEntries {
		s.seen[path] = statEntry{st, sum}
	}
}

// save writes the cache if it changed. After a complete fingerprint it
// keeps only the files seen, so it never outgrows the tree; after one cut
// short it adds what was hashed to what it had. Failing to save only
// costs reading the files again.
func (s *statCache) save(complete bool) {
	if s == nil {
		return
	}
	entries := s.seen
	if !complete {
		entries = maps.Clone(s.old)
		maps.Copy(entries, s.seen)
	}
	if maps.Equal(entries, s.old) {
		return
	}
	data, err := json.Marshal(entries)
	if err != nil {
		return
	}
	_ = writeAtomic(filepath.Dir(s.path), filepath.Base(s.path), data)
}
