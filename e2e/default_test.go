//go:build e2e && !windows

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// With no config at all, a Go project with a failing test: the embedded
// default runs the project's own test command (go test ./..., detected
// from go.mod), so the agent, which has no plan tool on today's default
// models, is held with the failure and let go once its fix makes the
// test pass. The plan alone, the default before, let it stop at once.
func TestDefaultHoldsAGoProjectUntilItsTestsPass(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	s := newSession(t, fakeapi.New())
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.21\n",
		"calc.go":      "package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
	}
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(s.Project, name), []byte(content), 0o644))
	}
	api := fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "calc.go"),
			"content": "package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a + b }\n"}),
		fakeapi.Say("Fixed: Add adds."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.Args = []string{"--permission-mode", "acceptEdits"}
	// The developer's build cache keeps the hook's go test quick; no
	// toolchain is ever fetched.
	cache, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	s.Env = []string{"GOCACHE=" + strings.TrimSpace(string(cache)), "GOTOOLCHAIN=local", "GOFLAGS=", "GOPATH=" + filepath.Join(s.Home, "go")}
	s.useDonegate() // and no .claude/donegate.json
	r := s.run("Make Add correct")

	fb := mainTurn(t, api, 1)
	assert.Contains(t, fb, heldWith+"The test command `go test ./...` failed with exit code 1.")
	assert.Contains(t, fb, "Add(2, 3) = -1, want 5")
	assertEnded(t, api, r, "Fixed: Add adds.", 3)
	_, err = os.Stat(filepath.Join(s.Project, ".claude", "donegate.json"))
	assert.ErrorIs(t, err, os.ErrNotExist, "no config was written")
}
