package donegate_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTestSupportStaysInTests: the packages under internal/testsupport
// (the scripted model APIs, FIFO and link helpers, ...) are imported by
// tests, by each other and by the demo only — never by a package a
// binary links.
func TestTestSupportStaysInTests(t *testing.T) {
	const support = "github.com/donegate/donegate/internal/testsupport"
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch path {
			case ".git", ".tools", "node_modules", filepath.Join("e2e", "otelcol"), filepath.Join("internal", "testsupport"), filepath.Join("e2e", "democlaude"):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		require.NoError(t, err)
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			assert.False(t, p == support || strings.HasPrefix(p, support+"/"), "%s imports %s, which tests alone may", path, p)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, checked, 100)
}
