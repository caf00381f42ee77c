package checkers

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/donegate/donegate/internal/treecache"
)

// GitCleanOptions are git-clean's options: it has none.
type GitCleanOptions struct{}

// The git-clean checker type.
var _ = declare("git-clean", func() *Type {
	return register(Type{
		Name:         "git-clean",
		ProjectState: true,
		Summary:      "`git status --porcelain` is empty: nothing modified, staged or untracked (ignored files do not count)",
		DefaultOn:    projectReasons,
		Patterns:     []string{"git-dirty"},
		Example:      `{"type": "git-clean"}`,
	}, func(*GitCleanOptions) (Checker, error) { return gitCleanChecker{}, nil }, func(*GitCleanOptions) string {
		return "the git working tree is clean: every change committed, nothing untracked"
	})
})

// gitCleanChecker is complete when the project's git working tree is clean. Not
// being in a git work tree at all is an error, never "clean".
type gitCleanChecker struct{}

// maxListed is how many files git-clean's feedback names.
const maxListed = 20

// Check implements Checker.
func (gitCleanChecker) Check(ctx context.Context, c *Context) (Result, error) {
	st, err := c.GitStatus(ctx)
	if err != nil {
		return Result{}, err
	}
	if st.NotRepo != nil {
		return Result{}, fmt.Errorf("git-clean: %s is not in a git work tree: %w", c.ProjectDir, st.NotRepo)
	}
	if len(st.Porcelain) == 0 {
		// The shared look shows everything the user's status would and
		// more: empty there is empty for the user.
		return OK("The git working tree is clean."), nil
	}
	// The shared look reports mode changes and submodules that the user's
	// config may hide (core.fileMode=false, submodule.*.ignore) and no
	// renames. A dirty tree is the slow path anyway: ask git as the user
	// would, with renames.
	out, err := treecache.Git(ctx, c.ProjectDir, "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return Result{}, err
	}
	changes := parsePorcelain(out)
	if len(changes) == 0 {
		return OK("The git working tree is clean."), nil
	}
	return c.Fail("git-dirty", dirtyParams(changes)), nil
}

// change is one entry of `git status --porcelain=v1 -z`.
type change struct {
	x, y byte   // index and work tree status
	path string // relative to the top level
	from string // a rename's or copy's source
}

// parsePorcelain parses `git status --porcelain=v1 -z`: entries
// "XY path\x00", and for a rename or copy in the index "XY path\x00from\x00".
func parsePorcelain(out []byte) []change {
	var cs []change
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		ch := change{x: f[0], y: f[1], path: string(f[3:])}
		if (ch.x == 'R' || ch.x == 'C') && i+1 < len(fields) {
			i++
			ch.from = string(fields[i])
		}
		cs = append(cs, ch)
	}
	return cs
}

// dirtyParams are git-dirty's parameters: Count, how many files keep the
// tree from being clean; Files, at most maxListed of them, each its Path
// (quoted when it holds a control character) and its Change ("untracked",
// "staged added, unstaged modified", ...); More, how many more there are.
func dirtyParams(cs []change) map[string]any {
	files := make([]map[string]any, 0, min(len(cs), maxListed))
	for _, ch := range cs[:min(len(cs), maxListed)] {
		files = append(files, map[string]any{"Path": showPath(ch.path), "Change": ch.describe()})
	}
	return map[string]any{"Count": len(cs), "Files": files, "More": len(cs) - len(files)}
}

// describe says what changed in one entry, staged and unstaged apart.
func (ch change) describe() string {
	switch {
	case ch.x == '?':
		return "untracked"
	case ch.x == 'U' || ch.y == 'U' || (ch.x == 'A' && ch.y == 'A') || (ch.x == 'D' && ch.y == 'D'):
		return "unmerged (resolve the conflict)"
	}
	var parts []string
	if ch.x != ' ' {
		what := verb(ch.x)
		if ch.from != "" {
			what += " from " + showPath(ch.from)
		}
		parts = append(parts, "staged "+what)
	}
	if ch.y != ' ' {
		parts = append(parts, "unstaged "+verb(ch.y))
	}
	return strings.Join(parts, ", ")
}

// verb names a porcelain status letter.
func verb(s byte) string {
	switch s {
	case 'M':
		return "modified"
	case 'T':
		return "type changed"
	case 'A':
		return "added"
	case 'D':
		return "deleted"
	case 'R':
		return "renamed"
	case 'C':
		return "copied"
	}
	return "changed (" + string(s) + ")"
}

// showPath writes a path as is, or quoted when it holds a control
// character (a newline would break the list) or starts or ends in space.
func showPath(p string) string {
	if strings.IndexFunc(p, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) >= 0 ||
		strings.TrimSpace(p) != p {
		return strconv.Quote(p)
	}
	return p
}
