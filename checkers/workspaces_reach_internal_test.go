package checkers

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReachOf: what a package's files reach beyond its manifest, in each
// form a test or a config names another package.
func TestReachOf(t *testing.T) {
	pkgs := []wsPackage{{Name: "a", Dir: "packages/a"}, {Name: "@s/b", Dir: "packages/b"}, {Name: "c", Dir: "libs/c"}}
	tests := []struct {
		name  string
		files map[string]string
		js    bool
		deps  map[string][]string // beyond the manifests
		wide  []string            // taken to depend on every package
		out   bool                // reaches outside the work tree
	}{
		{"nothing", map[string]string{"packages/a/index.js": "require('./x'); import y from '../a/y'"}, true, nil, nil, false},
		{"a relative require", map[string]string{"packages/a/test.js": "require('../b/index.js')"}, true, map[string][]string{"a": {"@s/b"}}, nil, false},
		{"from a nested file, as the file's dir and the package's", map[string]string{"packages/a/test/t.js": `import x from "../../../libs/c/x"`}, true, map[string][]string{"a": {"c"}}, nil, false},
		{"a Windows separator", map[string]string{"packages/a/t.js": `read("..\\b\\data.json")`}, true, map[string][]string{"a": {"@s/b"}}, nil, false},
		{"a dir holding packages", map[string]string{"libs/c/t.js": "fs.readdirSync('../../packages')"}, true, map[string][]string{"c": {"@s/b", "a"}}, nil, false},
		{"a glob alias", map[string]string{"packages/a/vite.config.ts": "alias: {'@c': '../../libs/c/src/*'}"}, true, map[string][]string{"a": {"c"}}, nil, false},
		{"'..' pieces that stay inside", map[string]string{"packages/a/test/t.js": "path.resolve(__dirname, '..')"}, true, nil, nil, false},
		{"'..' pieces that climb out", map[string]string{"packages/a/t.js": "path.join(__dirname, '..', 'b')"}, true, map[string][]string{"a": {"@s/b"}}, nil, false},
		{"'..' pieces that climb to the root", map[string]string{"packages/a/test/t.js": "path.join(__dirname, '..', '..', '..', 'libs')"}, true, map[string][]string{"a": {"@s/b", "c"}}, nil, false},
		{"a base not written there", map[string]string{"packages/a/t.js": "`${root}/../b`"}, true, map[string][]string{"a": {"@s/b", "c"}}, []string{"a"}, false},
		{"an ellipsis, a range, a spread", map[string]string{"packages/a/t.js": "wait... [...xs] a..b 'x..'"}, true, nil, nil, false},
		{"a package's name", map[string]string{"packages/a/t.js": `const b = require("@s/b/lib/x")`}, true, map[string][]string{"a": {"@s/b"}}, nil, false},
		{"a name in a Cargo workspace", map[string]string{"packages/a/t.rs": `let s = "c";`}, false, nil, nil, false},
		{"include_str! in a crate", map[string]string{"packages/a/src/lib.rs": `include_str!("../../b/data.txt")`}, false, map[string][]string{"a": {"@s/b"}}, nil, false},
		{"a root tsconfig alias", map[string]string{
			"tsconfig.base.json":  "{\n// comment\n\"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@lib/*\": [\"libs/c/*\"],},},}",
			"packages/a/index.ts": `import { x } from '@lib/x'`}, true, map[string][]string{"a": {"c"}}, nil, false},
		{"a package's tsconfig alias, without baseUrl", map[string]string{
			"packages/b/tsconfig.json": `{"compilerOptions": {"paths": {"~a": ["../a/src/index.ts"]}}}`,
			"packages/b/index.ts":      `import a from "~a"`}, true, map[string][]string{"@s/b": {"a"}}, nil, false},
		{"a tsconfig with paths that does not parse", map[string]string{"packages/a/tsconfig.json": `{"compilerOptions": {"paths": {`}, true,
			map[string][]string{"a": {"@s/b", "c"}}, []string{"a"}, false},
		{"a root bundler config naming a package's dir", map[string]string{"vitest.config.ts": `alias: {x: 'libs/c/src'}`}, true,
			map[string][]string{"a": {"c"}, "@s/b": {"c"}}, nil, false},
		{"out of the work tree", map[string]string{"packages/a/t.js": "require('../../../ext/x')"}, true, nil, nil, true},
		{"'..' pieces above the project dir, over several calls", map[string]string{"packages/a/t.js": "join(__dirname, '..')\njoin(__dirname, '..', 'x')\njoin(__dirname, '..', '..')"}, true,
			map[string][]string{"a": {"@s/b", "c"}}, nil, false},
		{"a binary file", map[string]string{"packages/a/x.bin": "\x00require('../b')"}, true, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			top := t.TempDir()
			var files []string
			for name, body := range tt.files {
				p := filepath.Join(top, filepath.FromSlash(name))
				require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
				files = append(files, name)
			}
			sort.Strings(files)
			inRepo := func(rel string) bool { p := path.Clean(rel); return p != ".." && !strings.HasPrefix(p, "../") }
			kind := "Cargo.toml"
			if tt.js {
				kind = "package.json"
			}
			re, err := reachOf(context.Background(), top, "", files, pkgs, inRepo, kind)
			require.NoError(t, err)
			want := tt.deps
			if want == nil {
				want = map[string][]string{}
			}
			assert.Equal(t, want, re.Deps)
			var wide []string
			for name := range re.Wide {
				wide = append(wide, name)
			}
			sort.Strings(wide)
			assert.Equal(t, tt.wide, wide)
			assert.Equal(t, tt.out, re.Outside != "", re.Outside)
		})
	}
}

// TestDotTokens: the path tokens around a '..' segment.
func TestDotTokens(t *testing.T) {
	assert.Equal(t, []string{"../a/b.js", "..", "./x/../y"}, dotTokens([]byte(`require('../a/b.js'); join(d, '..'); "./x/../y" ... a..b`)))
}

func TestJSONCToJSON(t *testing.T) {
	in := "{\n  // a comment\n  \"a\": \"http://x\", /* another */ \"b\": [1, 2,],\n}"
	assert.JSONEq(t, `{"a":"http://x","b":[1,2]}`, string(jsoncToJSON([]byte(in))))
}

// BenchmarkReachOf reads a workspace of 50 packages of 100 files of
// about 4 KB each (20 MB of sources), as a stop does.
func BenchmarkReachOf(b *testing.B) {
	top := b.TempDir()
	var pkgs []wsPackage
	var files []string
	line := "import { thing } from '../lib/thing.js'\nconst x = path.join(__dirname, 'fixtures', 'a.json') // a comment with it's quote\n"
	body := strings.Repeat(line, 4096/len(line))
	for p := range 50 {
		pkgs = append(pkgs, wsPackage{Name: fmt.Sprintf("p%d", p), Dir: fmt.Sprintf("packages/p%d", p)})
		for f := range 100 {
			name := fmt.Sprintf("packages/p%d/src/lib/m%d.js", p, f)
			files = append(files, name)
			require.NoError(b, os.MkdirAll(filepath.Dir(filepath.Join(top, name)), 0o755))
			require.NoError(b, os.WriteFile(filepath.Join(top, name), []byte(body), 0o644))
		}
	}
	inRepo := func(string) bool { return true }
	b.ResetTimer()
	for range b.N {
		if _, err := reachOf(context.Background(), top, "", files, pkgs, inRepo, "package.json"); err != nil {
			b.Fatal(err)
		}
	}
}

// reachOf stops when its context ends: the stop's share of time for
// looking at the tree bounds it.
func TestReachOfStopsWithItsContext(t *testing.T) {
	top := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(top, "packages", "a"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(top, "packages", "a", "t.js"), []byte("require('../b')"), 0o644))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := reachOf(ctx, top, "", []string{"packages/a/t.js"}, []wsPackage{{Name: "a", Dir: "packages/a"}, {Name: "b", Dir: "packages/b"}},
		func(string) bool { return true }, "package.json")
	require.ErrorIs(t, err, context.Canceled)
}
