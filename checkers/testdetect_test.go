package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
)

// A test checker without a command, as the embedded default has, runs
// the test command the project's files name, detected when checked as
// closer init detects it; a project that names none passes. Before, the
// default was the plan checker alone, which holds nobody on hosts whose
// model has no plan tool.
func TestTestCheckerDetectsTheCommand(t *testing.T) {
	for _, tt := range []struct {
		name     string
		files    map[string]string
		want     string // the command run (go test in its -json form, its report read), "" for none
		complete bool
		feedback string
	}{
		{name: "go", files: map[string]string{"go.mod": "module x\n"}, want: "go test -json ./...", feedback: "The test command `go test ./...` failed"},
		{name: "npm", files: map[string]string{"package.json": `{"scripts":{"test":"jest"}}`}, want: "npm test", feedback: "`npm test` failed"},
		{name: "npm's placeholder is not run", files: map[string]string{"package.json": `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`},
			complete: true, feedback: "No test command detected"},
		{name: "a Makefile's test target", files: map[string]string{"Makefile": "test:\n\tfalse\n"}, want: "make test", feedback: "`make test` failed"},
		// At a go.work root that is no module, go test ./... fails to set
		// up: each module the workspace uses is named.
		{name: "a Go workspace", files: map[string]string{"go.work": "go 1.26\n\nuse (\n\t./api // the server\n\t./cli\n)\nuse ./tools/gen\nuse ./api\n"},
			want: "go test -json ./api/... ./cli/... ./tools/gen/...", feedback: "`go test ./api/... ./cli/... ./tools/gen/...` failed"},
		{name: "a Go workspace whose root is a module too", files: map[string]string{"go.work": "use (\n\t.\n\t./sub\n)\n"},
			want: "go test -json ./... ./sub/...", feedback: "failed"},
		{name: "a Go workspace using a module out of the project", files: map[string]string{"go.work": "use ../other\n"},
			complete: true, feedback: "No test command detected"},
		{name: "a Go workspace with a quoted path", files: map[string]string{"go.work": "use \"./my mod\"\n"},
			complete: true, feedback: "No test command detected"},
		// A repository built with Bazel has its tests in its build graph,
		// whatever else it holds.
		{name: "a Bazel workspace beside a go.mod", files: map[string]string{"MODULE.bazel": "module(name = \"x\")\n", "go.mod": "module x\n"},
			want: "bazel test //...", feedback: "The test command `bazel test //...` failed"},
		{name: "a Bazel WORKSPACE", files: map[string]string{"WORKSPACE": "", "package.json": `{"scripts":{"test":"jest"}}`},
			want: "bazel test //...", feedback: "`bazel test //...` failed"},
		{name: "nothing", files: map[string]string{"README": "hi\n"}, complete: true, feedback: "No test command detected in "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			runner := &fakeRunner{out: proc.Outcome{ExitCode: 1, Output: []byte("FAIL\n")}}
			c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, Runner: runner, Budget: time.Minute}
			r, err := checkers.Test{}.Check(context.Background(), c)
			require.NoError(t, err)
			assert.Equal(t, tt.complete, r.Complete)
			assert.Contains(t, r.Feedback, tt.feedback)
			assert.Equal(t, tt.want, runner.got.Shell)
			if tt.want != "" {
				assert.Equal(t, dir, runner.got.Dir)
			}
		})
	}
}

// The embedded default holds the agent for the project's tests.
func TestDefaultRunsThePlanAndTheTests(t *testing.T) {
	var types []string
	for _, c := range config.Default().Checkers {
		types = append(types, c.Type)
		if c.Type == "test" {
			assert.Empty(t, c.Options.(*checkers.TestOptions).Command, "detected when checked")
		}
	}
	assert.Equal(t, []string{"plan", "test"}, types)
}

// A FIFO where a manifest is expected is never opened for a blocking
// read: detection fails at once, naming the file.
func TestTestCheckerDetectionRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifotest.Make(t, filepath.Join(dir, "Makefile"))
	c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, Runner: &fakeRunner{}, Budget: time.Minute}
	_, err := checkers.Test{}.Check(context.Background(), c)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Makefile: not a regular file")
}

// Only a regular file is a sign of a project kind: a go.mod that is a
// link to /dev/zero (go test grew to 5.5 GB in 6 s reading it), a FIFO or
// a directory named go.mod detect nothing, and nothing is run.
func TestDetectionCountsOnlyRegularFiles(t *testing.T) {
	for _, tt := range []struct {
		name  string
		plant func(t *testing.T, path string)
	}{
		{"a link to /dev/zero", func(t *testing.T, path string) { linktest.Symlink(t, "/dev/zero", path) }},
		{"a FIFO", func(t *testing.T, path string) { fifotest.Make(t, path) }},
		{"a directory", func(t *testing.T, path string) { require.NoError(t, os.Mkdir(path, 0o755)) }},
		{"a dangling link", func(t *testing.T, path string) { linktest.Symlink(t, "nowhere", path) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			tt.plant(t, filepath.Join(dir, "go.mod"))
			d, err := checkers.DetectTestCommand(dir)
			require.NoError(t, err)
			assert.Empty(t, d.Command)
			runner := &fakeRunner{}
			c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, Runner: runner, Budget: time.Minute}
			r, err := checkers.Test{}.Check(context.Background(), c)
			require.NoError(t, err)
			assert.True(t, r.Complete)
			assert.Zero(t, runner.runs)
		})
	}
	// A link to a regular go.mod is one.
	dir := t.TempDir()
	real := filepath.Join(t.TempDir(), "go.mod")
	require.NoError(t, os.WriteFile(real, []byte("module m\n"), 0o644))
	linktest.Symlink(t, real, filepath.Join(dir, "go.mod"))
	d, err := checkers.DetectTestCommand(dir)
	require.NoError(t, err)
	assert.Equal(t, "go test ./...", d.Command)
}

// What the person allows of `bazel test //...` is how .bazelrc, the
// project's rc files it imports and .bazelversion make it run: an edit of
// any of them (a --test_tag_filters that leaves the failing test out, a
// remote cache of the agent's) is a new definition; the BUILD files are
// the project's code, as its tests are, and rc files outside the project
// are the person's.
func TestBazelDefinition(t *testing.T) {
	dir, home, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	write := writeIn(t, dir)
	write("WORKSPACE", "")
	write("BUILD", "")
	write(".bazelrc", "test --test_output=errors\nimport %workspace%/tools/ci.bazelrc\ntry-import %workspace%/user.bazelrc\ntry-import "+filepath.Join(elsewhere, "other.bazelrc")+"\n")
	write("tools/ci.bazelrc", "try-import %workspace%/tools/more.bazelrc\n")
	testDefinitionChanges(t, dir, "bazel test //...", "WORKSPACE", []definitionChange{
		{"the BUILD file", "BUILD", "sh_test(name = \"t\", srcs = [\"t.sh\"])\n", false},
		{"a file nothing imports", "other.bazelrc", "test --test_tag_filters=-x\n", false},
		{".bazelrc", ".bazelrc", "test --test_output=errors --test_tag_filters=-broken\nimport %workspace%/tools/ci.bazelrc\ntry-import %workspace%/user.bazelrc\ntry-import " + filepath.Join(elsewhere, "other.bazelrc") + "\n", true},
		{"a try-imported file appearing", "user.bazelrc", "test --test_filter=Nothing\n", true},
		{"a file imported by an imported one", "tools/more.bazelrc", "build --remote_cache=grpc://127.0.0.1:1\n", true},
		{"a file imported from outside the workspace", filepath.Join(elsewhere, "other.bazelrc"), "test --test_filter=Nothing\n", true},
		{".bazelversion", ".bazelversion", "7.4.1\n", true},
		{"the user's ~/.bazelrc appearing", filepath.Join(home, ".bazelrc"), "test --test_tag_filters=-broken\n", true},
		{"a file the user's imports", filepath.Join(home, "more.bazelrc"), "", false},
		{"the user's ~/.bazelrc importing it", filepath.Join(home, ".bazelrc"), "test --test_tag_filters=-broken\ntry-import " + filepath.Join(home, "more.bazelrc") + "\n", true},
		{"the file the user's imports", filepath.Join(home, "more.bazelrc"), "test --test_filter=Nothing\n", true},
	})
	assert.Equal(t, ".bazelrc, ~/.bazelrc, a file they import or .bazelversion", checkers.DefinedBy(dir, "WORKSPACE"))
}

func TestCargoDefinition(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	dir := filepath.Join(root, "proj")
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("CARGO_HOME", "")
	write := writeIn(t, dir)
	write("Cargo.toml", "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n")
	d, err := checkers.DetectTestCommand(dir)
	require.NoError(t, err)
	assert.Empty(t, d.Definition, "no Cargo config: as before donegate read them")
	write(".cargo/config.toml", "[term]\nverbose = false\n")
	testDefinitionChanges(t, dir, "cargo test", "Cargo.toml", []definitionChange{
		{"a dependency", "Cargo.toml", "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n[dependencies]\nx = \"1\"\n", false},
		{"a test", "src/lib.rs", "#[test]\nfn t() {}\n", false},
		{"the project's .cargo/config.toml", ".cargo/config.toml", "[target.x86_64-unknown-linux-gnu]\nrunner = \"true\"\n", true},
		{"the older .cargo/config", ".cargo/config", "[env]\nRUST_TEST_THREADS = \"1\"\n", true},
		{"a dir's above the project", filepath.Join(root, ".cargo", "config.toml"), "[build]\nrustflags = [\"--cfg\", \"skip\"]\n", true},
		{"the user's ~/.cargo/config.toml", filepath.Join(home, ".cargo", "config.toml"), "[build]\nrustc-wrapper = \"/tmp/w\"\n", true},
		{"cargo login's credentials", filepath.Join(home, ".cargo", "credentials.toml"), "[registry]\ntoken = \"abc\"\n", false},
	})
	other := t.TempDir()
	t.Setenv("CARGO_HOME", other)
	before, err := checkers.DetectTestCommand(dir)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(other, "config.toml"), []byte("[build]\nrustflags = [\"-Zx\"]\n"), 0o644))
	after, err := checkers.DetectTestCommand(dir)
	require.NoError(t, err)
	assert.NotEqual(t, before.Definition, after.Definition, "$CARGO_HOME's config read")
	assert.Equal(t, "a .cargo/config.toml (the project's, a dir's above it, or ~/.cargo's)", checkers.DefinedBy(dir, "Cargo.toml"))
}

func TestNpmDefinition(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("USERPROFILE", home)
	t.Setenv("npm_config_userconfig", "")
	t.Setenv("NPM_CONFIG_USERCONFIG", "")
	write := writeIn(t, dir)
	write("package.json", `{"scripts":{"test":"node --test"}}`)
	assert.Equal(t, "package.json", checkers.DefinedBy(dir, "package.json"))
	testDefinitionChanges(t, dir, "npm test", "package.json", []definitionChange{
		{"a dependency", "package.json", `{"scripts":{"test":"node --test"},"dependencies":{"x":"1"}}`, false},
		{"the test script", "package.json", `{"scripts":{"test":"node --test a"},"dependencies":{"x":"1"}}`, true},
		{"a pretest script", "package.json", `{"scripts":{"pretest":"true","test":"node --test a"}}`, true},
		{"the project's .npmrc", ".npmrc", "script-shell=/bin/true\n", true},
		{"the user's ~/.npmrc with credentials alone", filepath.Join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=abc\n; a comment\nemail=me@example.com\n", false},
		{"npm login rewriting its token", filepath.Join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=def\n\n", false},
		{"the user's ~/.npmrc setting script-shell", filepath.Join(home, ".npmrc"), "//registry.npmjs.org/:_authToken=def\nscript-shell=/bin/true\n", true},
		{"the user's ~/.npmrc setting node-options", filepath.Join(home, ".npmrc"), "script-shell=/bin/true\nnode-options=--require=/tmp/pass.js\n", true},
	})
	assert.Equal(t, "package.json, .npmrc or ~/.npmrc", checkers.DefinedBy(dir, "package.json"))

	// npm_config_userconfig names the user's config in its place.
	other := filepath.Join(t.TempDir(), "npmrc")
	before, err := checkers.DetectTestCommand(dir)
	require.NoError(t, err)
	t.Setenv("npm_config_userconfig", other)
	require.NoError(t, os.WriteFile(other, []byte("script-shell=/bin/true\nnode-options=--require=/tmp/pass.js\n"), 0o644))
	after, err := checkers.DetectTestCommand(dir)
	require.NoError(t, err)
	assert.Equal(t, before.Definition, after.Definition, "the same settings in the file npm_config_userconfig names")
	require.NoError(t, os.WriteFile(other, []byte("script-shell=/bin/false\n"), 0o644))
	after, err = checkers.DetectTestCommand(dir)
	require.NoError(t, err)
	assert.NotEqual(t, before.Definition, after.Definition, "npm_config_userconfig's file read")

	// Not a regular file: an error, which holds, rather than a read that
	// blocks or a definition that skips it.
	require.NoError(t, os.Remove(other))
	require.NoError(t, os.Mkdir(other, 0o755))
	_, err = checkers.DetectTestCommand(dir)
	assert.Error(t, err)
}

// writeIn writes files into dir, a name relative to it or a path.
func writeIn(t *testing.T, dir string) func(name, content string) {
	return func(name, content string) {
		t.Helper()
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, name)
		}
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
}

// definitionChange is a write, and whether it changes the detected
// command's definition from what it was before it.
type definitionChange struct {
	name, file, content string
	changes             bool
}

// testDefinitionChanges makes each change in turn in the project at dir,
// whose detected command is command, from from.
func testDefinitionChanges(t *testing.T, dir, command, from string, changes []definitionChange) {
	t.Helper()
	write := writeIn(t, dir)
	definition := func() string {
		t.Helper()
		d, err := checkers.DetectTestCommand(dir)
		require.NoError(t, err)
		require.Equal(t, command, d.Command)
		require.Equal(t, from, d.From)
		require.NotEmpty(t, d.Definition)
		return d.Definition
	}
	last := definition()
	for _, tt := range changes {
		write(tt.file, tt.content)
		got := definition()
		if tt.changes {
			assert.NotEqual(t, last, got, "%s changes the definition", tt.name)
		} else {
			assert.Equal(t, last, got, "%s does not change the definition", tt.name)
		}
		last = got
	}
}
