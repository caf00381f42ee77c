package checkers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/regular"
)

// presetChecker is a type-check, lint or format checker: a command checker whose
// command, when the config sets none, is chosen from the project's files
// (go.mod, tsconfig.json, pyproject.toml, Cargo.toml, an eslint config),
// and whose feedback speaks of type errors, lint errors or unformatted
// files. The three share one file because they differ only in data: the
// presets table below.
type presetChecker struct {
	Kind    string // "type-check", "lint" or "format"
	Command string // "" detects the project's tools when it is checked
	Timeout time.Duration
	Cache   bool
	when    condition
}

// PresetOptions are the keys of type-check, lint and format.
type PresetOptions struct {
	// Command is the command to run, with sh -c in the project dir. Left
	// out: every tool detected from the project's files.
	Command string `json:"command"`
	// SuccessWhen is as for a command checker, and needs Command. Left
	// out: "exit_code:0".
	SuccessWhen string `json:"success_when"`
	// Timeout bounds one run of each tool. Left out: 5m.
	Timeout config.Duration `json:"timeout" validate:"gte=0"`
	// Cache reuses the result while the working tree is unchanged. Left
	// out: true.
	Cache *bool `json:"cache"`
}

// CheckOptions implements config.OptionsChecker. A success_when without a
// command is refused: a detected tool brings its own condition (gofmt -l
// must print nothing, the others must exit 0), and "exit_code:0" put on
// gofmt -l would pass whatever it lists.
func (o *PresetOptions) CheckOptions() []config.Problem {
	if o.SuccessWhen != "" && o.Command == "" {
		return []config.Problem{{Path: "success_when", Message: `set "command" too: success_when applies to a command you choose; a detected tool brings its own`}}
	}
	return checkSuccessWhen(o.SuccessWhen)
}

// A preset is one of the preset types.
type preset struct {
	name  string
	tool  string // what it looks for, in the detection error: "linter"
	tools []tool // in the order they run when several are detected
	voice voice
}

// A tool is a command a preset runs when the project shows signs of it.
type tool struct {
	command string
	// from is the sign that selected the tool, set by present: what its
	// consent names ("go.mod").
	from  string
	when  condition
	fix   string // a command that fixes what it reports, for feedback
	signs []sign // any one selects the tool
}

// A sign is something in the project dir that says a tool applies.
type sign struct {
	what    string // for the detection error: "go.mod"
	present func(dir string) (bool, error)
}

// presets holds the preset types by name. Detection looks only at files,
// never at which tools are installed: the same project must get the same
// commands on every machine, and a tool that is missing is better told
// (exit code 127) than silently skipped.
var presets = map[string]*preset{
	"type-check": {
		name: "type-check",
		tool: "type checker",
		tools: []tool{
			{command: "go vet ./...", signs: []sign{file("go.mod")}},
			// npx finds the project's own tsc in node_modules/.bin, which
			// is not on PATH, and --no-install keeps it from fetching one.
			{command: "npx --no-install tsc --noEmit", signs: []sign{file("tsconfig.json")}},
			{command: "mypy .", signs: []sign{pyprojectTable("mypy"), file("mypy.ini"), file(".mypy.ini")}},
			{command: "cargo check", signs: []sign{file("Cargo.toml")}},
		},
		voice: presetVoice("type check", "type errors", "type-error"),
	},
	"lint": {
		name: "lint",
		tool: "linter",
		tools: []tool{
			{command: "ruff check .", signs: []sign{pyprojectTable("ruff"), file("ruff.toml"), file(".ruff.toml")}},
			{command: "cargo clippy -- -D warnings", signs: []sign{file("Cargo.toml")}},
			{command: "npx --no-install eslint .", signs: eslintSigns()},
		},
		voice: presetVoice("lint command", "lint errors", "lint-error"),
	},
	"format": {
		name: "format",
		tool: "formatter",
		tools: []tool{
			// gofmt -l exits 0 whatever it lists: the list is the verdict.
			{command: "gofmt -l .", when: condition{form: condEmpty}, fix: "gofmt -w .", signs: []sign{file("go.mod")}},
			{command: "cargo fmt --check", fix: "cargo fmt", signs: []sign{file("Cargo.toml")}},
		},
		voice: formatVoice,
	},
}

// The preset types.
func init() {
	registerPreset("type-check", "type-error", "the project's type checker reports no errors: `command`, else detected (`go vet ./...`, `tsc --noEmit`, `mypy .`, `cargo check`)")
	registerPreset("lint", "lint-error", "the project's linter reports no errors: `command`, else detected (`ruff check .`, `cargo clippy -- -D warnings`, `eslint .`)")
	registerPreset("format", "format-error", "the project's code is formatted: `command`, else detected (`gofmt -l .` prints nothing, `cargo fmt --check`)")
}

func registerPreset(name, pattern, summary string) {
	declare(name, func() *Type {
		return presetType(name, pattern, summary)
	})
}

// presetType builds the preset type called name.
func presetType(name, pattern, summary string) *Type {
	t := register(Type{
		Name:         name,
		ProjectState: true,
		Summary:      summary,
		DefaultOn:    projectReasons,
		Patterns:     []string{pattern},
		Example:      `{"type": "` + name + `", "command": "x", "success_when": "empty", "timeout": "1m", "cache": true}`,
	}, func(o *PresetOptions) (Checker, error) {
		when, err := parseCondition(o.SuccessWhen)
		if err != nil {
			return nil, fmt.Errorf("success_when: %w", err)
		}
		return presetChecker{Kind: name, Command: o.Command, Timeout: o.Timeout.D(), Cache: cacheOn(o.Cache), when: when}, nil
	}, func(o *PresetOptions) string {
		p := presets[name]
		if o.Command == "" {
			return fmt.Sprintf("the project's %s, detected when checked, reports no %s", p.tool, p.voice.findings)
		}
		when, _ := parseCondition(o.SuccessWhen) // valid: checked at load
		return fmt.Sprintf("`%s` %s", o.Command, when.describe())
	})
	commands(t, presetCommands(name))
	return t
}

// Check implements Checker. Without a command it runs every tool the
// project shows signs of, in the table's order, each through the result
// cache under its own timeout, and reports the first that fails: a Go
// service with a Rust crate needs both vetted.
//
// Detection happens here, at check time, because only here is the project
// dir known: the config is loaded before any event says where the project
// is (closer and the hooks find it from the event or the environment). So
// a preset that detects nothing is an error of the check, which the hooks
// treat as a broken config (on_error), and its message says what to set.
func (p presetChecker) Check(ctx context.Context, c *Context) (Result, error) {
	checks, err := p.commandChecks(c)
	if err != nil {
		return Result{}, err
	}
	if p.Command != "" {
		return checks[0].check(ctx, c)
	}
	var passed []string
	for _, k := range checks {
		r, err := k.check(ctx, c)
		if err != nil || !r.Complete {
			return r, err
		}
		passed = append(passed, r.Feedback)
	}
	return OK(strings.Join(passed, " ")), nil
}

// commandChecks are the command checks p runs in c's project: its
// command, else one for each tool the project's files name.
func (p presetChecker) commandChecks(c *Context) ([]commandCheck, error) {
	def, ok := presets[p.Kind]
	if !ok {
		return nil, fmt.Errorf("unknown preset checker type %q", p.Kind)
	}
	tools := []tool{{command: p.Command, when: p.when}}
	if p.Command == "" {
		var err error
		if tools, err = def.detect(c.ProjectDir); err != nil {
			return nil, err
		}
	}
	checks := make([]commandCheck, len(tools))
	for i, tl := range tools {
		checks[i] = commandCheck{kind: p.Kind, command: tl.command, from: tl.from, timeout: p.Timeout, cache: p.Cache, when: tl.when, fix: tl.fix, voice: &def.voice}
	}
	return checks, nil
}

// presetCommands lists what a preset checker runs in dir: its command,
// else the tools detected there.
func presetCommands(name string) func(o *PresetOptions, dir string) ([]ProjectCommand, error) {
	return func(o *PresetOptions, dir string) ([]ProjectCommand, error) {
		if o.Command != "" {
			return []ProjectCommand{{Checker: name, Command: o.Command}}, nil
		}
		tools, err := presets[name].detect(dir)
		if err != nil {
			return nil, err
		}
		out := make([]ProjectCommand, len(tools))
		for i, tl := range tools {
			out[i] = ProjectCommand{Checker: name, Command: tl.command, From: tl.from}
		}
		return out, nil
	}
}

// detect returns the tools the project in dir shows signs of; none is an
// error that says what was looked for.
func (p *preset) detect(dir string) ([]tool, error) {
	found, err := p.present(dir)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		var looked []string
		for _, tl := range p.tools {
			for _, s := range tl.signs {
				looked = append(looked, s.what)
			}
		}
		return nil, fmt.Errorf("%s: no %s detected in %s (looked for %s); set \"command\"",
			p.name, p.tool, dir, strings.Join(uniq(looked), ", "))
	}
	return found, nil
}

// present returns the tools the project in dir shows signs of, in the
// table's order.
func (p *preset) present(dir string) ([]tool, error) {
	var found []tool
	for _, tl := range p.tools {
		for _, s := range tl.signs {
			ok, err := s.present(dir)
			if err != nil {
				return nil, fmt.Errorf("%s: detecting the project's %s: %w", p.name, p.tool, err)
			}
			if ok {
				tl.from = s.what
				found = append(found, tl)
				break
			}
		}
	}
	return found, nil
}

func uniq(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// file is the sign of a file called name in the project dir.
// Only a regular file (a link to one included) is a sign: a go.mod that
// is a link to /dev/zero, a FIFO or a directory is none, and is never
// handed to a tool that would read it for ever.
func file(name string) sign {
	return sign{what: name, present: func(dir string) (bool, error) {
		st, err := os.Stat(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return st.Mode().IsRegular(), nil
	}}
}

// maxManifestBytes bounds what is read of pyproject.toml or package.json:
// real ones are a few KiB, and a hook must not read a huge file.
const maxManifestBytes = 1 << 20

// readManifest reads name in dir, at most maxManifestBytes of it; a file
// that does not exist is no data and no error.
func readManifest(dir, name string) ([]byte, error) {
	f, err := regular.Open(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestBytes))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return data, nil
}

// pyprojectTable is the sign of ruff's or mypy's settings in
// pyproject.toml: a [tool.NAME] table, a subtable ([tool.ruff.lint],
// [[tool.mypy.overrides]]) or a dotted key (tool.ruff.line-length = 100).
// A line match, not a TOML decode: each of these starts its line, and a
// lookup at every hook call costs less this way.
func pyprojectTable(name string) sign {
	return sign{what: "pyproject.toml with [tool." + name + "]", present: func(dir string) (bool, error) {
		data, err := readManifest(dir, "pyproject.toml")
		if err != nil || data == nil {
			return false, err
		}
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "["))
			if strings.HasPrefix(line, "tool."+name+"]") || strings.HasPrefix(line, "tool."+name+".") {
				return true, nil
			}
		}
		return false, nil
	}}
}

// eslintSigns are the config files eslint reads, flat and legacy, and the
// eslintConfig key of package.json.
func eslintSigns() []sign {
	var signs []sign
	for _, ext := range []string{"js", "mjs", "cjs", "ts", "mts", "cts"} {
		signs = append(signs, file("eslint.config."+ext))
	}
	for _, ext := range []string{"", ".js", ".cjs", ".json", ".yaml", ".yml"} {
		signs = append(signs, file(".eslintrc"+ext))
	}
	return append(signs, sign{what: "package.json with eslintConfig", present: func(dir string) (bool, error) {
		data, err := readManifest(dir, "package.json")
		if err != nil || data == nil {
			return false, err
		}
		return gjson.ValidBytes(data) && gjson.GetBytes(data, "eslintConfig").Exists(), nil
	}})
}

// presetVoice is how a type check or a linter speaks: what it finds are
// findings ("type errors"), reported as pattern.
func presetVoice(noun, findings, pattern string) voice {
	return voice{
		noun:     noun,
		findings: findings,
		pattern:  pattern,
		passed: func(k commandCheck) string {
			return fmt.Sprintf("The %s `%s` passed.", noun, k.command)
		},
	}
}

// maxUnformatted bounds the files a format failure names.
const maxUnformatted = 20

var formatVoice = voice{
	noun:     "format check",
	findings: "unformatted files",
	pattern:  "format-error",
	passed: func(k commandCheck) string {
		return fmt.Sprintf("The format check `%s` passed.", k.command)
	},
}

// listed returns the files a lister printed, one a line, at most
// maxUnformatted, and how many more it printed.
func listed(out proc.Outcome) ([]string, int) {
	var files []string
	for _, l := range strings.Split(plainOutput(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			files = append(files, l)
		}
	}
	if len(files) > maxUnformatted {
		return files[:maxUnformatted], len(files) - maxUnformatted
	}
	return files, 0
}

// DetectPreset returns the commands the preset checker type kind
// ("type-check", "lint" or "format") would run in the project dir dir,
// from the same table its Check uses; none is no error. closer init uses
// it to add only the presets a project has tools for: a preset that
// detects nothing fails every check.
func DetectPreset(kind, dir string) ([]string, error) {
	p, ok := presets[kind]
	if !ok {
		return nil, fmt.Errorf("unknown preset checker type %q", kind)
	}
	tools, err := p.present(dir)
	if err != nil {
		return nil, err
	}
	commands := make([]string, len(tools))
	for i, tl := range tools {
		commands[i] = tl.command
	}
	return commands, nil
}
