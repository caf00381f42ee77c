package treecache

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ErrUnknown is wrapped by ChangedSince's error when it cannot tell:
// the dir is in no git work tree.
var ErrUnknown = errors.New("cannot tell what changed")

// ChangedSince reports whether the working tree at st.Dir changed after
// t: HEAD moved (its reflog was written), or a file git lists as
// differing from HEAD or untracked (a check's by-product aside, see
// byproducts.go) was written, or one of them deleted
// (its directory was written), after t. Files that differed before t and
// were left alone do not count: the tree is compared with itself at t,
// not with HEAD. It costs what st cost (one git status, which the caller
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
	return false, nil
}

// after reports whether the file at path was modified, or its inode
// changed, after t.
func after(path string, t time.Time) bool {
	info, err := os.Lstat(path)
	if err != nil {
		return false
	}
	st := statOf(info)
	return st.Mtime > t.UnixNano() || st.Ctime > t.UnixNano()
}

// findGit finds the work tree's top level above dir and its git dir
// (.git, or where a .git file points: a worktree, a submodule), looking
// for .git upwards rather than starting git as toplevel does: it runs at
// stops, where a process costs milliseconds.
func findGit(dir string) (root, gitDir string, err error) {
	for d := dir; ; {
		p := filepath.Join(d, ".git")
		info, err := os.Lstat(p)
		switch {
		case err == nil && info.IsDir():
			return d, p, nil
		case err == nil && info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return "", "", err
			}
			g, ok := strings.CutPrefix(string(bytes.TrimSpace(data)), "gitdir: ")
			if !ok {
				return "", "", ErrUnknown
			}
			if !filepath.IsAbs(g) {
				g = filepath.Join(d, g)
			}
			return d, g, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", "", ErrUnknown
		}
		d = up
	}
}
