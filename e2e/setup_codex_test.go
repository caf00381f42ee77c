//go:build e2e && !windows

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// setupCodexBinary is the pinned Codex CLI (see pinned).
func setupCodexBinary(t *testing.T) string {
	return pinned(t, "DONEGATE_CODEX", "codex", "the Codex CLI")
}

// codexHook is one entry of app-server's hooks/list answer.
type codexHook struct {
	Key, EventName, Command, SourcePath, CurrentHash, TrustStatus string
	TimeoutSec                                                    int
}

// codexHooksList asks the real Codex's app-server which hooks it loads
// for dir, and how it judges their trust.
func codexHooksList(t *testing.T, codex, home, dir string) []codexHook {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex")}
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"donegate-e2e","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"hooks/list","params":{"cwds":[` + strings.TrimSpace(mustJSON(t, dir)) + `]}}`,
	} {
		_, err := stdin.Write([]byte(m + "\n"))
		require.NoError(t, err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     *int `json:"id"`
			Result struct {
				Data []struct {
					Hooks            []codexHook
					Warnings, Errors []any
				}
			}
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil || *msg.ID != 2 {
			continue
		}
		require.Len(t, msg.Result.Data, 1, "%s", sc.Bytes())
		assert.Empty(t, msg.Result.Data[0].Warnings)
		assert.Empty(t, msg.Result.Data[0].Errors)
		return msg.Result.Data[0].Hooks
	}
	t.Fatalf("codex app-server gave no hooks/list answer: %v", sc.Err())
	return nil
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestCodexLoadsWhatInitWrites: closer init --host codex writes a
// .codex/hooks.json the real Codex loads whole (its five hooks,
// 600 s each), untrusted: init never trusts a hook. closer doctor says
// each is untrusted; once the user trusts them (the trusted_hash Codex
// itself computes, as /hooks records it), doctor says each is trusted,
// which holds only if donegate reckons Codex's hash as Codex does.
func TestCodexLoadsWhatInitWrites(t *testing.T) {
	t.Parallel()
	codex := setupCodexBinary(t)
	home := t.TempDir()
	proj := filepath.Join(t.TempDir(), "proj")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	git := exec.Command("git", "init", "-q", proj)
	out, err := git.CombinedOutput()
	require.NoError(t, err, "%s", out)
	// The user trusts the project (Codex asks once); the hooks are
	// another matter.
	configTOML := filepath.Join(home, ".codex", "config.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(configTOML), 0o755))
	require.NoError(t, os.WriteFile(configTOML, []byte("[projects."+mustJSON(t, proj)+"]\ntrust_level = \"trusted\"\n"), 0o644))

	closer := closerBinary(t)
	env := []string{"PATH=" + hookBinaries(t) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home, "DONEGATE_STATE_DIR=" + t.TempDir()}
	run := func(args ...string) string {
		cmd := exec.Command(closer, args...)
		cmd.Env = env
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	out1 := run("init", "--dir", proj, "--host", "codex")
	require.Contains(t, out1, "Created .codex/hooks.json.")

	hooks := codexHooksList(t, codex, home, proj)
	want := map[string]string{"stop": "stop-hook", "subagentStop": "stop-hook", "preToolUse": "posttooluse-hook", "sessionStart": "stop-hook --criteria", "userPromptSubmit": "stop-hook --criteria"}
	got := map[string]string{}
	for _, h := range hooks {
		require.Equal(t, filepath.Join(proj, ".codex", "hooks.json"), h.SourcePath)
		got[h.EventName] = h.Command
		assert.Equal(t, 600, h.TimeoutSec, h.Key)
		assert.Equal(t, "untrusted", h.TrustStatus, "init trusts nothing: %s", h.Key)
	}
	assert.Equal(t, want, got)
	assert.Contains(t, run("doctor", "--dir", proj, "--claude", "no-such-claude"), "is not trusted: Codex skips it without a word")

	// The user trusts them in /hooks: Codex records its own hash.
	f, err := os.OpenFile(configTOML, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	for _, h := range hooks {
		_, err := f.WriteString("\n[hooks.state." + mustJSON(t, h.Key) + "]\ntrusted_hash = " + mustJSON(t, h.CurrentHash) + "\n")
		require.NoError(t, err)
	}
	require.NoError(t, f.Close())
	for _, h := range codexHooksList(t, codex, home, proj) {
		assert.Equal(t, "trusted", h.TrustStatus, h.Key)
	}
	doctor := run("doctor", "--dir", proj, "--claude", "no-such-claude")
	assert.Equal(t, 5, strings.Count(doctor, "is trusted in Codex"), doctor)
	assert.NotContains(t, doctor, "not trusted")
}

// closer init --host codex --managed, then a real `codex exec` with
// neither --trust nor --dangerously-bypass-hook-trust: Codex runs the
// hooks of its managed requirements without review, and the project's
// failing test holds the agent until it is fixed. The requirements file
// init wrote is put at /etc/codex/requirements.toml for Codex alone: the
// run sees a copy of /etc, bound over it in a mount namespace of its own
// (unshare), so the machine's /etc is never written.
func TestCodexManagedHooksRunWithoutReview(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatalf("unshare (util-linux) is needed to give Codex its own /etc: %v", err)
	}
	s := newCodexSession(t)
	require.NoError(t, os.RemoveAll(filepath.Join(s.Project, ".codex")))
	env := goProject(t, s.Project, s.Home)
	// The agent changes something first: the project's checks hold only
	// an agent that changed something (docs/limits.md).
	s.useAPI(fakeapi.NewResponses(
		fakeapi.Call("exec_command", map[string]any{"cmd": "printf '// Add is wrong.\\n' >> calc.go"}),
		fakeapi.Say("Done."),
		fakeapi.Call("exec_command", map[string]any{"cmd": "printf '%s' '" + fixedCalc + "' > calc.go"}),
		fakeapi.Say("Fixed: Add adds."),
	))
	req := filepath.Join(t.TempDir(), "requirements.toml")
	path := hookBinaries(t) + string(os.PathListSeparator) + os.Getenv("PATH")
	r := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, "PATH=" + path, "DONEGATE_CODEX_REQUIREMENTS=" + req}, closerBinary(t),
		"init", "--host", "codex", "--managed", "--absolute")
	require.Equal(t, 0, r.ExitCode, "closer init --managed\nstdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	data, err := os.ReadFile(req)
	require.NoError(t, err)
	assert.Contains(t, string(data), "[[hooks.Stop.hooks]]")
	assert.NoDirExists(t, filepath.Join(s.Project, ".codex"), "no project hook file")

	// A copy of /etc with the requirements in it, bound over /etc for
	// Codex alone.
	etc := filepath.Join(t.TempDir(), "etc")
	out, err := exec.Command("cp", "-a", "/etc/.", etc).CombinedOutput()
	if err != nil {
		t.Logf("cp /etc: %v: %s (what could not be copied is not needed)", err, out)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(etc, "codex"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(etc, "codex", "requirements.toml"), data, 0o644))
	codex := clientPath(t, "DONEGATE_CODEX", "install-codex")
	wrapper := filepath.Join(t.TempDir(), "codex-managed")
	script := "#!/bin/sh\nexec unshare --mount --map-root-user sh -c 'mount --bind \"$0\" /etc && exec \"$@\"' '" + etc + "' '" + codex + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(wrapper, []byte(script), 0o755))

	allowProject(t, s.Home, s.stateDir(), s.Project)
	runEnv := append([]string{"HOME=" + s.Home, "CODEX_HOME=" + s.codexHome(), "FAKE_API_KEY=fake-key-for-tests", "DONEGATE_STATE_DIR=" + s.stateDir()}, env...)
	res := runClient(t, 2*time.Minute, s.Project, runEnv, wrapper, "exec", "--json", "Make Add correct")
	require.Equal(t, 0, res.ExitCode, "stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	told := s.told(2)
	assert.Regexp(t, `hook_run_id="stop:[0-9]+:/etc/codex/requirements.toml"`, told, "the managed hook held the agent")
	assert.Contains(t, told, "Add(2, 3) = -1, want 5")
	assert.Len(t, s.API.Of("main"), 4)
	assert.False(t, s.API.Exhausted(), "the agent was kept going beyond the script")
}
