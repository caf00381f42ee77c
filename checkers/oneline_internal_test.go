package checkers

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestOneLine: a recipe's lines stay apart in a message's one line (issue
// 45: "date >> m echo running tests; exit 1" read as one command).
func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"go test ./...":                         "go test ./...",
		"  go   test\t./...  ":                  "go test ./...",
		"date >> m\necho running tests; exit 1": "date >> m; echo running tests; exit 1",
		"a\n\n  b  \n":                          "a; b",
		"":                                      "",
	} {
		assert.Equal(t, want, oneLine(in), "%q", in)
	}
}
