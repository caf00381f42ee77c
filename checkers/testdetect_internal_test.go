package checkers

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHasMakeTarget(t *testing.T) {
	for _, tt := range []struct {
		name     string
		makefile string
		want     bool
	}{
		{"a rule", "test:\n\tgo test\n", true},
		{"with prerequisites", "test: build lint\n", true},
		{"one of several targets", "check test: build\n", true},
		{"double colon", "test::\n\techo\n", true},
		{"only in .PHONY", ".PHONY: test\n", false},
		{"a := variable", "test := 1\n", false},
		{"a ::= variable", "test ::= 1\n", false},
		{"in a recipe", "all:\n\ttest: x\n", false},
		{"a comment", "# test: x\n", false},
		{"a variable holding a colon", "URL = http://test:80\n", false},
		{"a longer name", "tests:\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, hasMakeTarget([]byte(tt.makefile), "test"))
		})
	}
}

func TestProgram(t *testing.T) {
	for command, want := range map[string]string{
		"pytest -q":                   "pytest",
		"CGO_ENABLED=0 go test ./...": "go",
		"  ":                          "",
	} {
		assert.Equal(t, want, program(command), command)
	}
}
