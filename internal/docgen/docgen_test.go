package docgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPagesAreGenerated: the checked-in pages are what the registry and
// the flag sets give; run `make generate` when this fails.
func TestPagesAreGenerated(t *testing.T) {
	pages, err := Pages("../..")
	require.NoError(t, err)
	require.Len(t, pages, 2)
	for path, want := range pages {
		t.Run(path, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join("../..", path))
			require.NoError(t, err)
			if line, gotLine, wantLine, stale := firstDifference(string(got), string(want)); stale {
				t.Errorf("%s is stale: run make generate (line %d is %q, want %q)", path, line, gotLine, wantLine)
			}
		})
	}
}

// firstDifference finds the first line where got and want differ; the
// whole pages are too long to print.
func firstDifference(got, want string) (line int, gotLine, wantLine string, differ bool) {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		gl, wl := "", ""
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return i + 1, gl, wl, true
		}
	}
	return 0, "", "", false
}

func TestSplice(t *testing.T) {
	tests := []struct {
		name, page, want, err string
	}{
		{name: "replaced", page: "a\n" + beginReference + "old\n" + endReference + "b\n", want: "a\n" + beginReference + "new\n" + endReference + "b\n"},
		{name: "empty", page: beginReference + endReference, want: beginReference + "new\n" + endReference},
		{name: "no markers", page: "a\n", err: "no"},
		{name: "end first", page: endReference + beginReference, err: "no"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := splice([]byte(tt.page), beginReference, endReference, []byte("new\n"))
			if tt.err != "" {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestKind(t *testing.T) {
	tests := []struct {
		name string
		n    node
		want string
	}{
		{"duration", node{"type": "string", "pattern": "^(ns|us|ms)$"}, "duration"},
		{"required string", node{"type": "string", "minLength": 1.0}, "non-empty string"},
		{"left out or at least 1", node{"anyOf": []any{node{"const": 0.0}, node{"type": "integer", "minimum": 1.0}}}, "integer ≥ 1"},
		{"positive", node{"type": "integer", "exclusiveMinimum": 0.0}, "integer > 0"},
		{"string or array", node{"oneOf": []any{node{"type": "string"}, node{"type": "array", "items": node{"type": "string"}, "minItems": 1.0}}}, "string or non-empty array of string items"},
		{"enum", node{"enum": []any{"all", "any"}}, "one of `\"all\"`, `\"any\"`"},
		{"members", node{"type": "array", "items": node{"$ref": "#/$defs/checker"}}, "array of checkers"},
		{"any value", node{"description": "x"}, "any JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, kind(tt.n))
		})
	}
}

func TestCell(t *testing.T) {
	assert.Equal(t, "a \\| b `x\\|y` \\*.go \\\\. &lt;promise> `\\.`", cell("a | b `x|y` *.go \\. <promise> `\\.`"))
}
