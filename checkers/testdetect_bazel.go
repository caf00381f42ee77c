package checkers

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/donegate/donegate/internal/consent"
)

// A repository built with Bazel is tested with `bazel test //...`: Bazel
// knows from its own build graph which tests a change affects, and its
// test cache (local, and a team's remote cache named in .bazelrc) answers
// for the rest, so the stop asks Bazel rather than guessing beside it.
// donegate reuses no result of a Bazel run of its own (see readsOutside):
// Bazel's answer covers what a remembered one could not, the external
// repositories outside the work tree among them, and with its server
// warm an unchanged tree costs it well under a second.
//
// The run is the person's own command, with no startup option of
// donegate's: a different one would restart the Bazel server the person
// uses and throw away its analysis cache.

// bazelRoots are the files that mark a Bazel workspace's root, in the
// order Bazel reads them.
var bazelRoots = []string{"MODULE.bazel", "WORKSPACE.bazel", "WORKSPACE"}

// bazelTestCommand is the test command of a Bazel workspace.
const bazelTestCommand = "bazel test //..."

// maxBazelrcFiles bounds the rc files read through imports: real
// repositories have a handful.
const maxBazelrcFiles = 32

func bazelKind(dir string) (DetectedTest, string, error) {
	for _, name := range bazelRoots {
		ok, err := file(name).present(dir)
		if err != nil {
			return DetectedTest{}, "", err
		}
		if ok {
			def, err := bazelDefinition(dir)
			return DetectedTest{Command: bazelTestCommand, From: name, Definition: def}, "", err
		}
	}
	return DetectedTest{}, "", nil
}

// isBazelRoot reports whether a command detected from the file from is
// Bazel's.
func isBazelRoot(from string) bool { return slices.Contains(bazelRoots, from) }

// bazelDefinition digests what defines how `bazel test //...` runs beyond
// its words: the workspace's .bazelrc and the project's files it imports
// (`import` and `try-import` of %workspace% paths, transitively, absent
// ones noted as such), whose `test` options choose which tests run
// (--test_tag_filters, --test_filter, --build_tests_only), what answers
// for them (--remote_cache, --disk_cache) and how; and .bazelversion,
// which picks the Bazel that bazelisk runs. An rc file outside the
// project (the person's ~/.bazelrc, /etc/bazel.bazelrc) is the person's,
// and not covered, as ~/.npmrc is not for npm.
func bazelDefinition(dir string) (string, error) {
	var b strings.Builder
	version, err := readManifest(dir, ".bazelversion")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, ".bazelversion=%q\n", version)
	seen := map[string]bool{}
	queue := []string{".bazelrc"}
	for len(queue) > 0 && len(seen) < maxBazelrcFiles {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		data, err := readManifest(dir, filepath.FromSlash(name))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s=%q\n", name, data)
		queue = append(queue, bazelrcImports(data)...)
	}
	if len(queue) > 0 {
		fmt.Fprintf(&b, "more=%q\n", queue)
	}
	return consent.Digest([]byte(b.String())), nil
}

// bazelrcImports returns the project files an rc file imports, relative
// to the workspace and slash-separated: the %workspace% paths of its
// `import` and `try-import` lines. Paths elsewhere are not the project's.
func bazelrcImports(data []byte) []string {
	var names []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 2 || (fields[0] != "import" && fields[0] != "try-import") {
			continue
		}
		path := strings.Trim(fields[1], `"'`)
		rel, ok := strings.CutPrefix(path, "%workspace%/")
		if !ok {
			continue
		}
		rel = filepath.ToSlash(filepath.Clean(filepath.FromSlash(rel)))
		if rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			continue
		}
		names = append(names, rel)
	}
	return names
}
