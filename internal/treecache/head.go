package treecache

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/donegate/donegate/internal/regular"
)

// maxRefBytes bounds HEAD and a loose ref read; maxPackedRefsBytes the
// packed-refs file.
const (
	maxRefBytes        = 4 << 10
	maxPackedRefsBytes = 16 << 20
)

// Head names the commit HEAD is at in the git work tree that holds dir,
// read from the repository's files (HEAD, then the branch's loose ref or
// packed-refs; a worktree's refs in its common dir) without running git:
// a hook may note it at a session's start for little more than three
// small reads. Each file is read only if regular, and bounded. A branch
// with no commit yet is "". Outside git, or where the files cannot be
// read, it is an error.
func Head(dir string) (string, error) {
	_, gitDir, err := findGit(dir)
	if err != nil {
		return "", err
	}
	head, err := readSmall(filepath.Join(gitDir, "HEAD"), maxRefBytes)
	if err != nil {
		return "", err
	}
	ref, symbolic := strings.CutPrefix(strings.TrimSpace(head), "ref: ")
	if !symbolic {
		return ref, nil // detached: the commit itself
	}
	common := gitDir
	if c, err := readSmall(filepath.Join(gitDir, "commondir"), maxRefBytes); err == nil {
		common = strings.TrimSpace(c)
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
	}
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return "", fmt.Errorf("%w: HEAD names %q", ErrUnknown, ref)
	}
	if loose, err := readSmall(filepath.Join(common, filepath.FromSlash(ref)), maxRefBytes); err == nil {
		return strings.TrimSpace(loose), nil
	}
	f, err := regular.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return "", nil // neither loose nor packed: a branch with no commit
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxPackedRefsBytes))
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	for sc.Scan() {
		line := sc.Bytes()
		if hash, name, ok := bytes.Cut(line, []byte{' '}); ok && string(name) == ref {
			return string(hash), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("%w: packed-refs: %w", ErrUnknown, err)
	}
	return "", nil
}

// readSmall reads the regular file at path, at most max bytes.
func readSmall(path string, max int64) (string, error) {
	f, err := regular.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return "", err
	}
	if int64(len(data)) > max {
		return "", errors.New(path + ": larger than expected")
	}
	return string(data), nil
}
