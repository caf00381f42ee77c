//go:build e2e && !windows

package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
)

// (e) Codex pursues a thread goal (the model's create_goal, the person's
// /goal) in turn after turn of its own once a turn ends: each has a new
// turn_id, its first Stop has stop_hook_active false, and no
// UserPromptSubmit comes. Counted per turn, an agent that changes nothing
// was held max_blocks times in every goal turn, for as long as the goal
// ran (measured before the fix: 5 goal turns, 15 holds). With the
// person's prompts on record (stop-hook --criteria at UserPromptSubmit,
// which closer init registers), the holds without progress end after
// max_blocks in all, goal turns or not. codex exec ends with its one
// turn, so the goal runs through Codex's app-server, as IDEs drive it.
func TestCodexGoalTurnsWithoutProgressAreLetGo(t *testing.T) {
	t.Parallel()
	turns := []fakeapi.Turn{fakeapi.Call("create_goal", map[string]any{"objective": "Write never.txt"})}
	for i := 0; i < 40; i++ {
		turns = append(turns, fakeapi.Say("Done."))
	}
	s := newCodexSession(t, turns...)
	s.config(`{"hold_unchanged":true,"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":3}}`)
	rec := recorder(t, s.Events)
	stopHook := filepath.Join(hookBinaries(t), "stop-hook")
	writeJSON(t, filepath.Join(s.Project, ".codex", "hooks.json"), map[string]any{"hooks": claudeShapedHooks(map[string]string{
		"UserPromptSubmit": rec + " " + stopHook + " --criteria",
		"Stop":             rec + " " + stopHook,
	})})
	codex := clientPath(t, "DONEGATE_CODEX", "install-codex")
	allowProject(t, s.Home, s.stateDir(), s.Project)
	s.trustProjectHooks(codex)

	turnIDs := s.appServerTurns(codex, "Write never.txt", 4)
	require.Len(t, turnIDs, 4)

	stops := ofEvent(clientEvents(t, s.Events), "Stop")
	prompts := ofEvent(clientEvents(t, s.Events), "UserPromptSubmit")
	require.Len(t, prompts, 1, "one prompt of the person; the goal's turns have none")
	seen := map[string]bool{}
	for _, st := range stops {
		seen[st.str("turn_id")] = true
	}
	assert.GreaterOrEqual(t, len(seen), 3, "Codex gave the goal's turns turn ids of their own")
	holds := 0
	for i := range s.API.Of("main") {
		if strings.Contains(s.told(i), "Missing required files: never.txt") {
			holds++
		}
	}
	assert.Equal(t, 3, holds, "max_blocks holds in all, across the goal's turns")

	explain := runClient(t, time.Minute, s.Project, []string{"HOME=" + s.Home, "DONEGATE_STATE_DIR=" + s.stateDir()},
		closerBinary(t), "explain", "--last", "--json")
	var rep struct{ Event, Why string }
	require.NoError(t, json.Unmarshal([]byte(explain.Stdout), &rep), explain.Stdout)
	assert.Equal(t, "Stop", rep.Event)
	assert.Contains(t, rep.Why, "let through: no progress", "a goal turn's stop is not the person's prompt")
}

// trustProjectHooks does what the person does once in Codex: trust the
// project, then review its hooks in /hooks (Codex records the hash of
// each, as codexHooksList reports it).
func (s *codexSession) trustProjectHooks(codex string) {
	s.t.Helper()
	configTOML := filepath.Join(s.codexHome(), "config.toml")
	appendTo := func(text string) {
		f, err := os.OpenFile(configTOML, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(s.t, err)
		_, err = f.WriteString(text)
		require.NoError(s.t, err)
		require.NoError(s.t, f.Close())
	}
	appendTo("\n[projects." + mustJSON(s.t, s.Project) + "]\ntrust_level = \"trusted\"\n")
	var b strings.Builder
	for _, h := range codexHooksList(s.t, codex, s.Home, s.Project) {
		b.WriteString("\n[hooks.state." + mustJSON(s.t, h.Key) + "]\ntrusted_hash = " + mustJSON(s.t, h.CurrentHash) + "\n")
	}
	appendTo(b.String())
}

// appServerTurns starts a thread in Codex's app-server (JSON-RPC over
// stdio), sends prompt as the person's one turn, and returns the ids of
// the first n turns that complete, the goal's among them; the server is
// then stopped with its process group.
func (s *codexSession) appServerTurns(codex, prompt string, n int) []string {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, codex, "app-server")
	cmd.Dir = s.Project
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TMPDIR=" + s.t.TempDir(),
		"HOME=" + s.Home, "CODEX_HOME=" + s.codexHome(), "FAKE_API_KEY=fake-key-for-tests", "DONEGATE_STATE_DIR=" + s.stateDir()}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	require.NoError(s.t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(s.t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(s.t, cmd.Start())
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	}()
	send := func(w io.Writer, msg map[string]any) {
		b, err := json.Marshal(msg)
		require.NoError(s.t, err)
		_, err = fmt.Fprintf(w, "%s\n", b)
		require.NoError(s.t, err)
	}
	send(stdin, map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"clientInfo": map[string]any{"name": "donegate-e2e", "version": "1"}}})
	send(stdin, map[string]any{"method": "initialized"})
	send(stdin, map[string]any{"id": 2, "method": "thread/start", "params": map[string]any{"cwd": s.Project}})
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var done []string
	for len(done) < n && sc.Scan() {
		var msg struct {
			ID     *int   `json:"id"`
			Method string `json:"method"`
			Result struct {
				Thread struct{ ID string } `json:"thread"`
			} `json:"result"`
			Params struct {
				Turn struct{ ID string } `json:"turn"`
			} `json:"params"`
		}
		if s.AppServerLines != nil {
			s.AppServerLines(sc.Text())
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil {
			continue
		}
		switch {
		case msg.ID != nil && *msg.ID == 2:
			send(stdin, map[string]any{"id": 3, "method": "turn/start", "params": map[string]any{
				"threadId": msg.Result.Thread.ID, "input": []any{map[string]any{"type": "text", "text": prompt}}}})
		case msg.Method == "turn/completed":
			done = append(done, msg.Params.Turn.ID)
		}
	}
	require.NoError(s.t, ctx.Err(), "app-server: %d turn(s) completed; stderr: %s", len(done), stderr.String())
	return done
}
