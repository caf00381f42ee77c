//go:build !windows

// The end-to-end tests of the Linux binaries (sh, FIFOs, process groups);
// the Windows binaries have their own, under Wine (e2e/windows_test.go).

package donegate_test

import (
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
)

// TestHostPluginsBuild: scripts/build-plugin --host makes the Codex CLI
// plugin and the Gemini CLI extension as the release archive holds them:
// valid JSON in the layout each host loads (checked against the real
// Codex 0.169.0, `codex plugin add` then app-server's hooks/list, and
// `gemini extensions validate` of Gemini CLI 0.61.0), every entry init
// writes for that host, the version stamped, and each hook running the
// stop-hook on PATH by name, which every shell these hosts use runs
// (bash; PowerShell or cmd.exe on Windows): the archive's binaries are
// the Claude Code plugin's.
func TestHostPluginsBuild(t *testing.T) {
	for _, tt := range []struct {
		host, manifest string
		dirVar         string
		timeout        float64
		events         map[string]string // event → the hook's arguments
	}{
		{host: "codex", manifest: ".codex-plugin/plugin.json", dirVar: "${PLUGIN_ROOT}", timeout: 600,
			events: map[string]string{"Stop": "", "SubagentStop": "", "SessionStart": " --criteria", "UserPromptSubmit": " --criteria"}},
		{host: "gemini", manifest: "gemini-extension.json", dirVar: "${extensionPath}", timeout: 600000,
			events: map[string]string{"AfterAgent": "", "SessionStart": " --criteria", "BeforeAgent": " --criteria"}},
	} {
		t.Run(tt.host, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "dir with spaces")
			cmd := exec.Command(filepath.Join("scripts", "build-plugin"), "--host", tt.host, "--no-binaries", out, "1.2.3-test")
			b, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", b)

			var manifest struct{ Name, Version, Hooks string }
			require.NoError(t, json.Unmarshal(mustReadFile(t, filepath.Join(out, tt.manifest)), &manifest))
			assert.Equal(t, "donegate", manifest.Name)
			assert.Equal(t, "1.2.3-test", manifest.Version)
			if tt.host == "codex" {
				assert.Equal(t, "./hooks/hooks.json", manifest.Hooks)
			}

			raw := mustReadFile(t, filepath.Join(out, "hooks", "hooks.json"))
			var top map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(raw, &top))
			for k := range top {
				// Codex refuses a hooks file with any other key.
				assert.Contains(t, []string{"description", "hooks"}, k)
			}
			var file struct {
				Hooks map[string][]struct {
					Matcher *string
					Hooks   []struct {
						Type, Command string
						Timeout       float64
					}
				}
			}
			require.NoError(t, json.Unmarshal(raw, &file))
			require.Len(t, file.Hooks, len(tt.events))
			for ev, flags := range tt.events {
				groups := file.Hooks[ev]
				require.Len(t, groups, 1, ev)
				require.Len(t, groups[0].Hooks, 1, ev)
				h := groups[0].Hooks[0]
				assert.Nil(t, groups[0].Matcher)
				assert.Equal(t, "command", h.Type)
				assert.Equal(t, tt.timeout, h.Timeout)
				assert.Equal(t, "stop-hook"+flags, h.Command, ev)
			}
			assert.NoDirExists(t, filepath.Join(out, "bin"), "--no-binaries")
			assert.FileExists(t, filepath.Join(out, "README.md"))
		})
	}
}

// TestHostPluginHookRunsWhatItFinds runs a hook command of an extension
// built with its binaries as the host does (its dir variable replaced,
// then sh -c): the plugin's own binary when it is there, else the one on
// PATH.
func TestHostPluginHookRunsWhatItFinds(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ext")
	b, err := exec.Command(filepath.Join("scripts", "build-plugin"), "--host", "gemini", out, "1.2.3").CombinedOutput()
	require.NoError(t, err, "%s", b)
	require.FileExists(t, filepath.Join(out, "bin", "stop-hook"))
	require.NoError(t, os.Remove(filepath.Join(out, "bin", "stop-hook")))
	var file struct {
		Hooks map[string][]struct{ Hooks []struct{ Command string } }
	}
	require.NoError(t, json.Unmarshal(mustReadFile(t, filepath.Join(out, "hooks", "hooks.json")), &file))
	command := strings.ReplaceAll(file.Hooks["SessionStart"][0].Hooks[0].Command, "${extensionPath}", out)

	onPath := t.TempDir()
	fake := func(path, says string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\necho "+says+" \"$@\"\n"), 0o755))
	}
	fake(filepath.Join(onPath, "stop-hook"), "path")
	run := func() string {
		cmd := exec.Command("sh", "-c", command)
		cmd.Env = append(os.Environ(), "PATH="+onPath+":/usr/bin:/bin")
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", b)
		return strings.TrimSpace(string(b))
	}
	assert.Equal(t, "path --criteria", run())
	fake(filepath.Join(out, "bin", "stop-hook"), "plugin")
	assert.Equal(t, "plugin --criteria", run())
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// openCodeHarness loads the OpenCode plugin in node with a stand-in of
// OpenCode's client, in serve mode, sends it an assistant's finished
// message and the session going idle (which runs the stop hook in the
// background), and prints what the plugin logged and prompted.
const openCodeHarness = `
const { DonegatePlugin } = await import(process.argv[2])
const logs = [], prompts = []
const client = {
  session: { todo: async () => ({ data: [] }), promptAsync: async (x) => { prompts.push(x.body.parts[0].text) }, prompt: async () => {} },
  app: { log: async ({ body }) => { logs.push(body.level + ": " + body.message) } },
}
const p = await DonegatePlugin({ client, directory: process.cwd() })
await p.event({ event: { type: "message.updated", properties: { info: { id: "m1", sessionID: "s1", role: "assistant", finish: "stop", time: { completed: 1 } } } } })
await p.event({ event: { type: "session.idle", properties: { sessionID: "s1" } } })
console.log(JSON.stringify({ logs, prompts }))
`

// The plugin's background run of stop-hook (TUI, opencode serve) keeps
// what the hook prints within a bound: a hook that prints without end is
// stopped there, and the agent let go with the reason logged, rather than
// its output held in OpenCode's memory until the 10-minute backstop.
func TestOpenCodePluginBoundsTheHooksOutput(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	plugin, err := filepath.Abs(filepath.Join("plugin", "opencode", "donegate.js"))
	require.NoError(t, err)
	harness := filepath.Join(dir, "harness.mjs")
	require.NoError(t, os.WriteFile(harness, []byte(openCodeHarness), 0o600))
	for _, tt := range []struct {
		name, hook string
		prompts    []string
		log        string
	}{
		{"a hold", `cat >/dev/null; echo '{"decision":"block","reason":"Finish the tests."}'`, []string{"Finish the tests."}, ""},
		{"output without end", `cat >/dev/null; yes donegate; sleep 600`, []string{}, "printed over 16 MiB, which is no answer of donegate's"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hook := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".sh")
			require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\n"+tt.hook+"\n"), 0o700))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, harness, "file://"+plugin)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "DONEGATE_STOP_HOOK="+hook, "DONEGATE_OPENCODE_MODE=serve")
			out, err := cmd.Output()
			require.NoError(t, err, "the harness ended within 60 s: %s", out)
			var got struct{ Logs, Prompts []string }
			require.NoError(t, json.Unmarshal(out, &got), "%s", out)
			assert.Equal(t, tt.prompts, got.Prompts)
			if tt.log != "" {
				assert.Contains(t, strings.Join(got.Logs, "\n"), tt.log)
			}
		})
	}
}

// kiloRunHarness loads the plugin in node as the Kilo CLI loads it
// (KILOCODE_VERSION in its environment), in run mode, and sends it an
// assistant's last step finishing: the stop hook runs at once, and a
// hold is sent as a prompt Kilo queues (promptAsync), since Kilo 7.7.7
// reads no message stored with noReply once its loop finished.
const kiloRunHarness = `
const { DonegatePlugin } = await import(process.argv[2])
const calls = []
const client = {
  session: {
    todo: async () => ({ data: [] }),
    promptAsync: async (x) => { calls.push("promptAsync: " + x.body.parts[0].text) },
    prompt: async (x) => { calls.push("prompt" + (x.body.noReply ? " noReply" : "") + ": " + x.body.parts[0].text) },
  },
  app: { log: async () => {} },
}
const p = await DonegatePlugin({ client, directory: process.cwd() })
await p.event({ event: { type: "session.created", properties: { info: { id: "s1", version: "7.7.7" } } } })
await p.event({ event: { type: "message.updated", properties: { info: { id: "u1", sessionID: "s1", role: "user" } } } })
await p.event({ event: { type: "message.updated", properties: { info: { id: "m1", sessionID: "s1", role: "assistant" } } } })
await p.event({ event: { type: "message.part.updated", properties: { part: { type: "step-finish", reason: "stop", sessionID: "s1", messageID: "m1" } } } })
await new Promise((r) => setTimeout(r, 100))
console.log(JSON.stringify({ calls }))
`

// Under Kilo the plugin names the host in its events (kilo_version,
// kilo_mode), so that stop-hook answers Kilo, and holds `kilo run` with a
// queued prompt; under OpenCode, as before, with a message stored for the
// running loop.
func TestPluginHoldsKiloAndOpenCodeEachTheirWay(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	plugin, err := filepath.Abs(filepath.Join("plugin", "opencode", "donegate.js"))
	require.NoError(t, err)
	harness := filepath.Join(dir, "harness.mjs")
	require.NoError(t, os.WriteFile(harness, []byte(kiloRunHarness), 0o600))
	event := filepath.Join(dir, "event.json")
	hook := filepath.Join(dir, "hook.sh")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\ncat > "+event+"\necho '{\"decision\":\"block\",\"reason\":\"Finish the tests.\"}'\n"), 0o700))
	for _, tt := range []struct {
		name, env, host, call string
	}{
		{"kilo", "KILOCODE_VERSION=7.7.7", "kilo", "promptAsync: Finish the tests."},
		{"opencode", "OPENCODE=1", "opencode", "prompt noReply: Finish the tests."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, harness, "file://"+plugin)
			cmd.Dir = dir
			var env []string
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "KILOCODE_VERSION=") {
					env = append(env, kv)
				}
			}
			cmd.Env = append(env, "DONEGATE_STOP_HOOK="+hook, "DONEGATE_OPENCODE_MODE=run", tt.env)
			out, err := cmd.Output()
			require.NoError(t, err, "%s", out)
			var got struct{ Calls []string }
			require.NoError(t, json.Unmarshal(out, &got), "%s", out)
			assert.Equal(t, []string{tt.call}, got.Calls)
			var sent map[string]any
			require.NoError(t, json.Unmarshal(mustReadFile(t, event), &sent))
			assert.Equal(t, "7.7.7", sent[tt.host+"_version"])
			assert.Equal(t, "run", sent[tt.host+"_mode"])
			other := map[string]string{"kilo": "opencode", "opencode": "kilo"}[tt.host]
			assert.NotContains(t, sent, other+"_version")
			assert.NotContains(t, sent, other+"_mode")
		})
	}
}

// piHarness loads the extension for pi in node with a stand-in of pi's
// API (its VERSION export from a stand-in package) and calls its
// agent_before_settle handler as pi would at the end of a run, printing
// what it returned.
const piHarness = `
const { default: ext } = await import(process.argv[2])
const handlers = {}
ext({ on: (name, f) => { handlers[name] = f } })
const ctx = { mode: "print", hasUI: false, cwd: process.cwd(), sessionManager: { getSessionId: () => "s1", getSessionFile: () => "/s1.jsonl" } }
await handlers.input({ type: "input", text: "Do it" }, ctx)
const got = await handlers.agent_before_settle({ type: "agent_before_settle", outcome: "completed", entries: [], continue: false, context: { llmMessages: [{ role: "assistant", content: [{ type: "text", text: "Done." }] }] } }, ctx)
console.log(JSON.stringify(got ?? null))
`

// The extension for pi runs stop-hook in the background at the end of a
// run, bounded: a hold becomes a message and one more request; a hook
// that prints without end is stopped past 16 MiB and the agent let go,
// said on stderr, rather than its output held in pi's memory.
func TestPiExtensionHoldsAndBoundsTheHook(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	pkg := filepath.Join(dir, "node_modules", "@earendil-works", "pi-coding-agent")
	require.NoError(t, os.MkdirAll(pkg, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@earendil-works/pi-coding-agent","type":"module","main":"index.js"}`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "index.js"), []byte(`export const VERSION = "1.6.0"`+"\n"), 0o600))
	ext := filepath.Join(dir, "donegate.mjs")
	require.NoError(t, os.WriteFile(ext, mustReadFile(t, filepath.Join("plugin", "pi", "donegate.js")), 0o600))
	harness := filepath.Join(dir, "harness.mjs")
	require.NoError(t, os.WriteFile(harness, []byte(piHarness), 0o600))
	event := filepath.Join(dir, "event.json")
	for _, tt := range []struct {
		name, hook, want, stderr string
	}{
		{"a hold", `cat > ` + event + `; echo '{"decision":"block","reason":"Finish the tests."}'`,
			`{"entries":[{"type":"custom_message","customType":"donegate","content":"Finish the tests.","display":true}],"continue":true}`, "donegate: holding the agent: Finish the tests."},
		{"done", `cat >/dev/null; echo '{}'`, `null`, ""},
		{"output without end", `cat >/dev/null; yes donegate; sleep 600`, `null`, "printed over 16 MiB, which is no answer of donegate's; the agent was let go unchecked"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hook := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".sh")
			require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\n"+tt.hook+"\n"), 0o700))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, harness, "file://"+ext)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "DONEGATE_STOP_HOOK="+hook)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, "the harness ended within 60 s: %s %s", out, stderr.String())
			assert.JSONEq(t, tt.want, string(out))
			if tt.stderr != "" {
				assert.Contains(t, stderr.String(), tt.stderr)
			}
		})
	}
	var sent map[string]any
	require.NoError(t, json.Unmarshal(mustReadFile(t, event), &sent))
	assert.Equal(t, map[string]any{"hook_event_name": "Stop", "pi_version": "1.6.0", "pi_mode": "print", "session_id": "s1", "transcript_path": "/s1.jsonl",
		"cwd": dir, "prompt_id": sent["prompt_id"], "stop_hook_active": false, "last_assistant_message": "Done."}, sent)
	assert.Regexp(t, `^prompt-`, sent["prompt_id"])
}

// TestClineHookRoutesAndBoundsTheHooks: donegate's Cline hook hands the
// agent's submit_and_exit to stop-hook and every other call to
// posttooluse-hook, the event unchanged, and prints the answer; what the
// person is told goes to stderr; a hook that fails, cannot be run or
// prints without end gives no answer (the call goes on), said on stderr.
func TestClineHookRoutesAndBoundsTheHooks(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("needs node")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "PreToolUse.cjs")
	require.NoError(t, os.WriteFile(script, mustReadFile(t, filepath.Join("plugin", "cline", "PreToolUse.cjs")), 0o600))
	// A project whose package.json makes .js files ES modules: the .cjs
	// runs all the same.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type":"module"}`), 0o600))
	hook := func(name, body string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o700))
		return path
	}
	submit := `{"clineVersion":"","hookName":"tool_call","workspaceInfo":{"rootPath":"` + dir + `"},"tool_call":{"id":"1","name":"submit_and_exit","input":{"summary":"Done."}}}`
	shell := `{"clineVersion":"","hookName":"tool_call","workspaceInfo":{"rootPath":"` + dir + `"},"tool_call":{"id":"2","name":"run_commands","input":{"commands":["ls"]}}}`
	held := `{"cancel":false,"contextModification":"Finish the tests.","overrideInput":null}`
	stopHook := hook("stop.sh", `cat > stop.in; pwd > stop.cwd; echo '`+held+`'`)
	toolHook := hook("tool.sh", `cat > tool.in; echo '{}'`)
	for _, tt := range []struct {
		name, event, stop, tool, want, stderr string
	}{
		{"the final call to stop-hook", submit, stopHook, toolHook, held, ""},
		{"another call to posttooluse-hook", shell, stopHook, toolHook, `{}`, ""},
		{"what the person is told", submit, hook("told.sh", `cat >/dev/null; echo '{"systemMessage":"donegate: letting the agent stop"}'`), toolHook,
			`{"systemMessage":"donegate: letting the agent stop"}`, "donegate: letting the agent stop"},
		{"a hook that fails", submit, hook("fail.sh", `cat >/dev/null; echo broken >&2; exit 1`), toolHook, ``, "exited 1: broken; the call goes on"},
		{"a hook that cannot run", shell, stopHook, filepath.Join(dir, "missing"), ``, "could not run"},
		{"output without end", submit, hook("yes.sh", `cat >/dev/null; yes donegate; sleep 600`), toolHook, ``, "printed over 16 MiB, which is no answer of donegate's; the call goes on"},
		{"not an event", `{"tool_call":`, stopHook, toolHook, ``, "not an event of Cline's"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, script)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "DONEGATE_STOP_HOOK="+tt.stop, "DONEGATE_TOOL_HOOK="+tt.tool)
			cmd.Stdin = strings.NewReader(tt.event)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, "the hook ended within 60 s, with exit 0: %s %s", out, stderr.String())
			if tt.want == "" {
				assert.Empty(t, strings.TrimSpace(string(out)))
			} else {
				assert.JSONEq(t, tt.want, string(out))
			}
			if tt.stderr != "" {
				assert.Contains(t, stderr.String(), tt.stderr)
			}
		})
	}
	assert.JSONEq(t, submit, string(mustReadFile(t, filepath.Join(dir, "stop.in"))), "stop-hook got the event unchanged")
	assert.Equal(t, dir+"\n", string(mustReadFile(t, filepath.Join(dir, "stop.cwd"))), "in the workspace's root")
	assert.JSONEq(t, shell, string(mustReadFile(t, filepath.Join(dir, "tool.in"))), "posttooluse-hook got the event unchanged")
}
