package checkers

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRerunRunsWhatFailed(t *testing.T) {
	goOut := "--- FAIL: TestTotal (0.00s)\n    --- FAIL: TestTotal/empty (0.00s)\n--- FAIL: TestSub (0.01s)\nFAIL\nFAIL\texample.com/calc\t0.004s\n"
	for _, tt := range []struct {
		command, output, want string
		tests                 []string
	}{
		{"go test ./...", goOut, "go test ./... -count=1 -run '^(TestTotal|TestSub)$'", []string{"TestTotal", "TestSub"}},
		{"CGO_ENABLED=0 go test -race ./...", goOut, "CGO_ENABLED=0 go test -race ./... -count=1 -run '^(TestTotal|TestSub)$'", []string{"TestTotal", "TestSub"}},
		{"go test ./...", "build failed\n", "go test ./...", nil},
		{"pytest -q", "FAILED test_x.py::test_total\n", "pytest -q --lf", nil},
		{"python -m pytest", "", "python -m pytest --lf", nil},
		{"npm test", "✕ totals\n", "npm test", nil},
		// A shell command is run again as it is: flags appended to it
		// would go to its last command.
		{"go test ./... | tee log", goOut, "go test ./... | tee log", nil},
	} {
		got, tests := rerun(tt.command, tt.output)
		assert.Equal(t, tt.want, got, tt.command)
		assert.Equal(t, tt.tests, tests, tt.command)
	}
}
