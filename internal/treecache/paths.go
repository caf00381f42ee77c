package treecache

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// ChangedPaths returns the paths (relative to the top level of the work
// tree st was taken of, slash-separated, sorted) that changed after t,
// when HEAD was at head: the files whose committed content differs
// between head and HEAD now (`git diff --name-only`, both sides of a
// rename; every file of HEAD where head is NoCommit), and those whose
// file was written, or whose inode changed, after t — each file git
// status lists (a deleted one by its directory's time), and each tracked
// one (one stat each, as ChangedSince's last look). What differed before
// t and was left alone does not count: the tree is compared with itself
// at t. A check's by-products count for nothing, as in the state. head
// "" is not read (the commits count by their files' times alone). It
// returns an error wrapping ErrUnknown outside git.
func ChangedPaths(ctx context.Context, st *Status, t time.Time, head string) ([]string, error) {
	if st.NotRepo != nil {
		return nil, fmt.Errorf("%w: not in a git work tree", ErrUnknown)
	}
	top, err := workTreeTop(ctx, st.Dir)
	if err != nil {
		return nil, err
	}
	changed := map[string]bool{}
	switch {
	case head == "" || head == st.Head:
	case head == NoCommit && st.Head != "":
		out, err := git(ctx, top, "ls-tree", "-r", "-z", "--name-only", "--full-tree", st.Head)
		if err != nil {
			return nil, err
		}
		addNames(changed, out)
	case st.Head == "":
		// The branch lost its commits: every file counts.
		out, err := git(ctx, top, "ls-files", "-z", "-co", "--exclude-standard")
		if err != nil {
			return nil, err
		}
		addNames(changed, out)
	default:
		out, err := git(ctx, top, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", head, st.Head, "--")
		if err != nil {
			return nil, fmt.Errorf("%w: what changed since %s: %w", ErrUnknown, head, err)
		}
		addNames(changed, out)
	}
	for _, p := range st.Paths(top) {
		full := filepath.Join(top, filepath.FromSlash(p))
		if _, err := os.Lstat(full); errors.Is(err, fs.ErrNotExist) {
			if after(filepath.Dir(full), t) {
				changed[strings.TrimSuffix(p, "/")] = true
			}
			continue
		}
		if after(full, t) {
			changed[strings.TrimSuffix(p, "/")] = true
		}
	}
	out, err := git(ctx, top, "ls-files", "-z")
	if err != nil {
		return nil, err
	}
	for _, p := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if len(p) > 0 && !changed[string(p)] && after(filepath.Join(top, filepath.FromSlash(string(p))), t) {
			changed[string(p)] = true
		}
	}
	paths := make([]string, 0, len(changed))
	for p := range changed {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths, nil
}

// NoCommit is the head ChangedPaths takes for a branch that had no
// commit yet.
const NoCommit = "-"

// addNames adds the NUL-separated names of out to set.
func addNames(set map[string]bool, out []byte) {
	for _, p := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		if len(p) > 0 {
			set[string(p)] = true
		}
	}
}

// Files returns the files under st.Dir that git tracks or would list as
// untracked (not ignored), relative to the top level, slash-separated;
// by-products and the files of dependency dirs left out, as in the
// state. Outside git it returns an error wrapping ErrUnknown.
func Files(ctx context.Context, st *Status) (top string, files []string, err error) {
	if st.NotRepo != nil {
		return "", nil, fmt.Errorf("%w: not in a git work tree", ErrUnknown)
	}
	if top, err = workTreeTop(ctx, st.Dir); err != nil {
		return "", nil, err
	}
	out, err := git(ctx, st.Dir, "ls-files", "-z", "-co", "--exclude-standard", "--full-name")
	if err != nil {
		return "", nil, err
	}
	for _, p := range bytes.Split(bytes.TrimSuffix(out, []byte{0}), []byte{0}) {
		if len(p) > 0 && !skipped(top, string(p)) {
			files = append(files, string(p))
		}
	}
	return top, files, nil
}

// Top returns the top level of the work tree holding dir, found as git
// would find it (see findGit); an error wrapping ErrUnknown where it
// cannot be told without git, or there is none.
func Top(dir string) (string, error) {
	root, _, err := findGit(dir)
	return root, err
}

// WorkTreeTop returns the top level of the work tree st was taken of, as
// git status saw it: from git where Top cannot tell.
func WorkTreeTop(ctx context.Context, st *Status) (string, error) {
	if st.NotRepo != nil {
		return "", fmt.Errorf("%w: not in a git work tree", ErrUnknown)
	}
	return workTreeTop(ctx, st.Dir)
}

// Stamp describes the file at path by its metadata, not followed if a
// link: its mode, size, modification and change times and inode, or
// "missing". A file rewritten gets another stamp — on Linux even with its
// old size and modification time given back (its change time moves; see
// statOf) — for one stat, whatever the file's size.
func Stamp(path string) string {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "missing"
	}
	if err != nil {
		return "unreadable: " + err.Error()
	}
	return statOf(fi).String()
}
