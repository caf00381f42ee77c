package checkers

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/donegate/donegate/internal/consent"
)

// A repository built with Bazel is tested with `bazel test //...`: Bazel
// knows from its own build graph which tests a change affects, and its
// test cache (local, and a team's remote cache named in .bazelrc) answers
// for the rest, so the stop asks Bazel rather than guessing beside it.
// donegate reuses no result of a Bazel run of its own (see ownCache):
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
// its words: the workspace's .bazelrc and the user's ~/.bazelrc, which
// Bazel reads by default, the rc files they import (`import` and
// `try-import`, of %workspace% paths or any other, transitively; absent
// ones noted as such), whose `test` options choose which tests run
// (--test_tag_filters, --test_filter, --build_tests_only), what answers
// for them (--remote_cache, --disk_cache) and how; and .bazelversion,
// which picks the Bazel that bazelisk runs. The system's
// /etc/bazel.bazelrc is not covered: the agent, running as the person,
// cannot write it.
func bazelDefinition(dir string) (string, error) {
	var b strings.Builder
	version, err := readManifest(dir, ".bazelversion")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, ".bazelversion=%q\n", version)
	queue := []string{filepath.Join(dir, ".bazelrc")}
	if home, err := os.UserHomeDir(); err == nil {
		queue = append(queue, filepath.Join(home, ".bazelrc"))
	}
	seen := map[string]bool{}
	for len(queue) > 0 && len(seen) < maxBazelrcFiles {
		path := queue[0]
		queue = queue[1:]
		if seen[path] {
			continue
		}
		seen[path] = true
		data, err := readUserFile(path)
		if err != nil {
			return "", err
		}
		label := bazelrcLabel(dir, path)
		if data == nil && strings.HasPrefix(label, "~") {
			// The user's, absent: as it was before donegate read it.
			continue
		}
		fmt.Fprintf(&b, "%s=%q\n", label, data)
		queue = append(queue, bazelrcImports(dir, data)...)
	}
	if len(queue) > 0 {
		fmt.Fprintf(&b, "more=%q\n", queue)
	}
	return consent.Digest([]byte(b.String())), nil
}

// bazelrcLabel names an rc file in the digest: slash-separated and
// relative to the workspace at dir when in it, "~/.bazelrc" for the
// user's, else its path.
func bazelrcLabel(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	if home, err := os.UserHomeDir(); err == nil && path == filepath.Join(home, ".bazelrc") {
		return "~/.bazelrc"
	}
	return path
}

// bazelrcImports returns the paths of the rc files an rc file imports:
// its `import` and `try-import` lines, %workspace% resolved against the
// workspace at dir. A relative path, which Bazel does not accept, is
// skipped.
func bazelrcImports(dir string, data []byte) []string {
	var paths []string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 2 || (fields[0] != "import" && fields[0] != "try-import") {
			continue
		}
		path := strings.Trim(fields[1], `"'`)
		if rel, ok := strings.CutPrefix(path, "%workspace%/"); ok {
			path = filepath.Join(dir, filepath.FromSlash(rel))
		}
		if !filepath.IsAbs(path) {
			continue
		}
		paths = append(paths, filepath.Clean(path))
	}
	return paths
}
