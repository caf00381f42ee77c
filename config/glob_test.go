package config_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
)

// filesConfig is a config whose one checker requires path.
func filesConfig(t testing.TB, path string) []byte {
	t.Helper()
	p, err := json.Marshal(path)
	require.NoError(t, err)
	return []byte(`{"checkers":[{"type":"files","paths":[` + string(p) + `]}]}`)
}

// checkFiles runs the files checker for path in dir.
func checkFiles(dir, path string) error {
	_, err := checkers.Files{Paths: []string{path}}.Check(context.Background(), &checkers.Context{ProjectDir: dir})
	return err
}

// TestRefusedPatternsFailTheFilesChecker: a pattern the config refuses
// does make the files checker fail, once the project holds the files that
// lead filepath.Glob to the broken part. Without the check at load, that
// stop and every later one would fail open.
func TestRefusedPatternsFailTheFilesChecker(t *testing.T) {
	tests := []struct {
		pattern string
		files   []string // in the project; none make the checker fail
	}{
		{"dist/[", nil},
		{"dist/*[", []string{"dist/x"}},
		{`x*\`, []string{"xa"}},
		{"a*b*[z-", []string{"ab"}},
		{"dist/[a/b]", nil},
		{`a\/b*`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			skipUnixEscape(t, tt.pattern)
			_, err := config.Parse(strings.NewReader(string(filesConfig(t, tt.pattern))), "t.json")
			require.ErrorContains(t, err, "checkers[0].paths[0]: invalid glob pattern")

			dir := t.TempDir()
			for _, f := range tt.files {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
			}
			assert.ErrorIs(t, checkFiles(dir, tt.pattern), filepath.ErrBadPattern)
		})
	}
}

// FuzzAcceptedPatternsNeverFailTheFilesChecker: a pattern the config
// accepts is read in full by filepath.Match whatever the name it meets,
// and the files checker never reports it malformed.
func FuzzAcceptedPatternsNeverFailTheFilesChecker(f *testing.F) {
	dir := f.TempDir()
	for _, p := range []string{"a", "ab", "b.go", "[x]", "*", `\`, "-", "]", "é", "xa", "d/e", "d/f.txt", "dist/x", "dist/[a/b]"} {
		if runtime.GOOS == "windows" && strings.ContainsAny(p, `\*?<>:"|`) {
			continue // a separator there, or a character no Windows name holds
		}
		if strings.Contains(p, "/") {
			require.NoError(f, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		}
		require.NoError(f, os.WriteFile(filepath.Join(dir, p), nil, 0o644))
	}
	for _, seed := range [][2]string{
		{"*.go", "b.go"}, {"dist/*[", "x"}, {`x*\`, "xa"}, {"[*[]", "["}, {"d/[e-f]*", "e"},
		{"[^a]*", "b"}, {"a*b*[z-", "ab"}, {"**/[x]", "x"}, {`\[x]`, "[x]"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if !utf8.ValidString(pattern) {
			return // a config cannot hold it; json.Marshal would change it
		}
		if runtime.GOOS == "windows" && strings.Contains(pattern+name, `\`) {
			return // a separator there: not a name a directory can hold
		}
		if _, err := config.Parse(strings.NewReader(string(filesConfig(t, pattern))), "t.json"); err != nil {
			return
		}
		if !config.IsGlob(pattern) {
			return // a plain path, such as `\`: looked up, never matched
		}
		// Glob matches the whole pattern, and each part between
		// separators against the entries of a directory.
		for _, p := range append(strings.Split(pattern, "/"), pattern) {
			if _, err := filepath.Match(p, name); err != nil {
				t.Fatalf("accepted %q, but Match(%q, %q): %v", pattern, p, name, err)
			}
		}
		// Only where Glob cannot leave the project: elsewhere it would read
		// the whole machine's directories.
		if filepath.IsAbs(pattern) || !strings.HasPrefix(filepath.Join(dir, pattern), dir+"/") {
			return
		}
		if err := checkFiles(dir, pattern); errors.Is(err, filepath.ErrBadPattern) {
			t.Fatalf("accepted %q, but the files checker: %v", pattern, err)
		}
	})
}
