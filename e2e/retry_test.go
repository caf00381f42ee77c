//go:build e2e && !windows

package e2e

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// TestRetryTemplateReachesTheModel: a user's retry template words what the
// real CLI hands the model as the Stop hook's feedback.
func TestRetryTemplateReachesTheModel(t *testing.T) {
	t.Parallel()
	s := newSession(t, fakeapi.New())
	api := fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("Write", map[string]any{"file_path": filepath.Join(s.Project, "CHANGELOG.md"), "content": "# Changes\n"}),
		fakeapi.Say("The changelog is written."),
	)
	s.API = api
	t.Cleanup(api.Close)
	s.Args = []string{"--permission-mode", "acceptEdits"}
	s.config(`{"retry_templates": "retry", "checkers":[{"type":"files","paths":["CHANGELOG.md"]}]}`)
	retry := filepath.Join(s.Project, ".claude", "retry")
	require.NoError(t, os.MkdirAll(retry, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(retry, "files-missing.tmpl"),
		[]byte("Not yet: write {{range .Missing}}{{.Path}} {{end}}first.\n"), 0o644))
	s.useDonegate()
	r := s.run("Update the changelog")

	assert.Contains(t, mainTurn(t, api, 1), heldWith+"Not yet: write CHANGELOG.md first.")
	assertEnded(t, api, r, "The changelog is written.", 3)
}
