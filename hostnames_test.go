//go:build !windows

// The end-to-end tests of the Linux binaries (sh, FIFOs, process groups);
// the Windows binaries have their own, under Wine (e2e/windows_test.go).

package donegate_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/hookio"
)

// TestOneHomePerHost holds the layout docs/architecture.md describes: a
// host lives in its hookio file and its closer setup file
// (internal/closer/setup_*.go); the checkers, the decision (gate) and
// closer's commands never name one, so that a new host is those two files.
func TestOneHomePerHost(t *testing.T) {
	hosts := hostConsts(t)
	require.Len(t, hosts, len(hookio.Hosts), "hookio's Host constants")
	for _, dir := range []string{"checkers", "internal/gate", "internal/closer", "internal/feedback", "transcript", "cmd/stop-hook", "cmd/posttooluse-hook", "cmd/closer"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") || strings.HasPrefix(filepath.Base(f), "setup_") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			require.NoError(t, err, f)
			ast.Inspect(file, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "hookio" && hosts[sel.Sel.Name] {
					assert.Failf(t, "a host named outside its home", "%s names hookio.%s: ask the host (hookio.Host's methods, a hostSetup field) instead", f, sel.Sel.Name)
				}
				return true
			})
		}
	}
}

// TestOneHomePerHostInHookio: inside hookio too, a host's branches are in
// its own file (its hostSpec); host.go alone names every host (the list,
// the specs' map, DetectHost).
func TestOneHomePerHostInHookio(t *testing.T) {
	hosts := hostConsts(t)
	homes := map[string]bool{"host.go": true}
	for name := range hosts {
		homes[strings.ToLower(strings.TrimPrefix(name, "Host"))+".go"] = true
	}
	files, err := filepath.Glob(filepath.Join("hookio", "*.go"))
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || homes[filepath.Base(f)] {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		require.NoError(t, err, f)
		ast.Inspect(file, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && hosts[id.Name] {
				assert.Failf(t, "a host named outside its home", "%s names %s: give the host's hostSpec a field instead", f, id.Name)
			}
			return true
		})
	}
}

// hostConsts are the names of package hookio's constants of type Host.
func hostConsts(t *testing.T) map[string]bool {
	files, err := filepath.Glob(filepath.Join("hookio", "*.go"))
	require.NoError(t, err)
	names := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		require.NoError(t, err, f)
		for _, decl := range file.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				if typ, ok := vs.Type.(*ast.Ident); ok && typ.Name == "Host" {
					for _, n := range vs.Names {
						names[n.Name] = true
					}
				}
			}
		}
	}
	return names
}
