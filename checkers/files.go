package checkers

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/donegate/donegate/config"
)

// Files checks that required files exist. Paths are relative to the
// project dir unless absolute; a path with glob metacharacters (* ? [) must
// match at least one file (filepath.Match syntax; ** is not special).
//
// Only the configured path is a pattern: the project dir is taken as it
// is, so a project under "client [acme]" or "a\b" works. An absolute
// pattern is a pattern as a whole. A symbolic link counts by what it
// points to: a broken link or a loop of links is not a file that exists,
// whether it is named or matched.
type Files struct {
	Paths []string
}

// FilesOptions are a files checker's options.
type FilesOptions struct {
	// Paths must each exist, relative to the project dir; a glob (*, ?,
	// [...], no **) must match at least one file.
	Paths config.Patterns `json:"paths" validate:"min=1,dive,required"`
}

// The files checker type.
var _ = declare("files", func() *Type {
	return register(Type{
		Name:         "files",
		ProjectState: true,
		Summary:      "every path exists; a glob must match at least one file",
		DefaultOn:    projectReasons,
		Patterns:     []string{"files-missing"},
		Example:      `{"type": "files", "paths": ["a"]}`,
	}, func(o *FilesOptions) (Checker, error) {
		return Files{Paths: o.Paths}, nil
	}, func(o *FilesOptions) string {
		return "required files exist: " + strings.Join(o.Paths, ", ")
	})
})

// Check implements Checker.
func (f Files) Check(_ context.Context, c *Context) (Result, error) {
	var missing []map[string]any
	for _, p := range f.Paths {
		var ok bool
		var why string
		var err error
		if config.IsGlob(p) {
			ok, why, err = globExists(c.ProjectDir, p)
		} else {
			ok, why, err = fileExists(c.ProjectDir, p)
		}
		if err != nil {
			return Result{}, err
		}
		if !ok {
			missing = append(missing, map[string]any{"Path": p, "Why": string(why)})
		}
	}
	if len(missing) > 0 {
		// files-missing: Missing, each path (as configured) that is not
		// there, with Why it does not count ("" when nothing is there, "a
		// broken symlink", "matches only ..."); Total, the paths required.
		return c.Fail("files-missing", map[string]any{"Missing": missing, "Total": len(f.Paths)}), nil
	}
	return OK(fmt.Sprintf("All %d required file(s) exist.", len(f.Paths))), nil
}

// fileExists reports whether the path p exists, and when it does not but
// something is there, what ("a broken symlink").
func fileExists(projectDir, p string) (bool, string, error) {
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(projectDir, p)
	}
	kind, err := exists(full)
	if err != nil {
		return false, "", fmt.Errorf("files: %s: %w", p, err)
	}
	switch kind {
	case present:
		return true, "", nil
	case absent:
		return false, "", nil
	}
	return false, string(kind), nil
}

// maxNamed is how many matches that do not count a glob's feedback names.
const maxNamed = 3

// globExists reports whether the pattern p matches a file that exists,
// and when it does not but matches something, what ("matches only a, a
// broken symlink").
//
// The pattern is split into its leading components that hold no
// metacharacter (* ? [ \), a directory taken literally, and the rest,
// matched with fs.Glob inside that directory. Joining the project dir into
// the pattern, as filepath.Glob needs, made the dir's own brackets and
// backslashes part of the pattern: a project under "client [acme]" had no
// files at all.
func globExists(projectDir, p string) (bool, string, error) {
	// Clean only drops "." and "a/.." and doubled slashes; filepath.Glob
	// never matched ".." after a wildcard either.
	clean := filepath.Clean(p)
	parts := strings.Split(clean, string(filepath.Separator))
	i := 0
	for i < len(parts) && !strings.ContainsAny(parts[i], `*?[\`) {
		i++
	}
	lit := strings.Join(parts[:i], string(filepath.Separator))
	if filepath.IsAbs(clean) && lit == "" {
		lit = string(filepath.Separator)
	}
	dir := lit
	if !filepath.IsAbs(clean) {
		dir = filepath.Join(projectDir, lit)
	}
	if dir == "" {
		dir = "." // no project dir: the working directory, as for a plain path
	}
	matches, err := globIn(dir, strings.Join(parts[i:], "/"))
	if err != nil {
		// fs.Glob's only error is path.ErrBadPattern; the syntax is
		// filepath.Match's, whose error the config's check reports.
		return false, "", fmt.Errorf("files: pattern %q: %w", p, filepath.ErrBadPattern)
	}
	if len(matches) == 0 {
		return false, "", nil
	}
	var dead []string
	for _, m := range matches {
		kind, err := exists(filepath.Join(dir, filepath.FromSlash(m)))
		if err != nil {
			return false, "", fmt.Errorf("files: pattern %q: %w", p, err)
		}
		switch kind {
		case present:
			return true, "", nil
		case absent: // removed since the directory was read
		default:
			if len(dead) < maxNamed {
				dead = append(dead, fmt.Sprintf("%s, %s", filepath.Join(lit, filepath.FromSlash(m)), kind))
			}
		}
	}
	if len(dead) == 0 {
		return false, "", nil
	}
	return false, "matches only " + strings.Join(dead, "; "), nil
}

// presence is what a path is, for the files checker.
type presence string

const (
	present presence = ""
	absent  presence = "absent"
	broken  presence = "a broken symlink"
	loop    presence = "a symlink loop"
)

// exists tells a path that exists (a directory counts, a symbolic link by
// what it points to) from one that does not, and names why not when the
// path itself is there. An error means it cannot be told, as when a
// directory on the way cannot be searched.
func exists(path string) (presence, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return present, nil
	case errors.Is(err, syscall.ELOOP):
		return loop, nil
	case errors.Is(err, fs.ErrNotExist):
		if st, lerr := os.Lstat(path); lerr == nil && st.Mode()&fs.ModeSymlink != 0 {
			return broken, nil
		}
		return absent, nil
	case errors.Is(err, syscall.ENOTDIR):
		// A file stands where a directory of the path should be.
		return absent, nil
	}
	return absent, err
}
