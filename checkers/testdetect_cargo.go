package checkers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/donegate/donegate/internal/consent"
)

// cargoKind is a project with a Cargo.toml: `cargo test`, defined beyond
// its words by Cargo's config files (see cargoDefinition).
func cargoKind(dir string) (DetectedTest, string, error) {
	ok, err := file("Cargo.toml").present(dir)
	if err != nil || !ok {
		return DetectedTest{}, "", err
	}
	def, err := cargoDefinition(dir)
	return DetectedTest{Command: "cargo test", From: "Cargo.toml", Definition: def}, "", err
}

// cargoConfigNames are the names of a Cargo config file in a .cargo dir
// (and in $CARGO_HOME), the second the older spelling Cargo still reads.
var cargoConfigNames = []string{"config.toml", "config"}

// cargoDefinition digests what defines how `cargo test` runs beyond its
// words: the Cargo config files Cargo reads for the project at dir — a
// .cargo/config.toml (or .cargo/config) in dir and in each dir above it,
// and in $CARGO_HOME (~/.cargo) — whose keys choose what runs the test
// binaries (target.<triple>.runner, a wrapper of rustc), which flags and
// environment they are built and run with (build.rustflags, [env]), and
// so which tests there are: one `runner = "true"` passes every test.
// Credentials (credentials.toml, written by cargo login) are not
// covered. "" where there is none, as before donegate read them: a
// project allowed then stays allowed until one is written.
func cargoDefinition(dir string) (string, error) {
	var paths []string
	for d := filepath.Clean(dir); ; {
		for _, name := range cargoConfigNames {
			paths = append(paths, filepath.Join(d, ".cargo", name))
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	home := os.Getenv("CARGO_HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = filepath.Join(h, ".cargo")
		}
	}
	if home != "" {
		for _, name := range cargoConfigNames {
			paths = append(paths, filepath.Join(home, name))
		}
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		data, err := readUserFile(p)
		if err != nil {
			return "", err
		}
		if data != nil {
			fmt.Fprintf(&b, "%s=%q\n", p, data)
		}
	}
	if b.Len() == 0 {
		return "", nil
	}
	return consent.Digest([]byte(b.String())), nil
}
