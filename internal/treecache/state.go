package treecache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/regular"
)

// gitTimeout bounds each git command; a cache key is never worth waiting for.
const gitTimeout = 10 * time.Second

// maxWalkFiles bounds the walk outside git: a tree larger than this is not
// cached rather than walked for a long time. A variable for tests only.
var maxWalkFiles = 50_000

// bigFile is the size above which a file counts by its metadata instead of
// its content. Hashing 1 MiB takes about a millisecond, so the content of
// smaller files is always part of the state and touching one, or writing
// it again unchanged, does not rerun the command. A large file is never
// read: an untracked 8 GB file once took 22.8 s of a 3 s budget to hash,
// at every stop. Its size, times and inode say whether it may have changed
// without reading it; the price is that rewriting it with the same bytes
// counts as a change and runs the command once more.
const bigFile = 1 << 20

// maxNested bounds the recursion into submodules and nested repositories.
const maxNested = 4

// readChunk is how much of a file is hashed between looks at the context.
const readChunk = 256 << 10

// maxGitFileBytes bounds a read of a git file in place of git (config,
// HEAD).
const maxGitFileBytes = 1 << 20

// racyMargin is how long a file must have been still (by its modification
// and change times) before its metadata is trusted to stand for its
// content; see ErrUnsettled and statCache. File times have a granularity
// (a kernel tick on ext4, 2 s on FAT), so a file written again within the
// same tick, after it was looked at, can keep the same metadata with
// other content: git's "racily clean" files.
const racyMargin = 2 * time.Second

// now is the clock the racy rule reads; tests move it.
var now = time.Now

// hashed counts the bytes fingerprinting has hashed, for the tests that
// prove what is not read (a huge file, the rest of a tree once the
// deadline has passed): a count holds on a loaded machine, a time does
// not. One atomic add per chunk of readChunk bytes.
var hashed atomic.Int64

var (
	// ErrTooLarge is returned for a tree that would take too long to
	// fingerprint: over maxWalkFiles files outside git, or repositories
	// nested over maxNested deep.
	ErrTooLarge = errors.New("tree too large to fingerprint")
	// ErrUnsettled is returned when a file that counts by its metadata
	// (a large file, or any file outside git) changed less than racyMargin
	// before fingerprinting began. A later write within the same tick of
	// the file system's clock could leave its metadata as it is, so the
	// state would not show it: such a tree is not cached until it settles.
	ErrUnsettled = errors.New("files changed too recently to fingerprint by their metadata")
)

// State fingerprints the working tree at dir, reading every file it needs
// to (no remembered hashes).
func State(ctx context.Context, dir string) (string, error) {
	return Cache{}.State(ctx, dir)
}

// State fingerprints the working tree at dir, reusing and remembering the
// content hashes of files by their metadata in c.Dir (none when c.Dir is
// ""). The error wraps ctx's error when ctx ended first.
func (c Cache) State(ctx context.Context, dir string) (string, error) {
	st, err := c.ReadStatus(ctx, dir)
	if err != nil {
		return "", err
	}
	return c.StateOf(ctx, st)
}

// Status is git's view of the work tree holding a directory. One look
// serves every reader of one hook run: the fingerprint (StateOf) and the
// git-clean checker read the same Status, so a chain of checkers costs one
// `git status`, the cost that dominates on a large tree.
type Status struct {
	// Dir is the directory it was taken for.
	Dir string
	// NotRepo is set, to git's own message, when Dir is in no work tree
	// git can read.
	NotRepo error
	// Head is HEAD's commit; "" before the first commit.
	Head string
	// Porcelain holds the entries of `git -c core.fileMode=true status
	// --porcelain=v2 --branch --no-ahead-behind -z --untracked-files=all
	// --no-renames --ignore-submodules=none` run in Dir, its headers left
	// out: "1 XY sub mH mI mW hH hI path\x00" for a change, "u ..." for a
	// conflict, "? path\x00" for an untracked file, paths relative to the
	// top level. Empty when the tree is clean. It may list more than the
	// user's own `git status` (mode changes and submodules the user's
	// config hides), never less.
	Porcelain []byte
}

// ReadStatus looks at the work tree holding dir with one git process:
// the porcelain v2 status says HEAD in its headers, and its paths are the
// top level's, which only a dirty tree needs to know (see repo). Each
// process waits its turn for a core on a loaded machine: in hookbench (a
// chain of four checkers, every result cached, on a clean 10,000-file
// tree, loaded 2-core machine) the hook took 1.86× a bare `git status`
// with a `rev-parse --show-toplevel -q --verify HEAD` before the status,
// 1.35× with the status alone. Outside a work tree it returns a Status
// with NotRepo set and no error; the error is for a ctx that ended.
func ReadStatus(ctx context.Context, dir string) (*Status, error) {
	if _, _, err := findGit(dir); errors.Is(err, errNoRepo) {
		return noRepo(dir), nil
	}
	st, _, err := readStatus(ctx, dir, false)
	return st, err
}

// noRepo is the Status of dir where git could find no repository
// (findGit's errNoRepo): git is not started there. A stop in a project
// outside git looks at its tree for progress, and a git that fails costs
// a process (hookbench's Gemini row, a repeated hold in a project outside
// git: 2.71× the floor with it, 1.89× without).
func noRepo(dir string) *Status {
	return &Status{Dir: dir, NotRepo: fmt.Errorf("not a git repository: no .git in %s or any directory above it", dir)}
}

// readStatus is ReadStatus once findGit has found a repository may be
// there; with ignored set, git also lists what it ignores
// (--ignored=matching), and readStatus returns the directories git
// ignores as a whole, relative to the top level, and leaves those
// entries out of st.Porcelain, which reads as without them.
func readStatus(ctx context.Context, dir string, ignored bool) (st *Status, ignoredDirs []string, err error) {
	st = &Status{Dir: dir}
	// core.fileMode=true: with false (set by git init on file systems
	// without an executable bit, or by hand) git hides chmod of tracked
	// files. --ignore-submodules=none: a submodule's own config must not
	// hide that it changed. --no-ahead-behind: counting against the
	// upstream costs time, and a fetch would change the state.
	args := []string{"-c", "core.fileMode=true"}
	if busy() {
		args = append(args, "-c", "core.preloadIndex=false")
	}
	args = append(args, "status", "--porcelain=v2", "--branch", "--no-ahead-behind",
		"-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=none")
	if ignored {
		// matching: a directory that matches an ignore pattern is
		// listed once ("! dir/"), its contents not looked at.
		args = append(args, "--ignored=matching")
	}
	out, err := git(ctx, dir, args...)
	switch {
	case err != nil && ended(err):
		return nil, nil, err
	case err != nil:
		// Not a git work tree, or one git cannot read, or no git.
		st.NotRepo = err
		return st, nil, nil
	}
	// Headers come first: "# branch.oid <commit>|(initial)", then
	// branch.head and maybe branch.upstream and branch.ab, which name
	// branches and say nothing about the files: only HEAD counts.
	for len(out) > 0 && out[0] == '#' {
		i := bytes.IndexByte(out, 0)
		if i < 0 {
			i = len(out) - 1
		}
		if oid, ok := bytes.CutPrefix(out[:i], []byte("# branch.oid ")); ok && string(oid) != "(initial)" {
			st.Head = string(oid)
		}
		out = out[i+1:]
	}
	if ignored {
		// Ignored entries are "! path\x00" and come last; a path ends
		// in a slash for a directory.
		var kept []byte
		for rest := out; len(rest) > 0; {
			entry, after, _ := bytes.Cut(rest, []byte{0})
			rest = after
			if path, ok := bytes.CutPrefix(entry, []byte("! ")); ok {
				if d, ok := bytes.CutSuffix(path, []byte("/")); ok {
					ignoredDirs = append(ignoredDirs, string(d))
				}
				continue
			}
			kept = append(append(kept, entry...), 0)
		}
		out = kept
	}
	st.Porcelain = out
	return st, ignoredDirs, nil
}

// busy reports whether the machine's cores are busy: a 1-minute load
// average over 1.5 per CPU. core.preloadIndex stats the index's files from
// several threads, which then wait for a core each: on 2 cores a
// 10,000-file status took 45 ms with it and 50 without at load 2.8, but 65
// against 61 at load 4.2 and 71 against 59 at load 5-10 (medians of 30
// interleaved runs). Reading the load costs microseconds; where there is
// no /proc/loadavg git's default stands.
func busy() bool {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return false
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return false
	}
	load, err := strconv.ParseFloat(f[0], 64)
	return err == nil && load > 1.5*float64(runtime.NumCPU())
}

// statusEntry is one entry of a porcelain status.
type statusEntry struct {
	raw       []byte // the entry, without its NUL
	path      string // relative to the top level
	untracked bool
}

// entries parses st.Porcelain.
func (st *Status) entries() []statusEntry {
	var out []statusEntry
	fields := bytes.Split(st.Porcelain, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 3 {
			continue
		}
		// The path is the last of a fixed number of space-separated
		// fields, so spaces in it survive.
		var n int
		switch f[0] {
		case '1':
			n = 9
		case '2':
			n = 10
		case 'u':
			n = 11
		case '?', '!':
			n = 2
		default:
			continue
		}
		parts := bytes.SplitN(f, []byte(" "), n)
		if len(parts) == n {
			out = append(out, statusEntry{raw: f, path: string(parts[n-1]), untracked: f[0] == '?' || f[0] == '!'})
		}
		if f[0] == '2' { // a rename's source follows (not with --no-renames)
			i++
		}
	}
	return out
}

// Paths returns the path of each entry of st.Porcelain, relative to the
// top level: tracked files as git lists them, untracked ones but for
// what counts for nothing in the state (by-products of the checks, and
// the files of dependency dirs, see byproducts.go). top is the top
// level, which telling a dependency dir needs; with "" only names decide.
func (st *Status) Paths(top string) []string {
	var paths []string
	for _, e := range st.entries() {
		if e.untracked && top != "" && skipped(top, e.path) {
			continue
		}
		paths = append(paths, e.path)
	}
	return paths
}

// StateOf fingerprints the work tree st was taken of (by the metadata of
// every file under st.Dir when it is in none), with c's stat cache as in
// State.
func (c Cache) StateOf(ctx context.Context, st *Status) (string, error) {
	f := c.fingerprinter(st.Dir)
	var s string
	var err error
	if st.NotRepo != nil {
		s, err = f.walk(ctx, st.Dir)
	} else {
		s, err = f.repo(ctx, st, 0)
	}
	// Hashes taken before a deadline cut the fingerprint short are kept:
	// the next stop starts where this one stopped.
	if !c.ReadOnly {
		f.stats.save(err == nil)
	}
	return s, err
}

// fingerprinter starts a state of the tree at dir, with c's stat cache
// of it (none when c.Dir is "").
func (c Cache) fingerprinter(dir string) *fingerprinter {
	f := &fingerprinter{start: now(), buf: make([]byte, readChunk)}
	if c.Dir != "" {
		f.stats = loadStats(c.statPath(dir))
	}
	return f
}

// fingerprinter computes one state.
type fingerprinter struct {
	start time.Time  // when fingerprinting began: the racy rule's reference
	stats *statCache // nil: hash every file
	buf   []byte
}

// repo fingerprints the work tree st was taken of, as seen from st.Dir.
func (f *fingerprinter) repo(ctx context.Context, st *Status, depth int) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "git3\x00%s\x00%s\x00", st.Dir, st.Head)
	if depth == 0 {
		// The installed state at the project and the top level, found
		// by looking for .git upwards: a clean tree costs no more
		// processes than its status.
		roots := []string{st.Dir}
		if root, _, err := findGit(st.Dir); err == nil {
			roots = append(roots, root)
		}
		deps, err := f.installed(ctx, roots...)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "deps\x00%d:%s", len(deps), deps)
	}
	entries := st.entries()
	if len(entries) == 0 {
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	// Entries name files from the top level: a dirty tree needs it.
	top, err := workTreeTop(ctx, st.Dir)
	if err != nil {
		return "", err
	}
	// With --no-renames each entry names one path. A nested repository is
	// listed as "? path/".
	for _, e := range entries {
		if e.untracked && skipped(top, e.path) {
			continue
		}
		h.Write(e.raw)
		h.Write([]byte{0})
		rec, err := f.entry(ctx, filepath.Join(top, e.path), depth)
		if err != nil {
			return "", err
		}
		// Length-prefixed, so no record can pass for another or its neighbours.
		fmt.Fprintf(h, "\x00%d:%s", len(rec), rec)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// workTreeTop returns the root of the work tree holding dir, which git
// status read: found by looking for .git upwards (findGit) where nothing
// can make git's answer another — a .git directory, no GIT_DIR,
// GIT_WORK_TREE or other variable that moves it, no core.worktree or
// include in the repository's config — else from git (toplevel). A stop
// after an edit (a dirty tree) started a second git process for it
// (measured: 56.6 ms against 41.6 ms for git status, loaded machine).
func workTreeTop(ctx context.Context, dir string) (string, error) {
	root, gitDir, err := findGit(dir)
	if err != nil || filepath.Join(root, ".git") != gitDir {
		return toplevel(ctx, dir) // none found, or a worktree or submodule
	}
	config, err := readRegular(filepath.Join(gitDir, "config"), maxGitFileBytes)
	lower := bytes.ToLower(config)
	if err != nil || bytes.Contains(lower, []byte("worktree")) || bytes.Contains(lower, []byte("include")) {
		return toplevel(ctx, dir)
	}
	return root, nil
}

// toplevel returns the root of the work tree holding dir, as git says.
func toplevel(ctx context.Context, dir string) (string, error) {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", err
	}
	// Trim the newline git ends with, and nothing else: a directory's name
	// may end in a space.
	return string(bytes.TrimSuffix(out, []byte("\n"))), nil
}

// entry describes one file git listed, by its kind: see the package doc.
func (f *fingerprinter) entry(ctx context.Context, path string, depth int) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", fmt.Errorf("fingerprint %s: %w", path, err)
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "gone", nil
	case err != nil:
		return "", fmt.Errorf("fingerprint %s: %w", path, err)
	case st.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return "", fmt.Errorf("fingerprint %s: %w", path, err)
		}
		return "link " + target, nil
	case st.IsDir():
		return f.nested(ctx, path, depth+1)
	case !st.Mode().IsRegular():
		return "special " + st.Mode().String(), nil
	}
	return f.regular(ctx, path, statOf(st))
}

// nested fingerprints a directory git listed: a submodule or a nested
// repository, whose changes the outer status sums up in one line.
func (f *fingerprinter) nested(ctx context.Context, dir string, depth int) (string, error) {
	if depth > maxNested {
		return "", fmt.Errorf("%s: %w (repositories nested over %d deep)", dir, ErrTooLarge, maxNested)
	}
	top, err := toplevel(ctx, dir)
	switch {
	case err != nil && ended(err):
		return "", err
	case err != nil:
		// A repository git will not read (broken, or owned by someone
		// else): its files' metadata stand for it.
		s, err := f.walk(ctx, dir)
		return "walk " + s, err
	case top != dir:
		// A plain directory in this work tree (a deleted tracked file's
		// path, now a directory): git lists its files one by one.
		return "dir", nil
	}
	st, err := ReadStatus(ctx, dir)
	switch {
	case err != nil:
		return "", err
	case st.NotRepo != nil:
		return "", st.NotRepo
	}
	s, err := f.repo(ctx, st, depth)
	return "repo " + s, err
}

// regular describes a regular file, whose Lstat gave st, by its mode and
// content, or by its metadata when it is larger than bigFile. A file whose
// metadata is what the stat cache remembers is not even opened.
func (f *fingerprinter) regular(ctx context.Context, path string, st stat) (string, error) {
	if st.Size > bigFile {
		return f.big(path, st)
	}
	if sum, ok := f.stats.lookup(path, st); ok {
		return fmt.Sprintf("file %o %s", st.Mode, sum), nil
	}
	// O_NOFOLLOW and regular.OpenFile: whatever replaced the file since
	// Lstat (a symlink, a FIFO) is never followed or blocked on.
	file, err := regular.OpenFile(path, os.O_RDONLY|regular.NoFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return "gone", nil
	}
	if err != nil {
		return "", fmt.Errorf("fingerprint %s: %w", path, err)
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return "", fmt.Errorf("fingerprint %s: %w", path, err)
	}
	if st = statOf(fi); st.Size > bigFile { // it grew since Lstat
		return f.big(path, st)
	}
	sum, err := f.hash(ctx, io.LimitReader(file, bigFile+1))
	if err != nil {
		return "", fmt.Errorf("fingerprint %s: %w", path, err)
	}
	// Remember the hash only if the file stood still while it was read
	// and is not racy (see statCache).
	if after, err := file.Stat(); err == nil && statOf(after) == st && !f.racy(st) {
		f.stats.store(path, st, sum)
	}
	return fmt.Sprintf("file %o %s", st.Mode, sum), nil
}

// big describes a file larger than bigFile by its metadata, which must be
// settled (see ErrUnsettled).
func (f *fingerprinter) big(path string, st stat) (string, error) {
	if f.racy(st) {
		return "", fmt.Errorf("fingerprint %s: %w", path, ErrUnsettled)
	}
	return "big " + st.String(), nil
}

// hash returns the SHA-256 of r, looking at ctx between chunks.
func (f *fingerprinter) hash(ctx context.Context, r io.Reader) (string, error) {
	h := sha256.New()
	for {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		n, err := r.Read(f.buf)
		h.Write(f.buf[:n])
		hashed.Add(int64(n))
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil)), nil
		}
		if err != nil {
			return "", err
		}
	}
}

// racy reports whether a file's metadata is too recent to stand for its
// content: changed (mtime) or touched in any way (ctime) less than
// racyMargin before fingerprinting began.
func (f *fingerprinter) racy(st stat) bool {
	return max(st.Mtime, st.Ctime) >= f.start.Add(-racyMargin).UnixNano()
}

// walk fingerprints a directory by the metadata of every file under it.
func (f *fingerprinter) walk(ctx context.Context, dir string) (string, error) {
	h := sha256.New()
	n := 0
	io.WriteString(h, "walk2\x00")
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("fingerprint %s: %w", path, err)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("fingerprint %s: %w", dir, err)
		}
		if n++; n > maxWalkFiles {
			return fmt.Errorf("%s: %w (over %d files)", dir, ErrTooLarge, maxWalkFiles)
		}
		if path != dir && (d.IsDir() && skippedDir(path) || !d.IsDir() && byproductFile(d.Name())) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("fingerprint %s: %w", path, err)
		}
		st := statOf(info)
		// A directory's times change with its entries, which are walked.
		if !d.IsDir() && f.racy(st) {
			return fmt.Errorf("fingerprint %s: %w", path, ErrUnsettled)
		}
		link := ""
		if d.Type()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(path); err != nil {
				return fmt.Errorf("fingerprint %s: %w", path, err)
			}
		}
		writeField(h, path)
		if d.IsDir() {
			// Its entries are walked, and its times change with them,
			// skipped by-products included: only its mode counts.
			writeField(h, "dir "+info.Mode().String())
		} else {
			writeField(h, st.String())
		}
		writeField(h, link)
		return nil
	})
	if err != nil {
		return "", err
	}
	deps, err := f.installed(ctx, dir)
	if err != nil {
		return "", err
	}
	writeField(h, deps)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ended reports whether err is a context's end: the fingerprint was cut
// short, as opposed to git finding no repository.
func ended(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// writeField writes s length-prefixed, so fields cannot run into each other.
func writeField(h hash.Hash, s string) {
	fmt.Fprintf(h, "%d:%s", len(s), s)
}

// Git runs a read-only git command in dir under a timeout (gitTimeout),
// for the checkers that ask git more than ReadStatus does.
func Git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return gitWith(ctx, dir, nil, args...)
}

// GitInput is Git with stdin: `git cat-file --batch` reads the objects it
// prints from it.
func GitInput(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	return gitWith(ctx, dir, stdin, args...)
}

// git runs a read-only git command in dir. At ctx's end, or when the hook
// is told to end (SIGTERM, SIGINT), its whole process group is killed: git
// status runs git in each submodule, and a core.fsmonitor hook may start
// more.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return gitWith(ctx, dir, nil, args...)
}

// gitWith is git with stdin, when it is not nil.
func gitWith(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	// core.fsmonitor names a program git runs at every status: one the
	// agent wrote into .git/config would run at every stop, outside the
	// host's sandbox. donegate's git runs none.
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "core.fsmonitor=false"}, args...)...)
	cmd.Dir = dir
	// Read-only: status must not take the index lock another git holds.
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	proc.OwnGroup(cmd)
	// A process that left the group and holds the pipe must not hold us.
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	done, err := proc.StartOwn(cmd)
	if err == nil {
		// Catching signals is set up once git runs, not before: the first
		// catch costs 1-2 ms (measured in the hook on a 2-core machine),
		// which git's own run now hides. A signal in that gap ends the
		// hook and leaves git to finish on its own; it takes no lock.
		sig, stopSignals := proc.EndOnSignal(ctx)
		stopAfter := context.AfterFunc(sig, cancel)
		err = cmd.Wait()
		stopAfter()
		stopSignals()
		done()
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, fmt.Errorf("git %s in %s: %w", strings.Join(args, " "), dir, cerr)
		}
		return nil, fmt.Errorf("git %s in %s: %w: %s", strings.Join(args, " "), dir, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return stdout.Bytes(), nil
}
