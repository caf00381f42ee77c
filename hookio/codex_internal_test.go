package hookio

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHasOutputSchema(t *testing.T) {
	assert.True(t, hasOutputSchema([]string{"exec", "--json", "--output-schema", "/tmp/s.json", "Do it"}))
	assert.True(t, hasOutputSchema([]string{"exec", "--output-schema=/tmp/s.json", "Do it"}))
	assert.False(t, hasOutputSchema([]string{"exec", "--json", "Do it"}))
	assert.False(t, hasOutputSchema([]string{"exec", "--", "--output-schema", "x"}), "after -- it is the prompt")
	// Not under Codex (go test is the parent): it cannot be told, and a
	// JSON message is then no structured answer.
	assert.False(t, codexWithSchema())
}

// TestCodexPatchPaths: the files an apply_patch patch writes, whichever
// way it names them; none in a patch of none.
func TestCodexPatchPaths(t *testing.T) {
	tests := []struct {
		name, patch string
		want        []string
	}{
		{"add, update, delete and move", "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: src/b.go\n*** Move to: src/c.go\n@@\n-x\n+y\n*** Delete File: /abs/d.txt\n*** End Patch\n",
			[]string{"a.txt", "src/b.go", "src/c.go", "/abs/d.txt"}},
		{"CRLF lines", "*** Begin Patch\r\n*** Add File: .codex/hooks.json\r\n+{}\r\n*** End Patch\r\n", []string{".codex/hooks.json"}},
		{"a content line (+) that looks like a header is content", "*** Begin Patch\n*** Add File: notes.md\n+*** Add File: x\n*** End Patch", []string{"notes.md"}},
		{"none", "echo hi", nil},
		{"a header with no path", "*** Add File: \n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, codexPatchPaths(tt.patch))
		})
	}
}
