package treecache

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// canWalk: a snapshot needs the change time, which statOf reads on Linux.
const canWalk = true

// walkWorkers bounds the directories walked at once. Stats wait on the
// kernel more than they use a core: on the 2-core test machine a
// 10,000-file tree took 70 ms to walk alone, 48-52 ms with two walkers
// and 43 ms with four, no less with 8 or 16 (git's status stats from up
// to 20 threads).
var walkWorkers = min(max(2*runtime.GOMAXPROCS(0), 4), 8)

// walk returns the digest of the metadata of the work tree's entries,
// leaving out .git at the top level and the directories skip names
// (relative to the top level), and of the files git reads besides (see
// snapshot). Its error is errNoSnapshot, ErrTooLarge, or ctx's.
//
// start is when the walk began, for the racy rule: no entry it describes
// changed from racyMargin before start until it was looked at. So a git
// look that begins after start, at any time during the walk, saw each
// entry as described, or as changed after the walk's look, which the
// next walk sees.
//
// hot are paths in the tree likely to have changed last (what git listed
// at the last look): looked at first, so that a walk that would end on a
// racy file ends before it began.
func (w *treeWatch) walk(ctx context.Context, skip, hot []string, start time.Time) (string, error) {
	tw := &treeWalk{
		ctx:    ctx,
		skip:   make(map[string]bool, len(skip)),
		limit:  start.Add(-racyMargin).UnixNano(),
		fine:   start.Add(-fineRacyMargin).UnixNano(),
		digest: map[string]string{},
		sem:    make(chan struct{}, max(walkWorkers-1, 0)),
	}
	for _, s := range skip {
		tw.skip[s] = true
	}
	h := sha256.New()
	writeField(h, "walk1")
	for _, p := range w.besides {
		var st unix.Stat_t
		err := unix.Stat(p, &st)
		switch {
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR):
			writeField(h, p+" missing")
		case err != nil:
			return "", fmt.Errorf("%w: %s: %w", errNoSnapshot, p, err)
		case tw.racy(&st):
			return "", fmt.Errorf("%w: %s changed too recently", errNoSnapshot, p)
		case st.Mode&unix.S_IFMT == unix.S_IFDIR:
			// refs/replace: its refs, one level, count.
			entries, err := os.ReadDir(p)
			if err != nil {
				return "", fmt.Errorf("%w: %s: %w", errNoSnapshot, p, err)
			}
			h.Write(appendRecord(nil, p, &st))
			for _, e := range entries {
				var est unix.Stat_t
				if err := unix.Lstat(filepath.Join(p, e.Name()), &est); err != nil || tw.racy(&est) {
					return "", fmt.Errorf("%w: %s changed too recently", errNoSnapshot, p)
				}
				h.Write(appendRecord(nil, e.Name(), &est))
			}
		default:
			h.Write(appendRecord(nil, p, &st))
		}
	}
	for _, p := range hot {
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err == nil && tw.racy(&st) {
			return "", fmt.Errorf("%w: %s changed too recently", errNoSnapshot, p)
		}
	}
	fd, err := unix.Open(w.top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", errNoSnapshot, w.top, err)
	}
	var top unix.Stat_t
	if err := unix.Fstat(fd, &top); err != nil {
		unix.Close(fd)
		return "", fmt.Errorf("%w: %s: %w", errNoSnapshot, w.top, err)
	}
	h.Write(appendRecord(nil, ".", &top))
	// A stat that hangs (a dead network mount) must not hold the hook past
	// its deadline: the walkers are left to end on their own.
	done := make(chan struct{})
	go func() {
		defer close(done)
		tw.visit("", fd)
		tw.wg.Wait()
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return "", fmt.Errorf("walk %s: %w", w.top, ctx.Err())
	}
	if err := tw.err.Load(); err != nil {
		return "", *err
	}
	dirs := make([]string, 0, len(tw.digest))
	for d := range tw.digest {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		writeField(h, d)
		writeField(h, tw.digest[d])
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// recordBufs hold the records of a directory while it is walked. Reused:
// a page the process has not touched yet costs a fault of 20-27 us on the
// 2-core test machine, and a buffer per directory of a 10,000-file tree
// touched 2 MB (a tenth of the walk's time went to clearing new memory).
var recordBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// treeWalk is one walk of a work tree, shared by its walkers.
type treeWalk struct {
	ctx   context.Context
	skip  map[string]bool
	limit int64 // entries changed at or after it are racy (ns)
	fine  int64 // the same for times kept to a fraction of a second
	count atomic.Int64
	sem   chan struct{} // a token per walker beyond the first
	wg    sync.WaitGroup
	err   atomic.Pointer[error] // the first error; the walk then ends

	mu     sync.Mutex
	digest map[string]string // per directory walked, by its relative path
}

// fail records the walk's first error.
func (tw *treeWalk) fail(err error) {
	tw.err.CompareAndSwap(nil, &err)
}

// appendRecord appends the record of an entry to b: its name, length
// first, and its metadata in fixed-size fields. No formatting: a walk
// writes one per entry of the tree.
//
// A directory counts by its mode alone: the entries of one walked are in
// the walk, and one skipped counts only as a directory git ignores, which
// files written in it (an ignored out/, node_modules/) leave as it is.
func appendRecord(b []byte, name string, st *unix.Stat_t) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(name)))
	b = append(b, name...)
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return binary.LittleEndian.AppendUint64(b, uint64(st.Mode))
	}
	for _, v := range []uint64{uint64(st.Mode), uint64(st.Size), uint64(st.Mtim.Nano()), uint64(st.Ctim.Nano()), st.Ino, st.Dev} {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

// fineRacyMargin stands for racyMargin where an entry's times show that
// its file system keeps fractions of a second (see racy).
const fineRacyMargin = 50 * time.Millisecond

// racy reports whether an entry changed too recently for its metadata to
// stand for it. A directory's times do not count (see appendRecord).
//
// A write within the file system clock's tick after a walk looked at an
// entry can leave its times as they were; a margin of two ticks between
// the entry's times and the walk's start leaves no such write unseen.
// racyMargin covers clocks of up to a second (FAT keeps 2 s, ext4 with
// small inodes, HFS+ and many network servers whole seconds). Where both
// times have a fraction of a second, the file system keeps fractions: its
// tick is the kernel's (4-10 ms) or its own (exFAT's 10 ms), and
// fineRacyMargin is five of the coarsest. A whole-second time on such a
// file system is one write in about a billion and takes racyMargin. So a
// stop a second after the agent's last edit, its checks started on it
// (stop-hook --start), finds the snapshot their run's look left.
func (tw *treeWalk) racy(st *unix.Stat_t) bool {
	if st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return false
	}
	limit := tw.limit
	if st.Mtim.Nsec != 0 && st.Ctim.Nsec != 0 {
		limit = tw.fine
	}
	return max(st.Mtim.Nano(), st.Ctim.Nano()) >= limit
}

// below is the path of the entry name of the directory rel, as git names
// paths from the top level ("" for the top).
func below(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// visit walks the directory open at fd, rel from the top level ("" for
// the top), and closes fd. Its subdirectories are walked by another
// walker where one is free, else in turn.
func (tw *treeWalk) visit(rel string, fd int) {
	dir := os.NewFile(uintptr(fd), rel)
	defer dir.Close()
	if tw.err.Load() != nil {
		return
	}
	if err := tw.ctx.Err(); err != nil {
		tw.fail(err)
		return
	}
	names, err := dir.Readdirnames(-1)
	if err != nil {
		tw.fail(fmt.Errorf("%w: %s: %w", errNoSnapshot, rel, err))
		return
	}
	if n := tw.count.Add(int64(len(names))); n > int64(maxWalkFiles) {
		tw.fail(fmt.Errorf("%w (over %d files)", ErrTooLarge, maxWalkFiles))
		return
	}
	slices.Sort(names)
	// Every entry of the directory is looked at before any below it: a
	// racy file or a nested repository ends the walk sooner.
	buf := recordBufs.Get().(*[]byte)
	defer recordBufs.Put(buf)
	records := (*buf)[:0]
	type subdir struct {
		name     string
		ino, dev uint64
	}
	var subdirs []subdir
	for _, name := range names {
		child := below(rel, name)
		if name == ".git" {
			if rel == "" {
				continue
			}
			// A nested repository or a submodule: its status is its own.
			tw.fail(fmt.Errorf("%w: a repository at %s", errNoSnapshot, child))
			return
		}
		var st unix.Stat_t
		if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			// Gone since the listing: the tree is changing.
			tw.fail(fmt.Errorf("%w: %s: %w", errNoSnapshot, child, err))
			return
		}
		if tw.racy(&st) {
			tw.fail(fmt.Errorf("%w: %s changed too recently", errNoSnapshot, child))
			return
		}
		if st.Mode&unix.S_IFMT == unix.S_IFLNK && (name == ".gitignore" || name == ".gitattributes") {
			// Read through the link by git before 2.32: its target,
			// anywhere, would decide.
			tw.fail(fmt.Errorf("%w: %s is a link", errNoSnapshot, child))
			return
		}
		records = appendRecord(records, name, &st)
		if st.Mode&unix.S_IFMT == unix.S_IFDIR && !tw.skip[child] {
			subdirs = append(subdirs, subdir{name, st.Ino, st.Dev})
		}
	}
	for _, d := range subdirs {
		if tw.err.Load() != nil {
			return
		}
		name, child := d.name, below(rel, d.name)
		var st unix.Stat_t
		sub, err := unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			err = unix.Fstat(sub, &st)
		}
		// The directory opened must be the one described.
		if err != nil || st.Ino != d.ino || st.Dev != d.dev {
			if sub >= 0 {
				unix.Close(sub)
			}
			tw.fail(fmt.Errorf("%w: %s replaced while walked", errNoSnapshot, child))
			return
		}
		select {
		case tw.sem <- struct{}{}:
			tw.wg.Add(1)
			go func() {
				defer func() { <-tw.sem; tw.wg.Done() }()
				tw.visit(child, sub)
			}()
		default:
			tw.visit(child, sub)
		}
	}
	digest := sha256.Sum256(records)
	*buf = records
	sum := hex.EncodeToString(digest[:])
	tw.mu.Lock()
	tw.digest[rel] = sum
	tw.mu.Unlock()
}
