// Package safewrite replaces the files closer writes (a project's
// .claude/donegate.json and settings.json, the user's settings, their
// .bak copies) so that nothing a repository holds can turn the write
// elsewhere.
//
// A repository is data its cloner did not vet: a committed symbolic link
// at .claude/settings.json.bak pointing at ~/.bashrc would have a write
// that follows links (os.WriteFile) overwrite the cloner's ~/.bashrc.
// So a write here never opens the
// destination: the new content goes to a temporary file created
// exclusively (O_EXCL, mode 0600 until chmod) in the destination's own
// directory, is synced, and is renamed over the destination; rename(2)
// replaces a link, never its target. Before that, Check refuses what is
// at the destination unless it is absent or a regular file, and refuses
// a directory that resolves outside the root the write belongs to.
//
// It must not follow a link at any destination, nor create a file
// wider than the mode it is given.
package safewrite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/donegate/donegate/internal/regular"
)

// ErrOutside is wrapped by the error for a destination whose directory
// resolves outside its root.
var ErrOutside = errors.New("outside")

// Check returns an error unless path can be replaced safely: nothing is
// there, or a regular file (never a link, a FIFO, a device or a
// directory), and path's directory, its links resolved, is root or
// inside it. Directories that do not exist yet are checked by their
// nearest existing ancestor, which Replace will create them under.
func Check(root, path string) error {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return &fs.PathError{Op: "replace", Path: path, Err: fmt.Errorf("%w (%s): closer writes no file through a link, and no FIFO or device", regular.ErrNotRegular, regular.Kind(st.Mode()))}
	}
	return within(root, filepath.Dir(path))
}

// within returns an error unless dir resolves to root or below it.
func within(root, dir string) error {
	realRoot, err := resolve(root)
	if err != nil {
		return err
	}
	real, err := resolve(dir)
	if err != nil {
		return err
	}
	if !Inside(realRoot, real) {
		return &fs.PathError{Op: "replace", Path: dir, Err: fmt.Errorf("%w %s: it resolves to %s", ErrOutside, root, real)}
	}
	return nil
}

// resolve is filepath.EvalSymlinks for a path that may not exist yet:
// its nearest existing ancestor resolved, the rest joined to it.
func resolve(path string) (string, error) {
	existing, rest := filepath.Clean(path), ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			break
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	return filepath.Join(real, rest), nil
}

// Inside reports whether path is root or below it; both must be clean
// absolute paths with their links resolved.
func Inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	// The system's separator: on Windows Rel gives ..\x, which a test
	// for ../ let through as inside.
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Replace gives path the content data and the permission bits perm
// (of which only the 0777 bits are used), after Check(root, path): the
// directories missing are created (0755), the data written to a
// temporary file created exclusively beside path, synced, and renamed
// over it. A crash leaves the old file or the new one, whole.
func Replace(root, path string, data []byte, perm fs.FileMode) error {
	if err := Check(root, path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	// Again, now that the directories exist: MkdirAll follows links.
	if err := within(root, dir); err != nil {
		return err
	}
	// CreateTemp opens with O_CREATE|O_EXCL and mode 0600: a name that
	// exists, a link included, is never opened.
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, nothing
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm & 0o777)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The rename is durable once the directory is synced; a failure
	// here leaves the new file in place, so it is not reported.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}
