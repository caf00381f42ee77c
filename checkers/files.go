package checkers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Files checks that required files exist. Paths are relative to the
// project dir unless absolute; a path with glob metacharacters (* ? [) must
// match at least one file (filepath.Match syntax; ** is not special).
type Files struct {
	Paths []string
}

// Check implements Checker.
func (f Files) Check(_ context.Context, c *Context) (Result, error) {
	var missing []string
	for _, p := range f.Paths {
		full := p
		if !filepath.IsAbs(full) {
			full = filepath.Join(c.ProjectDir, p)
		}
		if strings.ContainsAny(p, "*?[") {
			matches, err := filepath.Glob(full)
			if err != nil {
				return Result{}, fmt.Errorf("files: pattern %q: %w", p, err)
			}
			if len(matches) == 0 {
				missing = append(missing, p)
			}
			continue
		}
		if _, err := os.Stat(full); err != nil {
			if !errors.Is(err, os.ErrNotExist) {
				return Result{}, fmt.Errorf("files: %w", err)
			}
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return Incomplete("Missing required files: " + strings.Join(missing, ", ")), nil
	}
	return OK(fmt.Sprintf("All %d required file(s) exist.", len(f.Paths))), nil
}
