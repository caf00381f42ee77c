package closer

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/agentshell"
)

func TestExitCode(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    verdict
		err  error
		want int
	}{
		{"complete", complete, nil, ExitComplete},
		{"incomplete", incomplete, nil, ExitIncomplete},
		{"usage", incomplete, errorf(ErrUsage, "bad flag"), ExitUsage},
		{"config", complete, errorf(ErrConfig, "bad config"), ExitUsage},
		{"environment", incomplete, errorf(ErrEnv, "no git"), ExitUsage},
		{"any other error", incomplete, errors.New("write JSON: broken pipe"), ExitUsage},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, exitCode(tt.v, tt.err))
		})
	}
}

func TestErrorfKeepsTheMessageAndTheKind(t *testing.T) {
	cause := os.ErrNotExist
	err := errorf(ErrEnv, "--dir x: %w", cause)
	assert.Equal(t, "--dir x: file does not exist", err.Error())
	assert.ErrorIs(t, err, ErrEnv)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.NotErrorIs(t, err, ErrUsage)
}

// testEnv is an environment with the given variables, no terminal and
// an instant sleep that records what was asked.
func testEnv(vars map[string]string, terminal bool) Env {
	return Env{
		Getenv: func(k string) string {
			if v, ok := vars[k]; ok || k != "DONEGATE_CODEX_REQUIREMENTS" {
				return v
			}
			// The machine's own /etc/codex/requirements.toml is no
			// test's: none, unless a test names one.
			return "/nonexistent/donegate-tests/requirements.toml"
		},
		IsTerminal: func(io.Writer) bool { return terminal },
		Now:        time.Now,
		Sleep:      func(ctx context.Context, d time.Duration) error { return ctx.Err() },
		// The test's own environment, not its ancestors': a developer may
		// run the tests from inside an agent's shell.
		AgentShell: agentshell.OwnOnly,
	}
}

func TestColourOnlyOnATerminalWithoutNoColor(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "donegate.json"), []byte(`{"checkers":[{"type":"files","paths":["x"]}]}`), 0o644))
	for _, tt := range []struct {
		name     string
		terminal bool
		noColor  string
		json     bool
		want     bool
	}{
		{"terminal", true, "", false, true},
		{"NO_COLOR", true, "1", false, false},
		{"pipe", false, "", false, false},
		{"json on a terminal", true, "", true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := []string{"check", "--dir", dir}
			if tt.json {
				args = append(args, "--json")
			}
			code := Main(context.Background(), args, &out, &errOut, testEnv(map[string]string{"NO_COLOR": tt.noColor, "DONEGATE_STATE_DIR": t.TempDir()}, tt.terminal))
			assert.Equal(t, ExitIncomplete, code, errOut.String())
			assert.Equal(t, tt.want, bytes.Contains(out.Bytes(), []byte("\x1b[31m✗\x1b[0m")), out.String())
			assert.Equal(t, tt.want, bytes.Contains(out.Bytes(), []byte("\x1b[")), out.String())
		})
	}
}

// closer --help lists each command with a whole sentence: the first line
// of doctor's summary stopped in the middle of one.
func TestUsageListsWholeSentences(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, ExitComplete, Main(context.Background(), []string{"--help"}, &out, &errOut, testEnv(nil, false)))
	usage := out.String() + errOut.String()
	for _, c := range commands {
		i := strings.Index(usage, "\n  "+c.name+" ")
		require.GreaterOrEqual(t, i, 0, "%s is listed", c.name)
		line, _, _ := strings.Cut(usage[i+1:], "\n")
		assert.True(t, strings.HasSuffix(line, "."), "%q ends a sentence", line)
	}
	assert.Contains(t, usage, "  doctor       Check that donegate is set up to hold the agent in DIR.\n")
}

// closer init --help does not offer --config, which init refuses.
func TestInitHelpHasNoConfigFlag(t *testing.T) {
	var out, errOut bytes.Buffer
	require.Equal(t, ExitComplete, Main(context.Background(), []string{"init", "--help"}, &out, &errOut, testEnv(nil, false)))
	assert.NotContains(t, out.String(), "--config")
	assert.Contains(t, out.String(), "--dry-run")

	out.Reset()
	require.Equal(t, ExitComplete, Main(context.Background(), []string{"check", "--help"}, &out, &errOut, testEnv(nil, false)))
	assert.Contains(t, out.String(), "--config FILE")
}
