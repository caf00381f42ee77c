package checkers_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/proc"
)

// recordingRunner records the commands it is asked to run and passes them all.
type recordingRunner struct {
	dirs  []string
	shell []string
}

func (r *recordingRunner) Run(_ context.Context, cmd proc.Command) (proc.Outcome, error) {
	r.shell = append(r.shell, cmd.Shell)
	r.dirs = append(r.dirs, cmd.Dir)
	return proc.Outcome{}, nil
}

// fixtureProject writes files (name: content; a name ending in / is a directory)
// into a new dir and returns it.
func fixtureProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if strings.HasSuffix(name, "/") {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
			continue
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return dir
}

const (
	lookedForTypeCheck = "go.mod, tsconfig.json, pyproject.toml with [tool.mypy], mypy.ini, .mypy.ini, Cargo.toml"
	lookedForLint      = "pyproject.toml with [tool.ruff], ruff.toml, .ruff.toml, Cargo.toml, " +
		"eslint.config.js, eslint.config.mjs, eslint.config.cjs, eslint.config.ts, eslint.config.mts, eslint.config.cts, " +
		".eslintrc, .eslintrc.js, .eslintrc.cjs, .eslintrc.json, .eslintrc.yaml, .eslintrc.yml, package.json with eslintConfig"
	lookedForFormat = "go.mod, Cargo.toml"
)

// Detection looks only at the project's files, so these fixtures need none
// of the tools installed; the runner records what would run.
func TestPresetDetection(t *testing.T) {
	tests := []struct {
		name    string
		typ     string
		files   map[string]string
		command string // the config's command
		want    []string
		err     string // with DIR for the project dir
	}{
		{name: "go vet for a Go module", typ: "type-check", files: map[string]string{"go.mod": "module m\n"}, want: []string{"go vet ./..."}},
		{name: "tsc for a TypeScript project", typ: "type-check", files: map[string]string{"tsconfig.json": "{}"}, want: []string{"npx --no-install tsc --noEmit"}},
		{name: "mypy configured in pyproject.toml", typ: "type-check", files: map[string]string{"pyproject.toml": "[project]\nname = \"p\"\n\n[tool.mypy]\nstrict = true\n"},
			want: []string{"mypy ."}},
		{name: "mypy overrides alone", typ: "type-check", files: map[string]string{"pyproject.toml": "[[tool.mypy.overrides]]\nmodule = \"x\"\n"}, want: []string{"mypy ."}},
		{name: "mypy.ini", typ: "type-check", files: map[string]string{"mypy.ini": "[mypy]\n"}, want: []string{"mypy ."}},
		{name: "cargo check for a crate", typ: "type-check", files: map[string]string{"Cargo.toml": "[package]\n"}, want: []string{"cargo check"}},
		{name: "every detected tool, in order", typ: "type-check", files: map[string]string{"Cargo.toml": "", "tsconfig.json": "{}", "go.mod": ""},
			want: []string{"go vet ./...", "npx --no-install tsc --noEmit", "cargo check"}},
		{name: "ruff settings are not mypy's", typ: "type-check", files: map[string]string{"pyproject.toml": "[tool.ruff]\n# [tool.mypy] is not set\nmypy = 1\n"},
			err: "type-check: no type checker detected in DIR (looked for " + lookedForTypeCheck + `); set "command"`},
		{name: "a directory is not a go.mod", typ: "type-check", files: map[string]string{"go.mod/": ""},
			err: "type-check: no type checker detected in DIR (looked for " + lookedForTypeCheck + `); set "command"`},

		{name: "ruff in a pyproject subtable", typ: "lint", files: map[string]string{"pyproject.toml": "[tool.ruff.lint]\nselect = [\"E\"]\n"}, want: []string{"ruff check ."}},
		{name: "ruff as a dotted key", typ: "lint", files: map[string]string{"pyproject.toml": "tool.ruff.line-length = 100\n"}, want: []string{"ruff check ."}},
		{name: "ruff.toml", typ: "lint", files: map[string]string{"ruff.toml": ""}, want: []string{"ruff check ."}},
		{name: "clippy for a crate", typ: "lint", files: map[string]string{"Cargo.toml": ""}, want: []string{"cargo clippy -- -D warnings"}},
		{name: "legacy eslint config", typ: "lint", files: map[string]string{".eslintrc.json": "{}"}, want: []string{"npx --no-install eslint ."}},
		{name: "flat eslint config", typ: "lint", files: map[string]string{"eslint.config.mjs": "export default []"}, want: []string{"npx --no-install eslint ."}},
		{name: "eslintConfig in package.json", typ: "lint", files: map[string]string{"package.json": `{"name":"p","eslintConfig":{"root":true}}`}, want: []string{"npx --no-install eslint ."}},
		{name: "package.json without eslintConfig", typ: "lint", files: map[string]string{"package.json": `{"name":"p","devDependencies":{"eslint":"9"}}`},
			err: "lint: no linter detected in DIR (looked for " + lookedForLint + `); set "command"`},
		{name: "package.json that is not JSON", typ: "lint", files: map[string]string{"package.json": `{"eslintConfig":`},
			err: "lint: no linter detected in DIR (looked for " + lookedForLint + `); set "command"`},
		{name: "no linter for a Go module", typ: "lint", files: map[string]string{"go.mod": ""},
			err: "lint: no linter detected in DIR (looked for " + lookedForLint + `); set "command"`},

		{name: "gofmt for a Go module", typ: "format", files: map[string]string{"go.mod": ""}, want: []string{"gofmt -l ."}},
		{name: "cargo fmt for a crate", typ: "format", files: map[string]string{"Cargo.toml": ""}, want: []string{"cargo fmt --check"}},
		{name: "no formatter for a Python project", typ: "format", files: map[string]string{"pyproject.toml": "[tool.ruff]\n"},
			err: "format: no formatter detected in DIR (looked for " + lookedForFormat + `); set "command"`},

		{name: "the config's command, no detection", typ: "lint", command: "make lint", want: []string{"make lint"}},
		{name: "the config's command wins over detection", typ: "format", files: map[string]string{"go.mod": ""}, command: "gofumpt -l .", want: []string{"gofumpt -l ."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := fixtureProject(t, tt.files)
			runner := &recordingRunner{}
			c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, Runner: runner, Budget: time.Minute}
			r, err := typedChecker(t, tt.typ, &checkers.PresetOptions{Command: tt.command}).Check(context.Background(), c)
			if tt.err != "" {
				require.EqualError(t, err, strings.ReplaceAll(tt.err, "DIR", dir))
				assert.Empty(t, runner.shell, "nothing runs")
				return
			}
			require.NoError(t, err)
			assert.True(t, r.Complete)
			assert.Equal(t, tt.want, runner.shell)
			for _, d := range runner.dirs {
				assert.Equal(t, dir, d)
			}
		})
	}
}

// A manifest that cannot be read is an error naming it, not a project
// without the tool.
func TestPresetDetectionCannotReadAManifest(t *testing.T) {
	dir := fixtureProject(t, map[string]string{"pyproject.toml/": ""})
	c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, Runner: &recordingRunner{}, Budget: time.Minute}
	_, err := typedChecker(t, "lint", &checkers.PresetOptions{}).Check(context.Background(), c)
	require.Error(t, err)
	assert.Regexp(t, `^lint: detecting the project's linter: open .*[/\\]pyproject\.toml: not a regular file \(a directory\)$`, err.Error())
}

// fakeToolsOnPath puts shell scripts named like the tools into a directory and
// returns the environment that puts it first on PATH.
func fakeToolsOnPath(t *testing.T, scripts map[string]string) []string {
	t.Helper()
	bin := t.TempDir()
	for name, body := range scripts {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755))
	}
	return []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// The presets run real commands (fake tools on PATH, real sh) and speak
// their language.
func TestPresetFeedback(t *testing.T) {
	needSh(t)
	var twenty []string
	for i := 1; i <= 20; i++ {
		twenty = append(twenty, fmt.Sprintf("f%d.go", i))
	}
	tests := []struct {
		name     string
		typ      string
		files    map[string]string
		opts     checkers.PresetOptions
		tools    map[string]string
		complete bool
		feedback string
	}{
		{name: "go vet passes", typ: "type-check", files: map[string]string{"go.mod": ""}, tools: map[string]string{"go": `[ "$1 $2" = "vet ./..." ] || exit 9`},
			complete: true, feedback: "The type check `go vet ./...` passed."},
		{name: "go vet reports", typ: "type-check", files: map[string]string{"go.mod": ""}, tools: map[string]string{"go": "echo '# m\n./a.go:3:2: undefined: x' >&2; exit 1"},
			feedback: "`go vet ./...` reports type errors (exit code 1). Fix them and run it again.\nLast 40 lines of output:\n# m\n./a.go:3:2: undefined: x"},
		{name: "eslint reports", typ: "lint", files: map[string]string{".eslintrc.json": "{}"}, tools: map[string]string{"npx": `[ "$*" = "--no-install eslint ." ] || exit 9; echo '✖ 3 problems'; exit 1`},
			feedback: "`npx --no-install eslint .` reports lint errors (exit code 1). Fix them and run it again.\nLast 40 lines of output:\n✖ 3 problems"},
		{name: "gofmt lists files", typ: "format", files: map[string]string{"go.mod": ""}, tools: map[string]string{"gofmt": `[ "$*" = "-l ." ] || exit 9; printf 'a.go\nsub/b.go\n'`},
			feedback: "`gofmt -l .` lists files that are not formatted: a.go, sub/b.go. Run `gofmt -w .`, then check again."},
		{name: "a long list is cut", typ: "format", files: map[string]string{"go.mod": ""}, tools: map[string]string{"gofmt": "i=1; while [ $i -le 23 ]; do echo f$i.go; i=$((i+1)); done"},
			feedback: "`gofmt -l .` lists files that are not formatted: " + strings.Join(twenty, ", ") + " and 3 more. Run `gofmt -w .`, then check again."},
		{name: "gofmt lists nothing", typ: "format", files: map[string]string{"go.mod": ""}, tools: map[string]string{"gofmt": "true"},
			complete: true, feedback: "The format check `gofmt -l .` passed."},
		{name: "gofmt cannot parse a file", typ: "format", files: map[string]string{"go.mod": ""}, tools: map[string]string{"gofmt": "echo \"x.go:1:1: expected 'package', found 'EOF'\" >&2; exit 2"},
			feedback: "`gofmt -l .` printed output and exited with code 2; it must print nothing. Fix what it reports (files that are not formatted, or errors that kept it from checking) and run it again.\nLast 40 lines of output:\nx.go:1:1: expected 'package', found 'EOF'"},
		{name: "a lister that exits 1 with its list", typ: "format", opts: checkers.PresetOptions{Command: "echo src/x.ts; exit 1", SuccessWhen: "empty"},
			feedback: "`echo src/x.ts; exit 1` printed output and exited with code 1; it must print nothing. Fix what it reports (files that are not formatted, or errors that kept it from checking) and run it again.\nLast 40 lines of output:\nsrc/x.ts"},
		{name: "a lister of the config's choosing", typ: "format", opts: checkers.PresetOptions{Command: "echo src/x.ts", SuccessWhen: "empty"},
			feedback: "`echo src/x.ts` lists files that are not formatted: src/x.ts. Format the code and run it again."},
		{name: "a detected tool's timeout speaks of linting", typ: "lint", files: map[string]string{"ruff.toml": ""}, opts: checkers.PresetOptions{Timeout: config.Duration(100 * time.Millisecond)},
			tools:    map[string]string{"ruff": "echo checking; exec sleep 5"},
			feedback: "The lint command `ruff check .` timed out after 100ms and was stopped.\nLast output:\nchecking"},
		{name: "cargo fmt finds a diff", typ: "format", files: map[string]string{"Cargo.toml": ""}, tools: map[string]string{"cargo": `[ "$*" = "fmt --check" ] || exit 9; echo 'Diff in src/main.rs at line 1:'; exit 1`},
			feedback: "`cargo fmt --check` finds code that is not formatted (exit code 1). Run `cargo fmt`, then check again.\nLast 40 lines of output:\nDiff in src/main.rs at line 1:"},
		{name: "the first failing tool is reported", typ: "format", files: map[string]string{"go.mod": "", "Cargo.toml": ""},
			tools:    map[string]string{"gofmt": "true", "cargo": "echo 'Diff in src/lib.rs'; exit 1"},
			feedback: "`cargo fmt --check` finds code that is not formatted (exit code 1). Run `cargo fmt`, then check again.\nLast 40 lines of output:\nDiff in src/lib.rs"},
		{name: "every tool passes", typ: "format", files: map[string]string{"go.mod": "", "Cargo.toml": ""}, tools: map[string]string{"gofmt": "true", "cargo": "true"},
			complete: true, feedback: "The format check `gofmt -l .` passed. The format check `cargo fmt --check` passed."},
		{name: "a tool that is not installed", typ: "lint", opts: checkers.PresetOptions{Command: "donegate-no-such-linter ."},
			feedback: "The lint command `donegate-no-such-linter .` could not run: exit code 127 is the shell's \"command not found\". Install the tool, or set \"command\" to the one the project uses.\nOutput:\n"},
		{name: "the config's condition", typ: "lint", opts: checkers.PresetOptions{Command: "echo '0 warnings, 2 errors'", SuccessWhen: "contains: 0 errors"},
			feedback: "`echo '0 warnings, 2 errors'` reports lint errors: it must print \" 0 errors\" (success_when \"contains: 0 errors\"), but its output does not contain it (exit code 0). Fix them and run it again.\nLast 40 lines of output:\n0 warnings, 2 errors"},
		{name: "a formatter of the config's choosing", typ: "format", opts: checkers.PresetOptions{Command: "echo 'src/x.ts'; exit 1"},
			feedback: "`echo 'src/x.ts'; exit 1` finds code that is not formatted (exit code 1). Format the code and run it again.\nLast 40 lines of output:\nsrc/x.ts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: fixtureProject(t, tt.files), Budget: time.Minute, Env: fakeToolsOnPath(t, tt.tools)}
			r, err := typedChecker(t, tt.typ, &tt.opts).Check(context.Background(), c)
			require.NoError(t, err)
			if strings.HasSuffix(tt.feedback, "\nOutput:\n") {
				// The shell's own words for "not found" vary (dash, bash).
				assert.True(t, strings.HasPrefix(r.Feedback, tt.feedback), r.Feedback)
				assert.False(t, r.Complete)
				return
			}
			pattern := map[string]string{"type-check": "type-error", "lint": "lint-error", "format": "format-error"}[tt.typ]
			assertSaid(t, checkers.Result{Complete: tt.complete, Feedback: tt.feedback}, pattern, r)
		})
	}
}

func TestPresetOptionsCheckOptions(t *testing.T) {
	tests := []struct {
		name string
		opts checkers.PresetOptions
		want []config.Problem
	}{
		{name: "nothing set: detect"},
		{name: "a command", opts: checkers.PresetOptions{Command: "make lint"}},
		{name: "a command and a condition", opts: checkers.PresetOptions{Command: "prettier -l .", SuccessWhen: "empty"}},
		{name: "a condition without a command", opts: checkers.PresetOptions{SuccessWhen: "empty"},
			want: []config.Problem{{Path: "success_when", Message: `set "command" too: success_when applies to a command you choose; a detected tool brings its own`}}},
		{name: "a regex that does not compile", opts: checkers.PresetOptions{Command: "make lint", SuccessWhen: "matches:*a"},
			want: []config.Problem{{Path: "success_when", Message: "\"matches:*a\": the regular expression does not compile: error parsing regexp: missing argument to repetition operator: `*`"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.opts.CheckOptions())
		})
	}
}

func TestPresetDescribe(t *testing.T) {
	tests := []struct {
		typ  string
		opts checkers.PresetOptions
		want string
	}{
		{typ: "type-check", want: "the project's type checker, detected when checked, reports no type errors"},
		{typ: "lint", want: "the project's linter, detected when checked, reports no lint errors"},
		{typ: "format", want: "the project's formatter, detected when checked, reports no unformatted files"},
		{typ: "lint", opts: checkers.PresetOptions{Command: "make lint"}, want: "`make lint` exits with code 0"},
		{typ: "format", opts: checkers.PresetOptions{Command: "prettier -l .", SuccessWhen: "empty"}, want: "`prettier -l .` prints nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			ty, ok := checkers.LookupType(tt.typ)
			require.True(t, ok)
			assert.Equal(t, tt.want, ty.Describe(config.Checker{Type: tt.typ, Options: &tt.opts}))
		})
	}
}

func TestDetectPreset(t *testing.T) {
	for _, tt := range []struct {
		name  string
		kind  string
		files map[string]string
		want  []string
	}{
		{"go type-check", "type-check", map[string]string{"go.mod": "module x\n"}, []string{"go vet ./..."}},
		{"go and rust format", "format", map[string]string{"go.mod": "module x\n", "Cargo.toml": ""}, []string{"gofmt -l .", "cargo fmt --check"}},
		{"ruff lint", "lint", map[string]string{"pyproject.toml": "[tool.ruff]\n"}, []string{"ruff check ."}},
		{"nothing", "lint", map[string]string{"go.mod": "module x\n"}, []string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := checkers.DetectPreset(tt.kind, fixtureProject(t, tt.files))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := checkers.DetectPreset("fmt", t.TempDir())
	assert.EqualError(t, err, `unknown preset checker type "fmt"`)
}
