package treecache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrUnknown is wrapped by ChangedSince's error when it cannot tell:
// the dir is in no git work tree.
var ErrUnknown = errors.New("cannot tell what changed")

// ChangedSince reports whether the working tree at st.Dir changed after
// t: HEAD moved (its reflog was written), or a file git lists as
// differing from HEAD or untracked (a check's by-product aside, see
// byproducts.go) was written, or one of them deleted
// (its directory was written), or a tracked file was written, after t.
// Files that differed before t and were left alone do not count: the
// tree is compared with itself at t, not with HEAD. A tracked file made
// equal to HEAD again (an edit undone, a fix reverted) is no longer
// listed, so when no listed file changed every tracked one is looked at:
// one git ls-files and a stat per file, paid at the stops of a session
// that has changed nothing yet (the listed files usually answer first).
// Besides that, it costs what st cost (one git status, which the caller
// usually shares) and a stat per listed file. Outside git it cannot tell.
func ChangedSince(ctx context.Context, st *Status, t time.Time) (bool, error) {
	if st.NotRepo != nil {
		return false, ErrUnknown
	}
	root, gitDir, err := findGit(st.Dir)
	if err != nil {
		return false, err
	}
	if after(filepath.Join(gitDir, "logs", "HEAD"), t) {
		return true, nil
	}
	for _, p := range st.Paths(root) {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		full := filepath.Join(root, filepath.FromSlash(p))
		if _, err := os.Lstat(full); errors.Is(err, fs.ErrNotExist) {
			if after(filepath.Dir(full), t) {
				return true, nil
			}
			continue
		}
		if after(full, t) {
			return true, nil
		}
	}
	out, err := git(ctx, root, "ls-files", "-z")
	if err != nil {
		return false, err
	}
	return anyAfter(ctx, root, bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}), t)
}

// anyAfter reports whether any of paths (relative to root, slash
// separated) was written after t. A tracked tree may hold tens of
// thousands of files, a system call each: a large one is looked at by a
// few goroutines at once (BenchmarkChangedSinceNothingChanged, 10,000
// files on 2 cores: 22 ms with git ls-files, 29 ms one file at a time).
func anyAfter(ctx context.Context, root string, paths [][]byte, t time.Time) (bool, error) {
	const workers, least = 4, 512
	var found atomic.Bool
	look := func(part [][]byte) {
		for _, p := range part {
			if found.Load() || ctx.Err() != nil {
				return
			}
			if len(p) > 0 && after(filepath.Join(root, filepath.FromSlash(string(p))), t) {
				found.Store(true)
				return
			}
		}
	}
	if len(paths) < least {
		look(paths)
	} else {
		var wg sync.WaitGroup
		chunk := (len(paths) + workers - 1) / workers
		for from := 0; from < len(paths); from += chunk {
			part := paths[from:min(from+chunk, len(paths))]
			wg.Go(func() { look(part) })
		}
		wg.Wait()
	}
	if found.Load() {
		return true, nil
	}
	return false, ctx.Err()
}

// after reports whether the file at path was modified, or its inode
// changed, after t.
func after(path string, t time.Time) bool {
	mtime, ctime, ok := lstatTimes(path)
	return ok && (mtime > t.UnixNano() || ctime > t.UnixNano())
}

// errNoRepo is findGit's error where git, run in the directory, would
// find no repository: no .git, nor a directory a bare repository could be,
// in it or any directory above it. A type rather than fmt.Errorf: a
// package-level value is built at every hook's start, most of which never
// look for git (see docs/performance.md, "What a hook's start costs").
var errNoRepo error = noRepoError{}

type noRepoError struct{}

func (noRepoError) Error() string {
	return ErrUnknown.Error() + ": no .git in the directory or any above it"
}
func (noRepoError) Unwrap() error { return ErrUnknown }

// findGit finds the work tree's top level above dir and its git dir
// (.git, or where a .git file points: a worktree, a submodule), looking
// for .git upwards rather than starting git as toplevel does: it runs at
// stops, where a process costs milliseconds. It walks up as git does:
// from dir's physical path (a symbolic link in dir's path would otherwise
// lead it to another repository's .git than git's), taking dir/.git
// first, then dir itself when it may be a bare repository's git dir. Where
// git's answer could be another than its own it returns ErrUnknown: a
// variable pointing git elsewhere (GIT_DIR, ...), a .git it cannot read as
// git would (a link, an unreadable file), or a level holding a HEAD file.
// It returns errNoRepo when there is nothing git could find.
func findGit(dir string) (root, gitDir string, err error) {
	if gitMoved() {
		return "", "", ErrUnknown
	}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrUnknown, err)
	}
	if d, err = filepath.Abs(d); err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrUnknown, err)
	}
	for {
		p := filepath.Join(d, ".git")
		info, err := os.Lstat(p)
		switch {
		case err == nil && info.IsDir():
			return d, p, nil
		case err == nil && info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return "", "", fmt.Errorf("%w: %w", ErrUnknown, err)
			}
			g, ok := strings.CutPrefix(string(bytes.TrimSpace(data)), "gitdir: ")
			if !ok {
				return "", "", ErrUnknown
			}
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			return d, g, nil
		case err == nil || !errors.Is(err, fs.ErrNotExist):
			return "", "", ErrUnknown // a link, or a .git git may read otherwise
		}
		// Not d/.git: git then takes d itself for a git dir when it
		// holds HEAD, objects/ and refs/. A HEAD is enough to ask git.
		if _, err := os.Lstat(filepath.Join(d, "HEAD")); !errors.Is(err, fs.ErrNotExist) {
			return "", "", ErrUnknown
		}
		up := filepath.Dir(d)
		if up == d {
			return "", "", errNoRepo
		}
		d = up
	}
}

// gitMovers are the variables that make git find the repository, or its
// work tree, or read config, otherwise than by looking for .git upwards.
var gitMovers = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"}

// gitMoved reports whether one of gitMovers is set.
func gitMoved() bool {
	for _, v := range gitMovers {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}
