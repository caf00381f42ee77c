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

// FilesType is the files checker's type.
var FilesType = register(Type{
	Name:      "files",
	Summary:   "every path exists; a glob must match at least one file",
	Options:   (*FilesOptions)(nil),
	DefaultOn: projectReasons,
	New: func(spec config.Checker) (Checker, error) {
		return Files{Paths: spec.Options.(*FilesOptions).Paths}, nil
	},
	Describe: func(spec config.Checker) string {
		return "required files exist: " + strings.Join(spec.Options.(*FilesOptions).Paths, ", ")
	},
})

// Check implements Checker.
func (f Files) Check(_ context.Context, c *Context) (Result, error) {
	var missing []string
	for _, p := range f.Paths {
		var why string
		var err error
		if config.IsGlob(p) {
			why, err = globMissing(c.ProjectDir, p)
		} else {
			why, err = fileMissing(c.ProjectDir, p)
		}
		if err != nil {
			return Result{}, err
		}
		if why != "" {
			missing = append(missing, why)
		}
	}
	if len(missing) > 0 {
		return Incomplete("Missing required files: " + strings.Join(missing, ", ")), nil
	}
	return OK(fmt.Sprintf("All %d required file(s) exist.", len(f.Paths))), nil
}

// fileMissing returns "" if the path p exists, else how to name it in the
// feedback.
func fileMissing(projectDir, p string) (string, error) {
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(projectDir, p)
	}
	kind, err := exists(full)
	if err != nil {
		return "", fmt.Errorf("files: %s: %w", p, err)
	}
	switch kind {
	case present:
		return "", nil
	case absent:
		return p, nil
	}
	return fmt.Sprintf("%s (%s)", p, kind), nil
}

// maxNamed is how many matches that do not count a glob's feedback names.
const maxNamed = 3

// globMissing returns "" if the pattern p matches a file that exists, else
// how to name it in the feedback.
//
// The pattern is split into its leading components that hold no
// metacharacter (* ? [ \), a directory taken literally, and the rest,
// matched with fs.Glob inside that directory. Joining the project dir into
// the pattern, as filepath.Glob needs, made the dir's own brackets and
// backslashes part of the pattern: a project under "client [acme]" had no
// files at all.
func globMissing(projectDir, p string) (string, error) {
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
	matches, err := fs.Glob(os.DirFS(dir), strings.Join(parts[i:], "/"))
	if err != nil {
		// fs.Glob's only error is path.ErrBadPattern; the syntax is
		// filepath.Match's, whose error the config's check reports.
		return "", fmt.Errorf("files: pattern %q: %w", p, filepath.ErrBadPattern)
	}
	if len(matches) == 0 {
		return p, nil
	}
	var dead []string
	for _, m := range matches {
		kind, err := exists(filepath.Join(dir, filepath.FromSlash(m)))
		if err != nil {
			return "", fmt.Errorf("files: pattern %q: %w", p, err)
		}
		switch kind {
		case present:
			return "", nil
		case absent: // removed since the directory was read
		default:
			if len(dead) < maxNamed {
				dead = append(dead, fmt.Sprintf("%s, %s", filepath.Join(lit, filepath.FromSlash(m)), kind))
			}
		}
	}
	if len(dead) == 0 {
		return p, nil
	}
	return fmt.Sprintf("%s (matches only %s)", p, strings.Join(dead, "; ")), nil
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
