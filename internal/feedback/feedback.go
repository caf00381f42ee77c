// Package feedback words what failed for the agent: each failing checker
// reports a pattern name ("test-failed") and its parameters, and a
// text/template per pattern renders them. The built-in templates are
// embedded (templates/<pattern>.tmpl); a user overrides any of them with a
// file of the same name in the directory the config's retry_templates
// names (see Load).
//
// Parameters are JSON values — strings, ints, bools, lists and maps of
// them — because a result remembered in the result cache is rendered
// again from its stored parameters (see Normalize): a template must see
// the same values either way.
//
// It imports nothing of donegate's but internal/regular, so that the config (which checks a
// user's templates at load) and the checkers (which render them) can both
// use it.
package feedback

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"
	"time"

	"github.com/donegate/donegate/internal/regular"
)

// Patterns are the failure patterns, most actionable first: when several
// failures are told at once, they are told in this order (see Rank). What
// the agent can fix at once and locally comes first (a formatter run, a
// missing file, its own plan, its own answer), then what it must work at
// (type errors, lint, tests, a command), then bookkeeping that follows
// the work (commits, the issue), and last what only more turns or an
// outside judge settle.
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
	"tests-weakened",
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

// Funcs are the functions every template may call, built-in or a user's,
// besides text/template's own (and, len, printf, ...). They take lists and
// numbers as Normalize leaves them, and as checkers build them ([]string,
// []map[string]any, int). The templates are text/template's, run with
// missingkey=error and within bounds (see bound.go).
var Funcs = template.FuncMap{
	// join joins a list of strings: {{join .Missing ", "}}.
	"join": func(list any, sep string) string { return strings.Join(toStrings(list), sep) },
	// bullets writes one "- item" line per item of a list of strings.
	"bullets": func(list any) string {
		items := toStrings(list)
		for i, s := range items {
			items[i] = "- " + s
		}
		return strings.Join(items, "\n")
	},
	// head is the first n items of a list (all of it when shorter):
	// {{join (head 3 .Open) ", "}}.
	"head": func(n int, list any) (any, error) {
		v := reflect.ValueOf(list)
		if v.Kind() != reflect.Slice {
			return nil, fmt.Errorf("head: %T is not a list", list)
		}
		return v.Slice(0, min(max(n, 0), v.Len())).Interface(), nil
	},
	// plural returns one when n is 1, else many: {{plural .Count "task" "tasks"}}.
	"plural": func(n any, one, many string) string {
		if i, ok := n.(int); ok && i == 1 {
			return one
		}
		return many
	},
}

// toStrings reads a list of strings as a checker builds it ([]string) or
// as JSON decodes it ([]any); other items are printed with %v.
func toStrings(list any) []string {
	switch l := list.(type) {
	case []string:
		return slices.Clone(l)
	case []any:
		out := make([]string, len(l))
		for i, v := range l {
			out[i] = fmt.Sprint(v)
		}
		return out
	case nil:
		return nil
	}
	return []string{fmt.Sprint(list)}
}

// Normalize turns parameters decoded from JSON back into the values a
// checker builds: a whole number is an int (not float64, which {{eq
// .ExitCode 1}} would refuse to compare), a list of strings a []string.
// The result cache stores parameters as JSON and renders them again with
// the templates of the day.
func Normalize(params map[string]any) map[string]any {
	if params == nil {
		return nil
	}
	out := make(map[string]any, len(params))
	for k, v := range params {
		out[k] = normalize(v)
	}
	return out
}

func normalize(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int(x)) {
			return int(x)
		}
	case map[string]any:
		return Normalize(x)
	case []any:
		strs := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				break
			}
			strs = append(strs, s)
		}
		if len(strs) == len(x) {
			return strs
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// Set is a template per pattern: a user's, where one was loaded, else the
// built-in one. The zero Set and nil are the built-in templates.
type Set struct {
	user map[string]*template.Template
	// files names where each user template came from, for errors.
	files map[string]string
}

// builtin returns pattern's built-in template, parsed on its first use:
// most hook runs render nothing, and a run that words a failure words one
// or two; parsing all seventeen cost a blocking stop 0.5 ms.
func builtin(pattern string) (*template.Template, bool) {
	once, ok := builtinTemplates()[pattern]
	if !ok {
		return nil, false
	}
	return once(), true
}

// builtinTemplates holds a parse-once function per pattern, made on
// first use too: a hook that words nothing does not even build the map.
var builtinTemplates = sync.OnceValue(func() map[string]func() *template.Template {
	m := make(map[string]func() *template.Template, len(Patterns))
	for _, p := range Patterns {
		m[p] = sync.OnceValue(func() *template.Template {
			builtinParsed.Store(true)
			name := p + ".tmpl"
			text, err := builtinFS.ReadFile("templates/" + name)
			if err != nil {
				panic(fmt.Sprintf("feedback: built-in template %s: %v", name, err)) // tested
			}
			t, err := parseTemplate(name, string(text))
			if err != nil {
				panic(fmt.Sprintf("feedback: built-in template %s: %v", name, err)) // tested
			}
			return t
		})
	}
	return m
})

// builtinParsed records that the built-in templates were parsed, for a
// test that they are not at start-up nor by Load.
var builtinParsed atomic.Bool

// parseTemplate parses text as a retry template called name and checks
// that it can be run within bounds (see checkBounds).
func parseTemplate(name, text string) (*template.Template, error) {
	t, err := template.New(name).Funcs(Funcs).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, err
	}
	if err := checkBounds(t); err != nil {
		return nil, err
	}
	return t, nil
}

// maxTemplateBytes bounds a template file: the built-in ones are under
// 2 KB, and a user's that is larger is a mistake (or /dev/zero behind a
// link, which regular refuses anyway).
const maxTemplateBytes = 1 << 20

// Load returns the templates with those in dir in place of the built-in
// ones. A file of dir named <pattern>.tmpl overrides that pattern; other
// names ending in .tmpl are an error (a misspelt pattern would otherwise
// never be used), as is a template that does not parse, one that is not
// a regular file (a FIFO would block the read of every hook), and one
// that could not be run within bounds (see checkBounds): the error names
// the file and, for a parse error, the line. Other files are ignored.
func Load(dir string) (*Set, error) {
	s, problems := load(dir, true)
	if len(problems) > 0 {
		return nil, problems[0]
	}
	return s, nil
}

// LoadUsable is Load that keeps what it can: a template that cannot be
// used (not a known pattern, unreadable, not parsing, a cycle, too large)
// is left out, so that its pattern keeps the built-in wording, and said in
// problems; an unreadable dir leaves every built-in one. A bad template
// must never disable the gate it only words.
func LoadUsable(dir string) (*Set, []error) {
	return load(dir, false)
}

func load(dir string, strict bool) (*Set, []error) {
	s := &Set{user: map[string]*template.Template{}, files: map[string]string{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return s, []error{fmt.Errorf("%s: %w", dir, err)}
	}
	var problems []error
	for _, e := range entries {
		name := e.Name()
		pattern, ok := strings.CutSuffix(name, ".tmpl")
		if !ok || e.IsDir() {
			continue
		}
		path := filepath.Join(dir, name)
		if !slices.Contains(Patterns, pattern) {
			problems = append(problems, fmt.Errorf("%s: no failure pattern is called %q (known: %s)", path, pattern, strings.Join(Patterns, ", ")))
		} else if text, err := readTemplate(path); err != nil {
			problems = append(problems, err)
		} else if t, err := parseTemplate(name, text); err != nil {
			problems = append(problems, fmt.Errorf("%s: %w", path, stripPrefix(err)))
		} else {
			s.user[pattern] = t
			s.files[pattern] = path
		}
		if strict && len(problems) > 0 {
			return nil, problems
		}
	}
	return s, problems
}

// readTemplate reads a template file as donegate reads every file a
// repository may hold: through regular, so that a FIFO or a device
// (a link to /dev/zero) is refused rather than read for ever.
func readTemplate(path string) (string, error) {
	f, err := regular.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTemplateBytes+1))
	if err != nil {
		return "", fmt.Errorf("%s: read: %w", path, err)
	}
	if len(data) > maxTemplateBytes {
		return "", fmt.Errorf("%s: larger than %d KiB", path, maxTemplateBytes>>10)
	}
	return string(data), nil
}

// stripPrefix turns text/template's `template: NAME:LINE: msg` into
// `line LINE: msg`: the caller names the file. An execution error's
// `template: NAME:LINE:COL: executing "NAME" at <.X>: msg` keeps its
// column and place.
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

// Render renders pattern's template with params, a user's template
// within maxRenderTime (see RenderBy).
func (s *Set) Render(pattern string, params map[string]any) (string, error) {
	return s.RenderBy(time.Time{}, pattern, params)
}

// RenderBy renders pattern's template with params. A user's template must
// finish by deadline (the end of the hook's budget; zero: maxRenderTime
// from now), within maxRenderBytes, and render some text. When it does
// not, or fails to render (a key its pattern does not have, a function
// given the wrong kind of value), the built-in one is used, and the error
// comes back with the text, naming the file: text and error both set.
func (s *Set) RenderBy(deadline time.Time, pattern string, params map[string]any) (string, error) {
	var t *template.Template
	if s != nil {
		t = s.user[pattern]
	}
	if t == nil {
		return renderBuiltin(pattern, params)
	}
	text, err := executeBounded(t, params, renderDeadline(time.Now(), deadline))
	if err == nil && text == "" {
		// An empty reason would be a block the agent is told nothing of.
		err = errors.New("renders nothing")
	}
	if err == nil {
		return text, nil
	}
	text, berr := renderBuiltin(pattern, params)
	if berr != nil {
		return "", berr
	}
	return text, fmt.Errorf("%s: %w; the built-in template was used", s.files[pattern], stripPrefix(err))
}

func renderBuiltin(pattern string, params map[string]any) (string, error) {
	if pattern == "plan-incomplete" {
		if text, ok := planIncomplete(params); ok {
			return text, nil
		}
	}
	t, ok := builtin(pattern)
	if !ok {
		return "", fmt.Errorf("no template for failure pattern %q", pattern)
	}
	// The built-in templates are ours and bounded: they run inline.
	var b bytes.Buffer
	if err := t.Execute(&b, params); err != nil {
		return "", fmt.Errorf("built-in template %s: %w", pattern, err)
	}
	return strings.TrimSpace(b.String()), nil
}

// planIncomplete words the most frequent block, an open plan, as
// templates/plan-incomplete.tmpl does (TestPlanIncompleteAsTemplate
// holds the two equal), without text/template: parsing and running that
// template was about a tenth of a blocking stop's own work (perf, 300
// blocking stops of a one-item plan, 2026-11-24), the one template a
// stop on an unfinished plan needs. Params of other types than the plan
// checker passes fall back to the template (ok false).
func planIncomplete(params map[string]any) (text string, ok bool) {
	open, okOpen := params["Open"].([]string)
	total, okTotal := params["Total"].(int)
	tool, okTool := params["Tool"].(string)
	if !okOpen || !okTotal || !okTool {
		return "", false
	}
	var b strings.Builder
	b.WriteString("You have ")
	b.WriteString(strconv.Itoa(len(open)))
	b.WriteString(" incomplete task(s) out of ")
	b.WriteString(strconv.Itoa(total))
	b.WriteString(". Please either complete all remaining tasks or update the plan")
	if tool != "" {
		b.WriteString(" with ")
		b.WriteString(tool)
	}
	b.WriteString(" to remove tasks that are no longer needed before producing output: ")
	b.WriteString(strings.Join(open[:min(3, len(open))], ", "))
	if len(open) > 3 {
		b.WriteString(", ...")
	}
	return strings.TrimSpace(b.String()), true
}
