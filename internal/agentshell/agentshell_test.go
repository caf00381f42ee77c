package agentshell_test

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/agentshell"
)

// helperEnv makes the test binary, run again, print what Look finds.
const helperEnv = "AGENTSHELL_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		if f, ok := agentshell.Look(os.Getenv); ok {
			os.Stdout.WriteString(f.String())
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestOwnEnvironment(t *testing.T) {
	f, ok := agentshell.OwnOnly(env(map[string]string{"CLAUDECODE": "1"}))
	require.True(t, ok)
	assert.Equal(t, hookio.HostClaude, f.Host)
	assert.Equal(t, "Claude Code's agent shell: CLAUDECODE=1 in this process's environment", f.String())
	_, ok = agentshell.OwnOnly(env(map[string]string{"CLAUDECODE": "0"}))
	assert.False(t, ok, "another value is no marker")
	_, ok = agentshell.OwnOnly(env(nil))
	assert.False(t, ok)
}

// An agent that clears the marker for one command still runs it from a
// shell that has it: the ancestor's environment tells.
func TestAncestorsEnvironment(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ancestors' environments are read on Linux only")
	}
	self, err := os.Executable()
	require.NoError(t, err)
	run := func(script string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = append(os.Environ(), "SELF="+self)
		out, err := cmd.Output()
		require.NoError(t, err)
		return string(out)
	}
	got := run(`CLAUDECODE=1 sh -c 'env -u CLAUDECODE ` + helperEnv + `=1 "$SELF"; :'`)
	assert.Regexp(t, `^Claude Code's agent shell: CLAUDECODE=1 in the environment of its ancestor process \d+ \(sh\)$`, got)
	got = run(`CLAUDECODE=1 sh -c 'env -i ` + helperEnv + `=1 "$SELF"; :'`)
	assert.True(t, strings.HasPrefix(got, "Claude Code's agent shell: CLAUDECODE=1 in the environment of its ancestor"), got)

	if _, ok := agentshell.Look(func(string) string { return "" }); ok {
		t.Skip("this test runs inside an agent's shell itself: the case without one cannot be seen here")
	}
	assert.Empty(t, run(helperEnv+`=1 "$SELF"`), "no agent shell around")
}
