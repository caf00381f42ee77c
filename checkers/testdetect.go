package checkers

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"
)

// DetectedTest is the test command a project's files name, as
// DetectTestCommand finds it.
type DetectedTest struct {
	// Command is the command to run, "" when none was detected.
	Command string
	// From is the file it was told by ("go.mod").
	From string
	// Notes say why a file that looked like a sign was not used
	// (`package.json has no "test" script`).
	Notes []string
}

// testKinds are the project kinds whose test command is known, in the
// order they are looked for: the first that matches gives the command.
var testKinds = []struct {
	what   string // for the message when none matches
	detect func(dir string) (command, from string, note string, err error)
}{
	{"go.mod", fileKind("go.mod", "go test ./...")},
	{`package.json with a "test" script`, npmKind},
	{"pyproject.toml, setup.cfg or pytest.ini", fileKind("pyproject.toml", "pytest", "setup.cfg", "pytest.ini")},
	{"Cargo.toml", fileKind("Cargo.toml", "cargo test")},
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
// command on every machine. Files are read through package regular,
// bounded.
func DetectTestCommand(dir string) (DetectedTest, error) {
	var d DetectedTest
	for _, k := range testKinds {
		cmd, from, note, err := k.detect(dir)
		if err != nil {
			return d, err
		}
		if note != "" {
			d.Notes = append(d.Notes, note)
		}
		if cmd != "" {
			d.Command, d.From = cmd, from
			break
		}
	}
	return d, nil
}

// fileKind is a project kind told by one of names being a file.
func fileKind(name, command string, more ...string) func(string) (string, string, string, error) {
	return func(dir string) (string, string, string, error) {
		for _, n := range append([]string{name}, more...) {
			ok, err := file(n).present(dir)
			if err != nil || ok {
				return command, n, "", err
			}
		}
		return "", "", "", nil
	}
}

// npmPlaceholder is in the test script npm init writes, which only fails:
// no test command at all is better than one that can never pass.
const npmPlaceholder = "no test specified"

func npmKind(dir string) (string, string, string, error) {
	data, err := readManifest(dir, "package.json")
	if err != nil || data == nil {
		return "", "", "", err
	}
	if !gjson.ValidBytes(data) {
		return "", "", "", fmt.Errorf("%s: not valid JSON", filepath.Join(dir, "package.json"))
	}
	test := gjson.GetBytes(data, "scripts.test")
	switch {
	case test.Type != gjson.String || strings.TrimSpace(test.Str) == "":
		return "", "", `package.json has no "test" script`, nil
	case strings.Contains(test.Str, npmPlaceholder):
		return "", "", `package.json's "test" script is npm's placeholder, which always fails: not used`, nil
	}
	return "npm test", "package.json", "", nil
}

func makeKind(dir string) (string, string, string, error) {
	for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
		data, err := readManifest(dir, name)
		if err != nil {
			return "", "", "", err
		}
		if data == nil {
			continue
		}
		// make reads the first of these that exists, and only that one.
		if hasMakeTarget(data, "test") {
			return "make test", name, "", nil
		}
		return "", "", name + " has no test target", nil
	}
	return "", "", "", nil
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
