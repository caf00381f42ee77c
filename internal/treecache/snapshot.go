package treecache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
)

// A snapshot answers a look at a work tree that has not changed since the
// last one without starting git: a stop on a clean 10,000-file tree costs
// one `git status` (46-58 ms on the 2-core test machine), most of the
// hook's time where a result is reused. The snapshot holds git's last
// answer (Status) with a digest of the metadata of everything that answer
// came from: every file and directory of the work tree but the
// directories git ignores as a whole and .git, and the files git reads
// besides (HEAD and the refs, the index, config and ignore files, git
// itself). The next look walks the tree again, by the same rules; the
// same digest means git would print the same thing, so its last answer
// stands. Any difference, or anything the walk cannot vouch for, and git
// is asked, as before.
//
// Why the same metadata means the same answer:
//
//   - The walk begins before git runs (and may go on beside it, see
//     walk). A change after the walk looked at an entry gives it a new
//     change time (ctime), which nothing but the kernel sets: the next
//     walk differs. A change before is in git's answer too.
//   - A file changed within the clock's tick before the walk could
//     change again in the same tick and keep its metadata (git's "racily
//     clean" files): a walk that meets a file changed less than two
//     ticks before it began makes no snapshot (see treeWalk.racy).
//   - Every directory git looks into is walked, its entries listed: new
//     and removed ones are in the digest (its own times are not: they
//     change with entries that come and go again). A directory is
//     skipped only where git said, at the look the snapshot holds, that
//     it ignores it as a whole (it then never looks inside); the ignore
//     rules are in the walk (.gitignore files) or among the files read
//     besides.
//   - What else decides git's answer is in the snapshot's key (the
//     directory, the work tree, git's path, the GIT_ variables set, HOME,
//     XDG_CONFIG_HOME and PATH) or among the files read besides. Where it
//     cannot be known without git, there is no snapshot: a repository
//     whose .git is not a directory at the top level (a worktree, a
//     submodule), config with an include or another ref storage, a GIT_
//     variable that may name a file git reads (see gitHarmless), a nested
//     repository or submodule in the tree, a .gitignore or
//     .gitattributes that is a link, a tree over maxWalkFiles entries,
//     any system but Linux (statOf's change time).
//
// The directories to skip come from the previous look, so a snapshot is
// made at the second look at a tree and used from the third.
type snapshot struct {
	Version int    `json:"version"`
	Key     string `json:"key"`
	// Skip are the directories the walk leaves out, relative to the top
	// level: the ones git ignored as a whole at the look below.
	Skip []string `json:"skip"`
	// Sum is the walk's digest, taken before that look; "" when the walk
	// could not vouch for it (then only Skip is kept, for the next walk).
	Sum string `json:"sum,omitempty"`
	// TooLarge: a walk skipping Skip met more than maxWalkFiles entries;
	// none is tried again while git ignores the same directories.
	TooLarge  bool   `json:"too_large,omitempty"`
	Head      string `json:"head"`
	Porcelain []byte `json:"porcelain"`
}

// snapshotVersion changes with what a walk's digest covers.
const snapshotVersion = 1

// maxSnapshotBytes bounds a snapshot read: its porcelain is a dirty
// tree's status, which lists each changed or untracked file once.
const maxSnapshotBytes = 64 << 20

// snapshotAnswers counts the looks a snapshot answered, for the tests
// that prove it answers (git's processes are counted where they can be).
var snapshotAnswers atomic.Int64

// errNoSnapshot is a walk's answer where a snapshot cannot stand for git:
// something changed too recently, a nested repository, a tree too large.
var errNoSnapshot = errors.New("no snapshot")

// ReadStatus is the package's ReadStatus, answered from the snapshot of
// dir's work tree in c.Dir where nothing git reads changed since it was
// taken, and keeping one for the next look (unless c.ReadOnly). With
// c.Dir "" it is ReadStatus.
func (c Cache) ReadStatus(ctx context.Context, dir string) (*Status, error) {
	if c.Dir == "" {
		return ReadStatus(ctx, dir)
	}
	// One look upwards for .git serves both: whether git can find a
	// repository, and where the walk starts.
	top, gitDir, err := findGit(dir)
	if errors.Is(err, errNoRepo) {
		return noRepo(dir), nil
	}
	var w *treeWatch
	if err == nil {
		w = newTreeWatch(dir, top, gitDir)
	}
	if w == nil {
		st, _, err := readStatus(ctx, dir, false)
		return st, err
	}
	path := c.projectFile("tree-", dir)
	old := loadSnapshot(path)
	if old != nil && (old.Version != snapshotVersion || old.Key != w.key) {
		old = nil
	}
	// The walk begins before git's look: see snapshot.
	sum, walkErr := "", errNoSnapshot
	var walked chan struct{}
	var hot []string
	if old != nil {
		hot = w.hot(old)
	}
	switch {
	case old == nil || old.TooLarge:
	case old.Sum != "":
		// Expected to stand: git runs only if it does not.
		sum, walkErr = w.walk(ctx, old.Skip, hot, now())
		if walkErr == nil && sum == old.Sum {
			snapshotAnswers.Add(1)
			return &Status{Dir: dir, Head: old.Head, Porcelain: old.Porcelain}, nil
		}
		if ended(walkErr) {
			return nil, walkErr
		}
	case !c.ReadOnly:
		// Nothing to compare with: the walk is for the next look's
		// snapshot, and git runs beside it. It begins before git, which
		// is all the snapshot needs (see walk).
		walked = make(chan struct{})
		start := now()
		go func() {
			defer close(walked)
			sum, walkErr = w.walk(ctx, old.Skip, hot, start)
		}()
	}
	st, ignored, err := readStatus(ctx, dir, true)
	if walked != nil {
		<-walked
	}
	if err != nil || st.NotRepo != nil || c.ReadOnly {
		return st, err
	}
	next := &snapshot{Version: snapshotVersion, Key: w.key, Skip: ignored, Head: st.Head, Porcelain: st.Porcelain}
	if old != nil && slices.Equal(old.Skip, ignored) {
		// The walk skipped what git ignores now.
		switch {
		case walkErr == nil:
			next.Sum = sum
		case errors.Is(walkErr, ErrTooLarge), old.TooLarge:
			next.TooLarge = true
		}
	}
	if data, err := json.Marshal(next); err == nil {
		// A snapshot not written costs the next look a git process.
		_ = writeAtomic(filepath.Dir(path), filepath.Base(path), data)
	}
	return st, nil
}

// maxHot bounds the paths a walk looks at first.
const maxHot = 1000

// hot returns the paths git listed at the look old holds, where the agent
// is likely working: a walk looks at them first (see walk).
func (w *treeWatch) hot(old *snapshot) []string {
	var paths []string
	for _, e := range (&Status{Porcelain: old.Porcelain}).entries() {
		if len(paths) == maxHot {
			break
		}
		if filepath.IsLocal(e.path) {
			paths = append(paths, filepath.Join(w.top, e.path))
		}
	}
	return paths
}

// loadSnapshot reads the snapshot at path; nil if there is none that reads.
func loadSnapshot(path string) *snapshot {
	data, err := readRegular(path, maxSnapshotBytes)
	var s snapshot
	if err != nil || json.Unmarshal(data, &s) != nil {
		return nil
	}
	return &s
}

// treeWatch is what a walk of one work tree looks at.
type treeWatch struct {
	top string
	key string
	// besides are the files outside the walk whose contents git reads:
	// their metadata (following links, as git reads them) is in the digest.
	besides []string
}

// newTreeWatch returns what a walk of the work tree holding dir looks at,
// top and gitDir as findGit found them, or nil where a walk cannot vouch
// for git's answer (see snapshot).
func newTreeWatch(dir, top, gitDir string) *treeWatch {
	if !canWalk || filepath.Join(top, ".git") != gitDir {
		return nil
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return nil
	}
	if gitPath, err = filepath.Abs(gitPath); err != nil {
		return nil
	}
	home := os.Getenv("HOME")
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	// The system config is under git's prefix: /etc/gitconfig for
	// /usr/bin/git, /usr/local/etc/gitconfig for /usr/local/bin/git.
	prefix := filepath.Dir(filepath.Dir(gitPath))
	configs := []string{
		"/etc/gitconfig",
		filepath.Join(prefix, "etc", "gitconfig"),
		filepath.Join(gitDir, "config"),
		filepath.Join(gitDir, "config.worktree"),
	}
	excludes, attributes := "", ""
	if xdg != "" {
		configs = append(configs, filepath.Join(xdg, "git", "config"))
		excludes, attributes = filepath.Join(xdg, "git", "ignore"), filepath.Join(xdg, "git", "attributes")
	}
	if home != "" {
		configs = append(configs, filepath.Join(home, ".gitconfig"))
	}
	for _, p := range configs {
		data, err := readRegular(p, maxGitFileBytes)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil
		}
		lower := bytes.ToLower(data)
		// An include names more config; a worktree setting moves the
		// tree; another ref storage keeps refs where the walk does not
		// look.
		for _, word := range []string{"include", "worktree", "refstorage"} {
			if bytes.Contains(lower, []byte(word)) {
				return nil
			}
		}
		// The last setting wins, as in git, whose files are read in the
		// order above but for the system one (read first either way).
		ok := true
		if excludes, ok = configPath(data, "excludesfile", excludes, home); !ok {
			return nil
		}
		if attributes, ok = configPath(data, "attributesfile", attributes, home); !ok {
			return nil
		}
	}
	besides := append(configs, gitPath,
		filepath.Join(gitDir, "HEAD"), filepath.Join(gitDir, "index"), filepath.Join(gitDir, "packed-refs"),
		filepath.Join(gitDir, "shallow"), filepath.Join(gitDir, "refs", "replace"),
		filepath.Join(gitDir, "info", "exclude"), filepath.Join(gitDir, "info", "attributes"),
		filepath.Join(gitDir, "info", "grafts"), filepath.Join(gitDir, "info", "sparse-checkout"))
	besides = append(besides, "/etc/gitattributes", filepath.Join(prefix, "etc", "gitattributes"))
	if excludes != "" {
		besides = append(besides, excludes)
	}
	if attributes != "" {
		besides = append(besides, attributes)
	}
	// The branch HEAD names, as a loose ref (packed-refs is above).
	if head, err := readRegular(filepath.Join(gitDir, "HEAD"), maxGitFileBytes); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
			if !filepath.IsLocal(ref) {
				return nil
			}
			besides = append(besides, filepath.Join(gitDir, ref))
		}
	}
	env := os.Environ()
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") && !gitHarmless(name) {
			return nil // it may name a file git reads: the index, config
		}
	}
	h := sha256.New()
	writeField(h, "key1")
	for _, s := range []string{dir, top, gitPath} {
		writeField(h, s)
	}
	slices.Sort(env)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GIT_") || name == "HOME" || name == "XDG_CONFIG_HOME" || name == "PATH" {
			writeField(h, kv)
		}
	}
	return &treeWatch{top: top, key: hex.EncodeToString(h.Sum(nil)), besides: besides}
}

// gitHarmless reports whether a GIT_ variable leaves git status's answer
// as it is: who commits, how git prompts, pages and traces.
func gitHarmless(name string) bool {
	for _, p := range []string{"GIT_AUTHOR_", "GIT_COMMITTER_", "GIT_TRACE", "GIT_SSH", "GIT_SSL_", "GIT_HTTP_", "GIT_CURL_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	switch name {
	case "GIT_TERMINAL_PROMPT", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_ASKPASS",
		"GIT_MERGE_AUTOEDIT", "GIT_OPTIONAL_LOCKS", "GIT_PROTOCOL_FROM_USER":
		return true
	}
	return false
}

// configPath returns the path the last "name = value" line of git config
// data sets (in any section: a false match only adds a file to look at),
// or def where none does. ok is false for a value it cannot read as git
// would (quoted, escaped, ~user).
func configPath(data []byte, name, def, home string) (path string, ok bool) {
	path = def
	for line := range strings.Lines(string(data)) {
		k, v, found := strings.Cut(line, "=")
		if !found || !strings.EqualFold(strings.TrimSpace(k), name) {
			continue
		}
		v = strings.TrimSpace(v)
		if strings.ContainsAny(v, "\"\\;#") || strings.HasPrefix(v, "~") && !strings.HasPrefix(v, "~/") {
			return "", false
		}
		if rest, ok := strings.CutPrefix(v, "~/"); ok {
			if home == "" {
				return "", false
			}
			v = filepath.Join(home, rest)
		}
		if !filepath.IsAbs(v) {
			return "", false // relative to where git runs: not worth the guess
		}
		path = v
	}
	return path, true
}
