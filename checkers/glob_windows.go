package checkers

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// globIn is fs.Glob of pattern (slash-separated) in dir as Windows
// matches names: in any case (dist/*.HTML matches dist\index.html, as
// dir dist\*.HTML lists it). The syntax is filepath.Match's; the matches
// are spelled as the directory spells them.
func globIn(dir, pattern string) ([]string, error) {
	parts := strings.Split(pattern, "/")
	for _, part := range parts {
		// Each part is a pattern of its own, as fs.Glob reads it: "[a/b]"
		// is two malformed ones, not a class holding a /.
		if _, err := path.Match(part, ""); err != nil {
			return nil, err
		}
	}
	matches := []string{""}
	for _, part := range parts {
		var next []string
		for _, m := range matches {
			if !strings.ContainsAny(part, `*?[`) {
				if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(m), part)); err == nil {
					next = append(next, path.Join(m, part))
				}
				continue
			}
			entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(m)))
			if err != nil {
				continue // not a directory, or unreadable: no match, as fs.Glob
			}
			lower := strings.ToLower(part)
			for _, e := range entries {
				if ok, _ := path.Match(lower, strings.ToLower(e.Name())); ok {
					next = append(next, path.Join(m, e.Name()))
				}
			}
		}
		matches = next
	}
	return matches, nil
}
