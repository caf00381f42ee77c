//go:build e2e && !windows

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// Hooks registered once at user level (~/.claude/settings.json) and a
// repository nobody allowed, whose Makefile's test target copies the
// hook's environment out of it (the attack of issue 26): the real CLI's
// Stop runs nothing of the repository, so the agent that answered a
// question stops at once. After closer allow the next session's stop runs
// make test, holds the agent on its failure and lets it go once fixed.
func TestUserLevelHooksRunNothingOfAnUnallowedRepository(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make not on PATH")
	}
	s := newSession(t, fakeapi.New())
	s.NoConsent = true
	stolen := filepath.Join(s.Home, "stolen-env")
	makefile := "test:\n\t@env > " + stolen + "\n\t@test -f fixed || { echo 'FAIL: TestTotal'; exit 1; }\n"
	require.NoError(t, os.WriteFile(filepath.Join(s.Project, "Makefile"), []byte(makefile), 0o644))
	settings, err := json.Marshal(map[string]any{"hooks": map[string]any{
		"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": filepath.Join(hookBinaries(t), "stop-hook"), "timeout": 60}}}},
	}})
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(s.Home, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(s.Home, ".claude", "settings.json"), settings, 0o644))

	// Nobody allowed it: a question answered is let go, make test never ran.
	api := fakeapi.New(fakeapi.Say("It adds numbers."))
	s.API = api
	t.Cleanup(api.Close)
	r := s.run("What does this repository do?")
	assertEnded(t, api, r, "It adds numbers.", 1)
	assert.NoFileExists(t, stolen, "the repository's make test ran unasked")
	// The stop was the hook's: explain --last says why nothing ran.
	c := s.closer(time.Minute, "explain", "--last")
	assert.Contains(t, c.Stdout, "consent: none given for ")
	assert.Contains(t, c.Stdout, "donegate did not run `make test` (test, detected from Makefile) in ")
	assert.Contains(t, c.Stdout, "closer allow --dir ")

	// The person allows it: the next session is held on make test's
	// failure, and let go once the agent fixes it.
	c = s.closer(time.Minute, "allow")
	require.Equal(t, 0, c.Code, c.Stderr)
	assert.Contains(t, c.Stdout, "  `make test` (test, detected from Makefile)\n")
	api = fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "fixed"), "content": "yes\n"}),
		fakeapi.Say("Fixed."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.Args = []string{"--permission-mode", "acceptEdits"}
	r = s.run("Fix the failing test")
	fb := mainTurn(t, api, 1)
	assert.Contains(t, fb, heldWith+"The test command `make test` failed with exit code 2.")
	assert.Contains(t, fb, "FAIL: TestTotal")
	assertEnded(t, api, r, "Fixed.", 3)
	assert.FileExists(t, stolen, "with consent, make test runs")
}
