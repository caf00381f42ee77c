package feedback

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlanIncompleteAsTemplate: planIncomplete words an open plan as the
// built-in template does, byte for byte, and leaves params of other
// types to the template.
func TestPlanIncompleteAsTemplate(t *testing.T) {
	tmpl, ok := builtin("plan-incomplete")
	require.True(t, ok)
	viaTemplate := func(params map[string]any) string {
		var b bytes.Buffer
		require.NoError(t, tmpl.Execute(&b, params))
		return strings.TrimSpace(b.String())
	}
	for _, tt := range []struct {
		name string
		open []string
		tool string
	}{
		{"none open", nil, ""},
		{"empty list", []string{}, ""},
		{"one", []string{"Write the parser"}, ""},
		{"three", []string{"a", "b", "c"}, ""},
		{"four: the rest elided", []string{"a", "b", "c", "d"}, ""},
		{"ten, a host's tool", []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, "update_plan"},
		{"a tool", []string{"x"}, "write_todos"},
		{"text that looks like markup", []string{"{{.Open}}", "<b>&amp;</b>", `"quoted"`}, "sql"},
		{"blanks at the end are trimmed", []string{"x", "trailing  \n"}, ""},
		{"empty titles", []string{"", ""}, ""},
		{"unicode", []string{"écrire le README", "テスト"}, "todo_write"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			params := map[string]any{"Open": tt.open, "Total": len(tt.open) + 2, "Source": "todo list", "Tool": tt.tool}
			text, ok := planIncomplete(params)
			require.True(t, ok)
			assert.Equal(t, viaTemplate(params), text)
		})
	}
	for _, params := range []map[string]any{
		{"Open": []any{"a"}, "Total": 1, "Tool": ""},
		{"Open": []string{"a"}, "Total": int64(1), "Tool": ""},
		{"Open": []string{"a"}, "Total": 1},
		{"Total": 1, "Tool": ""},
	} {
		_, ok := planIncomplete(params)
		assert.False(t, ok, "%v", params)
	}
}

// errTooLong is written out rather than formatted at start-up: its number
// must be the bound's.
func TestTooLongNamesTheBound(t *testing.T) {
	assert.Equal(t, fmt.Sprintf("renders more than %d KiB", maxRenderBytes>>10), errTooLong.Error())
}
