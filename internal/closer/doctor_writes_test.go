package closer

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/donegate/donegate/internal/cli"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDoctorCreatesNoStateDir: doctor only looks. A --state-dir named
// by a repository's settings (anywhere, outside the project too) and
// the environment's state dir are checked without being created; an
// existing one is left as it was. Issue 18: doctor created them.
func TestDoctorCreatesNoStateDir(t *testing.T) {
	s := newDoctorSetup(t)
	outside := t.TempDir()
	named := filepath.Join(outside, "new", "state")
	s.write(t, filepath.Join(s.proj, ".claude", "settings.json"),
		`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "stop-hook --state-dir `+jsonText(cli.ShellQuote(named))+`"}]}]}}`)
	existing := t.TempDir()
	s.vars["DONEGATE_STATE_DIR"] = existing

	var out, errOut bytes.Buffer
	Main(context.Background(), []string{"doctor", "--dir", s.proj, "--claude", s.claude}, &out, &errOut, testEnv(s.vars, false))
	assert.Contains(t, out.String(), "✓ state: state dir "+named+" is writable")
	assert.Contains(t, out.String(), "✓ state: state dir "+existing+" is writable")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing created outside the project")
	entries, err = os.ReadDir(existing)
	require.NoError(t, err)
	assert.Empty(t, entries, "no file left in an existing state dir")
}
