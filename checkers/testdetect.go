package checkers

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/consent"
)

// DetectedTest is the test command a project's files name, as
// DetectTestCommand finds it.
type DetectedTest struct {
	// Command is the command to run, "" when none was detected.
	Command string
	// From is the file it was told by ("go.mod").
	From string
	// Definition is the digest of what defines the command beyond its
	// words, which consent is given for (see testDefinition); "" for a
	// command no file of the project changes.
	Definition string
	// Notes say why a file that looked like a sign was not used
	// (`package.json has no "test" script`).
	Notes []string
}

// ProjectCommand is the detected command as the test checker runs it.
func (d DetectedTest) ProjectCommand() ProjectCommand {
	return ProjectCommand{Checker: "test", Command: d.Command, From: d.From, Definition: d.Definition}
}

// testKinds are the project kinds whose test command is known, in the
// order they are looked for: the first that matches gives the command.
var testKinds = []struct {
	what   string // for the message when none matches
	detect func(dir string) (d DetectedTest, note string, err error)
}{
	// First: a repository built with Bazel has its tests in its build
	// graph, whatever else it holds (a go.mod for editors, say).
	{"MODULE.bazel, WORKSPACE.bazel or WORKSPACE", bazelKind},
	{"go.mod", fileKind("go.mod", "go test ./...")},
	{"go.work", goWorkKind},
	{`package.json with a "test" script`, npmKind},
	{"pyproject.toml, setup.cfg or pytest.ini", fileKind("pyproject.toml", "pytest", "setup.cfg", "pytest.ini")},
	{"Cargo.toml", cargoKind},
	{"a Makefile with a test target", makeKind},
}

// TestSigns says what DetectTestCommand looks for, in its order, for
// messages that say nothing was found.
func TestSigns() string {
	looked := make([]string, len(testKinds))
	for i, k := range testKinds {
		looked[i] = k.what
	}
	return strings.Join(looked, "; ")
}

// DetectTestCommand returns the test command the project in dir names in
// its files: closer init writes it into the config, and a test checker
// without a command runs it. Only files are looked at, never which tools
// are installed, as the presets do, so the same project gets the same
// command on every machine. Only regular files count, read through
// package regular, bounded: a go.mod that is a link to /dev/zero is no
// sign of a Go module.
func DetectTestCommand(dir string) (DetectedTest, error) {
	var notes []string
	for _, k := range testKinds {
		d, note, err := k.detect(dir)
		if err != nil {
			return DetectedTest{Notes: notes}, err
		}
		if note != "" {
			notes = append(notes, note)
		}
		if d.Command != "" {
			d.Notes = notes
			return d, nil
		}
	}
	return DetectedTest{Notes: notes}, nil
}

// What each detected command's consent covers (its Definition), and why:
//
//   - go test ./..., pytest: nothing beyond the command. Which program
//     runs and how is donegate's choice; what it then runs is the
//     project's code — its tests, conftest.py, build.rs — which is
//     exactly what the person allowed to be tested, and which the agent
//     is expected to change. A go.mod or Cargo.toml that gains a
//     dependency does not void consent.
//   - cargo test: the same, and the Cargo config files Cargo reads for
//     the project (.cargo/config.toml here and above, $CARGO_HOME's),
//     whose runner, rustc wrapper, flags and [env] change what runs (see
//     cargoDefinition).
//   - npm test: the package's "pretest", "test" and "posttest" scripts,
//     which npm runs in turn, and the project's .npmrc and the user's,
//     whose script-shell and node-options change how they run (the
//     user's without its credentials, see userNpmrc); and turbo.json
//     and nx.json where there are, whose tasks, inputs and caching decide
//     what a root script through them runs. Editing the test script
//     changes what "the tests" are.
//   - make test: the whole makefile make reads: the test rule's recipe,
//     its prerequisites and the variables they expand can be anywhere in
//     it. Files it includes are not covered.
//   - bazel test //...: the workspace's .bazelrc, the user's, the rc
//     files they import and .bazelversion (see bazelDefinition); not the
//     BUILD files, which are the project's code as its tests are.
//
// A user's rc file counts although it is the person's: outside a sandbox
// the agent's shell can write it as well as the project's, and one line
// there (script-shell=true, test --test_tag_filters=-broken) passes any
// test.
//
// DefinedBy names the files of the project at dir that define a command
// detected from the file from, as its Definition digests them, for
// messages: "package.json", "package.json or .npmrc", "package.json,
// .npmrc or turbo.json" (the ones present beside package.json).
func DefinedBy(dir, from string) string {
	if isBazelRoot(from) {
		return ".bazelrc, ~/.bazelrc, a file they import or .bazelversion"
	}
	if from == "Cargo.toml" {
		return "a .cargo/config.toml (the project's, a dir's above it, or ~/.cargo's)"
	}
	files := []string{from}
	if from == "package.json" {
		for _, name := range []string{".npmrc", "turbo.json", "nx.json"} {
			if ok, _ := file(name).present(dir); ok {
				files = append(files, name)
			}
		}
		if user, _ := userNpmrc(); user != nil {
			files = append(files, "~/.npmrc")
		}
	}
	if len(files) == 1 {
		return from
	}
	return strings.Join(files[:len(files)-1], ", ") + " or " + files[len(files)-1]
}

// testDefinition is npm's and make's digest; "" for the others (Bazel's
// is bazelDefinition).
func testDefinition(dir, from string, data []byte) (string, error) {
	switch from {
	case "package.json":
		var b strings.Builder
		for _, s := range []string{"pretest", "test", "posttest"} {
			v := gjson.GetBytes(data, "scripts."+gjson.Escape(s))
			fmt.Fprintf(&b, "%s=%q\n", s, v.Raw)
		}
		npmrc, err := readManifest(dir, ".npmrc")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, ".npmrc=%q\n", npmrc)
		user, err := userNpmrc()
		if err != nil {
			return "", err
		}
		if user != nil {
			fmt.Fprintf(&b, "~/.npmrc=%q\n", user)
		}
		// The build graph a root script runs the tests through: which
		// tasks run, on what inputs, and what its cache may answer.
		for _, name := range []string{"turbo.json", "nx.json"} {
			graph, err := readManifest(dir, name)
			if err != nil {
				return "", err
			}
			if graph != nil {
				fmt.Fprintf(&b, "%s=%q\n", name, graph)
			}
		}
		return consent.Digest([]byte(b.String())), nil
	case "GNUmakefile", "makefile", "Makefile":
		return consent.Digest(data), nil
	}
	return "", nil
}

// userNpmrc is what of the user's npm config (npm_config_userconfig,
// else ~/.npmrc) changes how npm runs a script: its lines but comments,
// blank ones and credentials — the registry-scoped keys (//host/:…) and
// _auth, _authToken, _password, username, email —, which `npm login`
// rewrites and which run nothing. nil when nothing is kept, so that a
// file of credentials alone changes no project's consent.
func userNpmrc() ([]byte, error) {
	path := cmp.Or(os.Getenv("npm_config_userconfig"), os.Getenv("NPM_CONFIG_USERCONFIG"))
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, nil
		}
		path = filepath.Join(home, ".npmrc")
	}
	data, err := readUserFile(path)
	if err != nil || data == nil {
		return nil, err
	}
	var kept []byte
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		key, _, _ := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case strings.HasPrefix(key, "//"), key == "_auth", key == "_authToken", key == "_password", key == "username", key == "email":
		default:
			kept = append(append(kept, line...), '\n')
		}
	}
	return kept, nil
}

// readUserFile reads a config file of the user's at path, as readManifest
// reads the project's: nil when absent, an error when it is not a regular
// file or cannot be read.
func readUserFile(path string) ([]byte, error) {
	return readManifest(filepath.Dir(path), filepath.Base(path))
}

// fileKind is a project kind told by one of names being a regular file.
func fileKind(name, command string, more ...string) func(string) (DetectedTest, string, error) {
	return func(dir string) (DetectedTest, string, error) {
		for _, n := range append([]string{name}, more...) {
			ok, err := file(n).present(dir)
			if err != nil {
				return DetectedTest{}, "", err
			}
			if ok {
				return DetectedTest{Command: command, From: n}, "", nil
			}
		}
		return DetectedTest{}, "", nil
	}
}

// npmPlaceholder is in the test script npm init writes, which only fails:
// no test command at all is better than one that can never pass.
const npmPlaceholder = "no test specified"

func npmKind(dir string) (DetectedTest, string, error) {
	data, err := readManifest(dir, "package.json")
	if err != nil || data == nil {
		return DetectedTest{}, "", err
	}
	if !gjson.ValidBytes(data) {
		return DetectedTest{}, "", fmt.Errorf("%s: not valid JSON", filepath.Join(dir, "package.json"))
	}
	test := gjson.GetBytes(data, "scripts.test")
	switch {
	case test.Type != gjson.String || strings.TrimSpace(test.Str) == "":
		return DetectedTest{}, `package.json has no "test" script`, nil
	case strings.Contains(test.Str, npmPlaceholder):
		return DetectedTest{}, `package.json's "test" script is npm's placeholder, which always fails: not used`, nil
	}
	def, err := testDefinition(dir, "package.json", data)
	if err != nil {
		return DetectedTest{}, "", err
	}
	return DetectedTest{Command: "npm test", From: "package.json", Definition: def}, "", nil
}

func makeKind(dir string) (DetectedTest, string, error) {
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		data, err := readManifest(dir, name)
		if err != nil {
			return DetectedTest{}, "", err
		}
		if data == nil {
			continue
		}
		// make reads the first of these that exists, and only that one.
		// Makefile, the last, is the one a case-insensitive file system
		// cannot have answered for another spelling.
		if name != "Makefile" {
			name = storedName(dir, name)
		}
		if hasMakeTarget(data, "test") {
			def, err := testDefinition(dir, name, data)
			return DetectedTest{Command: "make test", From: name, Definition: def}, "", err
		}
		return DetectedTest{}, name + " has no test target", nil
	}
	return DetectedTest{}, "", nil
}

// storedName is name as the directory spells it: on a file system that
// ignores case (Windows, macOS) "makefile" opens a file named Makefile,
// and the person should read the name they gave it. It lists dir only
// when a name in another case opens the same file.
func storedName(dir, name string) string {
	other := strings.ToUpper(name[:1]) + name[1:]
	if other == name {
		other = strings.ToLower(name[:1]) + name[1:]
	}
	a, errA := os.Stat(filepath.Join(dir, name))
	b, errB := os.Stat(filepath.Join(dir, other))
	if errA != nil || errB != nil || !os.SameFile(a, b) {
		return name
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return name
	}
	for _, e := range entries {
		if strings.EqualFold(e.Name(), name) {
			return e.Name()
		}
	}
	return name
}

// hasMakeTarget reports whether a makefile has a rule for target: a line
// not indented by a tab whose targets, before a ':' that does not start
// ':=' or '::=', include it. Not a make parser: targets made by variables
// or includes are not seen, and are then simply not used.
func hasMakeTarget(data []byte, target string) bool {
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "\t") || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		i := strings.IndexByte(line, ':')
		if i < 0 || strings.HasPrefix(line[i:], ":=") || strings.HasPrefix(line[i:], "::=") || strings.ContainsAny(line[:i], "=$") {
			continue
		}
		for _, t := range strings.Fields(line[:i]) {
			if t == target {
				return true
			}
		}
	}
	return false
}

// goWorkKind detects a Go workspace whose root is no module: at its
// root `go test ./...` fails ("directory prefix . does not contain
// modules listed in go.work", measured with Go 1.26), so the command
// names each module the go.work uses: `go test ./a/... ./b/...`. A
// module out of the project (a path with ..), or a path quoted or with
// spaces, is not guessed at: nothing is detected, and the note says so.
func goWorkKind(dir string) (DetectedTest, string, error) {
	data, err := readManifest(dir, "go.work")
	if err != nil || data == nil {
		return DetectedTest{}, "", err
	}
	var patterns []string
	block := false
	for _, line := range strings.Split(string(data), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		var path string
		switch {
		case len(f) == 0:
			continue
		case block && f[0] == ")":
			block = false
			continue
		case block && len(f) == 1:
			path = f[0]
		case !block && f[0] == "use" && len(f) == 2 && f[1] == "(":
			block = true
			continue
		case !block && f[0] == "use" && len(f) == 2:
			path = f[1]
		case block:
			return DetectedTest{}, "go.work has a use line not read here: not used", nil
		default:
			continue // go, toolchain, replace, godebug
		}
		clean := filepath.ToSlash(filepath.Clean(path))
		if strings.ContainsAny(path, "\"'`") || filepath.IsAbs(path) || clean == ".." || strings.HasPrefix(clean, "../") {
			return DetectedTest{}, fmt.Sprintf("go.work uses %s, which is not a module dir inside the project: not used", path), nil
		}
		pattern := "./..."
		if clean != "." {
			pattern = "./" + clean + "/..."
		}
		if !slices.Contains(patterns, pattern) {
			patterns = append(patterns, pattern)
		}
	}
	if len(patterns) == 0 {
		return DetectedTest{}, "go.work uses no module: not used", nil
	}
	return DetectedTest{Command: "go test " + strings.Join(patterns, " "), From: "go.work"}, "", nil
}
