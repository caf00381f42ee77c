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
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Amp's agent needs Amp's service, which is not reached here; its plugin
// runtime does not. The pinned amp binary (scripts/install-amp) embeds
// Bun and runs each plugin in a runtime script of its own, which speaks
// JSON lines on stdio with Amp: it asks Amp for client.info (the
// workspace root), loads the plugin, says runtime.ready, and answers each
// request event (agent.end, tool.call) with what the plugin's handler
// returned, asking Amp for what the handler needs (ui.notify,
// thread.parent). These tests take that script from the binary itself
// and drive it as Amp's host does, with the plugin `closer init --host
// amp` wrote and the real hooks: the plugin runs in Amp's own runtime,
// Amp's helpers read the tool calls; the events are Amp's plugin API's
// (`amp plugins show-docs`).

// ampRuntimeScript is the runtime script of the pinned amp, written out
// by amp itself: `amp plugins exec` runs a plugin in it, and a plugin that
// copies its runtime's script (process.argv[1]) gets it.
func ampRuntimeScript(t *testing.T, amp string) string {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "plugin-runtime.ts")
	grab := filepath.Join(dir, "grab.ts")
	src := fmt.Sprintf("import { copyFileSync } from \"node:fs\"\nexport default function () { copyFileSync(process.argv[1], %q) }\n", script)
	require.NoError(t, os.WriteFile(grab, []byte(src), 0o644))
	cmd := exec.Command(amp, "plugins", "exec", grab, "session.start", "--data", `{"thread":{"id":"T-grab"}}`)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "amp plugins exec: %s", out)
	_, err = os.Stat(script)
	require.NoError(t, err, "amp ran the plugin in its runtime: %s", out)
	return script
}

// ampRuntime is one plugin running in Amp's runtime, driven as Amp's host.
type ampRuntime struct {
	t       *testing.T
	stdin   io.WriteCloser
	mu      sync.Mutex
	pending map[string]chan ampResponse
	told    []string // what the plugin told the person (ui.notify)
	ready   chan struct{}
	next    int
	stderr  lockedText // what the runtime wrote to stderr, written as the test reads
}

// lockedText is text written by one goroutine and read by another.
type lockedText struct {
	mu   sync.Mutex
	text strings.Builder
}

func (l *lockedText) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.Write(p)
}

func (l *lockedText) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.text.String()
}

type ampResponse struct {
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
}

// startAmpRuntime runs plugin in Amp's runtime with the workspace root
// project and env (HOME, the state dir, the hooks' overrides).
func startAmpRuntime(t *testing.T, plugin, project string, env []string) *ampRuntime {
	t.Helper()
	amp := clientPath(t, "DONEGATE_AMP", "install-amp")
	script := ampRuntimeScript(t, amp)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	cmd := exec.CommandContext(ctx, amp, script, plugin)
	cmd.Dir = project
	cmd.Env = append([]string{"BUN_BE_BUN=1", "AMP_PLUGIN_URI=file://" + plugin, "PATH=" + hookBinaries(t) + ":" + os.Getenv("PATH")}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	r := &ampRuntime{t: t, pending: map[string]chan ampResponse{}, ready: make(chan struct{})}
	cmd.Stderr = &r.stderr
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	r.stdin = stdin
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
		cancel()
		_ = cmd.Wait()
	})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			r.read(sc.Bytes(), project)
		}
	}()
	select {
	case <-r.ready:
	case <-time.After(time.Minute):
		t.Fatalf("the plugin did not load in Amp's runtime within a minute: %s", r.stderr.String())
	}
	return r
}

// read takes one line the runtime wrote: a response to a request of
// ours, a request of the runtime's (answered as Amp answers it), an event.
func (r *ampRuntime) read(line []byte, project string) {
	var msg struct {
		Type   string          `json:"type"`
		ID     string          `json:"id"`
		Method string          `json:"method"`
		Event  string          `json:"event"`
		Params json.RawMessage `json:"params"`
		ampResponse
	}
	if json.Unmarshal(line, &msg) != nil {
		return // the plugin's own console output
	}
	switch msg.Type {
	case "event":
		if msg.Event == "runtime.ready" {
			close(r.ready)
		}
	case "response":
		r.mu.Lock()
		ch := r.pending[msg.ID]
		delete(r.pending, msg.ID)
		r.mu.Unlock()
		if ch != nil {
			ch <- msg.ampResponse
		}
	case "request":
		var result any
		switch msg.Method {
		case "client.info":
			result = map[string]any{"ampURL": "https://ampcode.com/", "workspaceRoot": "file://" + project, "authenticatedUser": nil, "executorKind": "local"}
		case "ui.notify":
			var p struct{ Message string }
			_ = json.Unmarshal(msg.Params, &p)
			r.mu.Lock()
			r.told = append(r.told, p.Message)
			r.mu.Unlock()
		case "thread.parent":
			result = nil // a thread the person started
		}
		r.write(map[string]any{"type": "response", "id": msg.ID, "result": result})
	}
}

func (r *ampRuntime) write(v any) {
	data, err := json.Marshal(v)
	require.NoError(r.t, err)
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err = r.stdin.Write(append(data, '\n'))
	require.NoError(r.t, err)
}

// request sends Amp's request event and returns what the plugin
// answered: "" for nothing (the handler returned undefined).
func (r *ampRuntime) request(method string, params map[string]any) string {
	r.t.Helper()
	r.mu.Lock()
	r.next++
	id := fmt.Sprintf("amp-%d", r.next)
	ch := make(chan ampResponse, 1)
	r.pending[id] = ch
	r.mu.Unlock()
	r.write(map[string]any{"type": "request", "id": id, "method": method, "params": params})
	select {
	case resp := <-ch:
		require.Empty(r.t, resp.Error, "the plugin's %s handler failed; stderr: %s", method, r.stderr.String())
		return string(resp.Result)
	case <-time.After(5 * time.Minute):
		r.t.Fatalf("no answer to %s within 5 minutes; stderr: %s", method, r.stderr.String())
		return ""
	}
}

func (r *ampRuntime) toldThePerson() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.told, "\n")
}

// ampEnd is Amp's agent.end of thread: the turn started by message id,
// the agent's last message said.
func ampEnd(thread string, id int, said string) map[string]any {
	return map[string]any{"thread": map[string]any{"id": thread}, "message": "Make Add correct", "id": id, "status": "done",
		"messages": []any{
			map[string]any{"role": "user", "id": id, "content": []any{map[string]any{"type": "text", "text": "Make Add correct"}}},
			map[string]any{"role": "assistant", "id": id + 1, "content": []any{map[string]any{"type": "text", "text": said}}},
		}}
}

// ampCall is Amp's tool.call of tool with input in thread.
func ampCall(thread, tool string, input map[string]any) map[string]any {
	return map[string]any{"thread": map[string]any{"id": thread}, "toolUseID": "toolu_" + tool, "tool": tool, "input": input}
}

// ampProject is a project set up as a person would: `closer init --host
// amp` (its plugin in .amp/plugins/), cfg as its config, allowed. It
// returns the plugin's path and the environment of Amp's runtime.
func ampProject(t *testing.T, project, cfg string) (plugin string, env []string) {
	t.Helper()
	home := t.TempDir()
	state := filepath.Join(home, "donegate-state")
	setup := exec.Command(filepath.Join(hookBinaries(t), "closer"), "init", "--dir", project, "--host", "amp")
	setup.Env = []string{"HOME=" + home, "DONEGATE_STATE_DIR=" + state, "PATH=" + hookBinaries(t) + ":" + os.Getenv("PATH")}
	out, err := setup.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "PLUGINS=all", "init tells the person Amp loads plugins only then")
	plugin = filepath.Join(project, ".amp", "plugins", "donegate.ts")
	require.FileExists(t, plugin)
	require.NoError(t, os.WriteFile(filepath.Join(project, ".donegate.json"), []byte(cfg), 0o644))
	allowProject(t, home, state, project)
	return plugin, []string{"HOME=" + home, "DONEGATE_STATE_DIR=" + state}
}

// (a) In Amp's runtime, a failing go test holds the agent at agent.end
// (a continue with the failure as the message) and the fix lets it go;
// the guard rejects the agent's `closer release` and its edit of the
// plugin, and lets its go test run.
func TestAmpPluginHoldsInAmpsRuntime(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	env := goProject(t, project, t.TempDir())
	plugin, runEnv := ampProject(t, project, `{"checkers":[{"type":"test","command":"go test ./..."}]}`)
	events := filepath.Join(t.TempDir(), "events")
	stopHook := filepath.Join(t.TempDir(), "stop-hook")
	require.NoError(t, os.WriteFile(stopHook, []byte("#!/bin/sh\nexec "+recorder(t, events)+" "+filepath.Join(hookBinaries(t), "stop-hook")+"\n"), 0o755))
	toolHook := filepath.Join(t.TempDir(), "posttooluse-hook")
	require.NoError(t, os.WriteFile(toolHook, []byte("#!/bin/sh\nexec "+recorder(t, events)+" "+filepath.Join(hookBinaries(t), "posttooluse-hook")+"\n"), 0o755))
	rt := startAmpRuntime(t, plugin, project, append(append(env, runEnv...), "DONEGATE_STOP_HOOK="+stopHook, "DONEGATE_TOOL_HOOK="+toolHook))
	thread := "T-0f3a2c41-5e6b-4d7c-8a9b-0c1d2e3f4a5b"

	var held struct{ Action, UserMessage string }
	require.NoError(t, json.Unmarshal([]byte(rt.request("agent.end", ampEnd(thread, 1, "Done."))), &held))
	assert.Equal(t, "continue", held.Action)
	assert.Contains(t, held.UserMessage, goTestFailure)
	assert.Contains(t, held.UserMessage, "Add(2, 3) = -1, want 5")

	var refused struct{ Action, Message string }
	require.NoError(t, json.Unmarshal([]byte(rt.request("tool.call", ampCall(thread, "Bash", map[string]any{"cmd": "closer release"}))), &refused))
	assert.Equal(t, "reject-and-continue", refused.Action)
	assert.Contains(t, refused.Message, "closer release")
	refused.Action, refused.Message = "", ""
	require.NoError(t, json.Unmarshal([]byte(rt.request("tool.call", ampCall(thread, "edit_file", map[string]any{"path": plugin, "old_str": "stop-hook", "new_str": "true"}))), &refused))
	assert.Equal(t, "reject-and-continue", refused.Action, "an edit of donegate's plugin is refused")
	for _, call := range []map[string]any{
		ampCall(thread, "Bash", map[string]any{"cmd": "rm .amp/plugins/donegate.ts"}),
		ampCall(thread, "shell_command", map[string]any{"command": "DONEGATE_MODE=off closer allow"}),
		ampCall(thread, "create_file", map[string]any{"path": filepath.Join(project, ".amp", "plugins", "zz.ts"), "content": "export default () => {}"}),
		ampCall(thread, "apply_patch", map[string]any{"patchText": "*** Begin Patch\n*** Add File: .amp/settings.json\n+{}\n*** End Patch\n"}),
	} {
		refused.Action = ""
		require.NoError(t, json.Unmarshal([]byte(rt.request("tool.call", call)), &refused))
		assert.Equal(t, "reject-and-continue", refused.Action, "refused: %v", call)
	}
	assert.JSONEq(t, `{"action":"allow"}`, rt.request("tool.call", ampCall(thread, "Bash", map[string]any{"cmd": "go test ./..."})))
	assert.JSONEq(t, `{"action":"allow"}`, rt.request("tool.call", ampCall(thread, "create_file", map[string]any{"path": filepath.Join(project, "notes.md"), "content": "x"})))

	require.NoError(t, os.WriteFile(filepath.Join(project, "calc.go"), []byte(fixedCalc), 0o644))
	assert.Equal(t, "", rt.request("agent.end", ampEnd(thread, 3, "Fixed: Add adds.")), "let go once fixed")

	recorded := clientEvents(t, events)
	stops := ofEvent(recorded, "Stop")
	require.Len(t, stops, 2)
	assert.Equal(t, stops[0].str("prompt_id"), stops[1].str("prompt_id"), "one prompt across the continuation")
	assert.Equal(t, project, stops[0].str("cwd"), "the workspace root Amp gave")
	assert.Equal(t, "Fixed: Add adds.", stops[1].str("last_assistant_message"))
	calls := ofEvent(recorded, "PreToolUse")
	require.Len(t, calls, 8, "the eight calls were looked at")
	checkFixtures(t, "amp", recorded, []fixture{
		{"stop.json", nthEvent("Stop", 0, "stop_hook_active", false)},
		{"stop-continued.json", nthEvent("Stop", 0, "stop_hook_active", true)},
		{"pretooluse-bash.json", nthEvent("PreToolUse", 0, "hook_event_name", "PreToolUse")},
	}, project, "/home/user/project", thread, "T-0f3a2c41-5e6b-4d7c-8a9b-0c1d2e3f4a5b")
	assert.Contains(t, rt.toldThePerson(), "refused the agent's Bash call", "the person is told of a refusal")
}

// (b) An agent that never finishes is let go after limits.max_blocks
// continuations, told to the person; Amp's own cap (5 in a row) is not
// reached. A hook that prints without end is stopped and the agent let
// go, said.
func TestAmpPluginLetsGoAfterMaxBlocks(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	plugin, env := ampProject(t, project, `{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	rt := startAmpRuntime(t, plugin, project, env)
	thread := "T-max-blocks"
	for i := 1; i <= 2; i++ {
		assert.Contains(t, rt.request("agent.end", ampEnd(thread, 2*i-1, "Done.")), "Missing required files: never.txt", "continuation %d", i)
	}
	assert.Equal(t, "", rt.request("agent.end", ampEnd(thread, 5, "Done.")))
	assert.Contains(t, rt.toldThePerson(), "donegate: still incomplete after 2 continuations; letting the agent stop")

	// A hold Amp ignored (past its own cap of 5): the person's next prompt
	// starts afresh, not as the held turn's continuation.
	var held struct{ UserMessage string }
	require.NoError(t, json.Unmarshal([]byte(rt.request("agent.end", ampEnd("T-capped", 1, "Done."))), &held))
	rt.request("agent.start", map[string]any{"thread": map[string]any{"id": "T-capped"}, "message": held.UserMessage, "id": 3})
	assert.Contains(t, rt.request("agent.end", ampEnd("T-capped", 3, "Done.")), "continue", "the hold's own message goes on with the turn")
	rt.request("agent.start", map[string]any{"thread": map[string]any{"id": "T-capped"}, "message": "Now do the docs", "id": 9})
	assert.Contains(t, rt.request("agent.end", ampEnd("T-capped", 9, "Done.")), "continue", "the person's next prompt is a new turn, held again")

	endless := filepath.Join(t.TempDir(), "endless")
	require.NoError(t, os.WriteFile(endless, []byte("#!/bin/sh\ncat >/dev/null; yes donegate; sleep 600\n"), 0o755))
	rt2 := startAmpRuntime(t, plugin, project, append(env, "DONEGATE_STOP_HOOK="+endless))
	assert.Equal(t, "", rt2.request("agent.end", ampEnd("T-endless", 1, "Done.")))
	assert.Contains(t, rt2.toldThePerson(), "printed over 16 MiB, which is no answer of donegate's; the agent was let go unchecked")
}
