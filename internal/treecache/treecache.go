// Package treecache remembers the results of commands (a test suite) by
// the state of the working tree they ran on, so a Stop hook that fires on
// every turn never runs the same tests twice on the same tree.
//
// In a git work tree the state is: HEAD, the output of
// `git status --porcelain -z --untracked-files=all` (every tracked file
// that differs from HEAD, staged or not, and every untracked file that is
// not ignored) and a hash of the content of each of those files. Any edit
// to a tracked file, a new untracked file, a commit or checkout changes it.
// Ignored files do not count. Outside git it is the path, size, mode and
// modification time of every file under the project dir.
//
// The package never runs the command itself and never decides anything.
package treecache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/donegate/donegate/internal/proc"
)

// gitTimeout bounds each git command; a cache key is never worth waiting for.
const gitTimeout = 10 * time.Second

// maxWalkFiles bounds the walk outside git: a tree larger than this is not
// cached rather than walked for a long time.
const maxWalkFiles = 50_000

// ErrTooLarge is returned for a non-git tree with too many files.
var ErrTooLarge = errors.New("tree too large to fingerprint")

// State fingerprints the working tree at dir.
func State(ctx context.Context, dir string) (string, error) {
	h := sha256.New()
	top, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		if err := walk(h, dir); err != nil {
			return "", err
		}
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	top = bytes.TrimSpace(top)
	head, _ := git(ctx, dir, "rev-parse", "-q", "--verify", "HEAD") // empty in a new repository
	status, err := git(ctx, string(top), "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return "", err
	}
	rel, _ := filepath.Rel(string(top), dir)
	fmt.Fprintf(h, "git\x00%s\x00%s\x00", rel, bytes.TrimSpace(head))
	h.Write(status)
	// Entries are "XY path\x00"; with --no-renames each names one path.
	for _, entry := range bytes.Split(status, []byte{0}) {
		if len(entry) < 4 {
			continue
		}
		path := filepath.Join(string(top), string(entry[3:]))
		h.Write([]byte{0})
		if err := hashFile(h, path); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	ctx, stopSignals := proc.EndOnSignal(ctx)
	defer stopSignals()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	// Read-only: status must not take the index lock another git holds.
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s in %s: %w: %s", args[0], dir, err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

// hashFile writes a file's content (a symlink's target, or a marker for a
// missing file) into h.
func hashFile(h io.Writer, path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		_, err = io.WriteString(h, "deleted")
		return err
	case err != nil:
		return fmt.Errorf("fingerprint %s: %w", path, err)
	case st.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(path)
		if err != nil {
			return fmt.Errorf("fingerprint %s: %w", path, err)
		}
		_, err = io.WriteString(h, "link:"+target)
		return err
	case st.IsDir():
		// An untracked nested repository: its own state is not ours.
		_, err = io.WriteString(h, "dir")
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("fingerprint %s: %w", path, err)
	}
	defer f.Close()
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("fingerprint %s: %w", path, err)
	}
	return nil
}

func walk(h io.Writer, dir string) error {
	n := 0
	fmt.Fprintf(h, "walk\x00")
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("fingerprint %s: %w", path, err)
		}
		if n++; n > maxWalkFiles {
			return fmt.Errorf("%s: %w (over %d files)", dir, ErrTooLarge, maxWalkFiles)
		}
		info, err := d.Info()
		if err != nil {
			return fmt.Errorf("fingerprint %s: %w", path, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00%o\x00%d\x00", path, info.Size(), info.Mode(), info.ModTime().UnixNano())
		return nil
	})
}
