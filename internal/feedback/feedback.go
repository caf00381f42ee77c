// Package feedback words what failed for the agent: each failing checker
// reports a pattern name ("test-failed") and its parameters, and a
// text/template per pattern renders them. The built-in templates are
// embedded (templates/<pattern>.tmpl); a user overrides any of them with a
// file of the same name in the directory the config's retry_templates
// names (see Load).
//
// It imports nothing of donegate's, so that the config (which checks a
// user's templates at load) and the checkers (which render them) can both
// use it.
package feedback

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/template"
)

// Patterns are the failure patterns, most actionable first: when several
// failures are told at once, they are told in this order (see Rank).
var Patterns = []string{
	"format-error",
	"files-missing",
	"plan-incomplete",
	"output-mismatch",
	"claim-false",
	"keyword-missing",
	"phase-incomplete",
	"type-error",
	"lint-error",
	"test-failed",
	"command-failed",
	"git-dirty",
	"no-commits",
	"issue-open",
	"judge-incomplete",
	"external-incomplete",
	"iterations-left",
}

// Rank is pattern's place in Patterns: lower is more actionable. An
// unknown pattern ranks last.
func Rank(pattern string) int {
	if i := slices.Index(Patterns, pattern); i >= 0 {
		return i
	}
	return len(Patterns)
}

//go:embed templates/*.tmpl
var builtinFS embed.FS

// Funcs are the functions every template may call, built-in or a user's.
var Funcs = template.FuncMap{
	// join joins a list with a separator: {{join .Missing ", "}}.
	"join": func(list []string, sep string) string { return strings.Join(list, sep) },
	// bullets writes one "- item" line per item.
	"bullets": func(list []string) string {
		var b strings.Builder
		for i, s := range list {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("- ")
			b.WriteString(s)
		}
		return b.String()
	},
	// plural returns one when n is 1, else many: {{plural .Count "task" "tasks"}}.
	"plural": func(n int, one, many string) string {
		if n == 1 {
			return one
		}
		return many
	},
}

// Set is a template per pattern.
type Set struct {
	byPattern map[string]*template.Template
	// files names where each overridden template came from, for errors.
	files map[string]string
}

// Builtin returns the built-in templates. They are parsed on first use:
// most hook runs render nothing.
var Builtin = sync.OnceValue(func() *Set {
	s, err := parseFS(builtinFS, "templates", nil)
	if err != nil {
		panic(fmt.Sprintf("feedback: built-in templates: %v", err)) // tested
	}
	return s
})

// Load returns the built-in templates with those in dir put in their
// place. A file of dir named <pattern>.tmpl overrides that pattern; other
// names ending in .tmpl are an error (a misspelt pattern would otherwise
// never be used), as is a template that does not parse: the error names
// the file and the line.
func Load(dir string) (*Set, error) {
	over, err := parseFS(os.DirFS(dir), ".", func(name string) string { return filepath.Join(dir, name) })
	if err != nil {
		return nil, err
	}
	s := &Set{byPattern: map[string]*template.Template{}, files: over.files}
	for p, t := range Builtin().byPattern {
		s.byPattern[p] = t
	}
	for p, t := range over.byPattern {
		s.byPattern[p] = t
	}
	return s, nil
}

// parseFS parses every .tmpl file in dir of fsys. shown names a file in
// errors (nil: its name in fsys).
func parseFS(fsys fs.FS, dir string, shown func(string) string) (*Set, error) {
	if shown == nil {
		shown = func(name string) string { return name }
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("retry templates: %w", err)
	}
	s := &Set{byPattern: map[string]*template.Template{}, files: map[string]string{}}
	for _, e := range entries {
		name := e.Name()
		pattern, ok := strings.CutSuffix(name, ".tmpl")
		if !ok || e.IsDir() {
			continue
		}
		if !slices.Contains(Patterns, pattern) {
			return nil, fmt.Errorf("%s: no failure pattern is called %q (known: %s)", shown(name), pattern, strings.Join(Patterns, ", "))
		}
		text, err := fs.ReadFile(fsys, filepath.ToSlash(filepath.Join(dir, name)))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", shown(name), err)
		}
		t, err := template.New(name).Funcs(Funcs).Option("missingkey=error").Parse(string(text))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", shown(name), stripPrefix(err))
		}
		s.byPattern[pattern] = t
		s.files[pattern] = shown(name)
	}
	return s, nil
}

// stripPrefix turns text/template's `template: NAME:LINE: msg` into
// `line LINE: msg`: the caller names the file.
func stripPrefix(err error) error {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, "template: ")
	if !ok {
		return err
	}
	if _, after, ok := strings.Cut(rest, ":"); ok {
		if line, msg2, ok := strings.Cut(after, ":"); ok && line != "" && strings.Trim(line, "0123456789") == "" {
			return errors.New("line " + line + ":" + msg2)
		}
	}
	return errors.New(rest)
}

// Render renders pattern's template with params. When a user's template
// fails to render (a key its pattern does not have), the built-in one is
// used and the error returned with the text, naming the file.
func (s *Set) Render(pattern string, params map[string]any) (string, error) {
	if s == nil {
		s = Builtin()
	}
	t, ok := s.byPattern[pattern]
	if !ok {
		return "", fmt.Errorf("no template for failure pattern %q", pattern)
	}
	var b bytes.Buffer
	err := t.Execute(&b, params)
	if err == nil {
		return strings.TrimSpace(b.String()), nil
	}
	if file, user := s.files[pattern]; user {
		text, berr := Builtin().Render(pattern, params)
		if berr != nil {
			return "", berr
		}
		return text, fmt.Errorf("%s: %w; the built-in template was used", file, stripPrefix(err))
	}
	return "", fmt.Errorf("built-in template %s: %w", pattern, err)
}
