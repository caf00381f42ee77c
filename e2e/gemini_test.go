//go:build e2e && !windows

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/fakeapi"
	"github.com/donegate/donegate/transcript"
)

// The tests against the real Gemini CLI, pinned by scripts/install-gemini
// (npm), run offline against the Gemini API stand-in (fakeapi.Gemini):
// the CLI's hidden --fake-responses mode would need every side call
// (next-speaker checks, routing) scripted in order and records nothing the
// model was sent, while the stand-in answers side calls itself and keeps
// every request, so a test can assert what a deny told the model.

var updateGemini = flag.Bool("update-gemini", false, "record testdata/events/gemini/ again from the real Gemini CLI")

// geminiModel has write_todos; Gemini 3 models have none.
const geminiModel = "gemini-2.5-pro"

// geminiBinary is the pinned Gemini CLI (see pinned).
func geminiBinary(t *testing.T) string {
	return pinned(t, "DONEGATE_GEMINI", "gemini", "the Gemini CLI")
}

// geminiSession is one scripted project for the real Gemini CLI: a
// throwaway HOME whose user settings select API-key auth (without it the
// base URL picks an auth type headless mode refuses, exit 41), and a
// project whose .gemini/settings.json registers Hooks.
type geminiSession struct {
	t       *testing.T
	API     *fakeapi.Gemini
	Home    string
	Project string
	Env     []string
	// Hooks are commands by Gemini event name, in .gemini/settings.json.
	Hooks map[string][]string
	// Settings are more keys of .gemini/settings.json.
	Settings map[string]any
}

func newGeminiSession(t *testing.T, api *fakeapi.Gemini) *geminiSession {
	t.Helper()
	root := t.TempDir()
	s := &geminiSession{t: t, API: api, Home: filepath.Join(root, "home"), Project: filepath.Join(root, "project"), Hooks: map[string][]string{}}
	t.Cleanup(func() { s.API.Close() })
	require.NoError(t, os.MkdirAll(filepath.Join(s.Home, ".gemini"), 0o755))
	require.NoError(t, os.MkdirAll(s.Project, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(s.Home, ".gemini", "settings.json"),
		[]byte(`{"security":{"auth":{"selectedType":"gemini-api-key"}}}`), 0o644))
	return s
}

// useDonegate registers the stop-hook for AfterAgent as the issue writes
// it: the bare name, found on PATH, with Gemini's timeout in milliseconds.
func (s *geminiSession) useDonegate() {
	s.Hooks["AfterAgent"] = append(s.Hooks["AfterAgent"], "stop-hook")
}

// config writes the project's host-neutral .donegate.json.
func (s *geminiSession) config(cfg string) {
	require.NoError(s.t, os.WriteFile(filepath.Join(s.Project, ".donegate.json"), []byte(cfg), 0o644))
}

func (s *geminiSession) writeSettings() {
	hooks := map[string]any{}
	for event, commands := range s.Hooks {
		var list []any
		for _, c := range commands {
			list = append(list, map[string]any{"hooks": []any{map[string]any{"name": filepath.Base(strings.Fields(c)[0]), "type": "command", "command": c, "timeout": 30000}}})
		}
		hooks[event] = list
	}
	settings := map[string]any{"hooks": hooks}
	for k, v := range s.Settings {
		settings[k] = v
	}
	data, err := json.MarshalIndent(settings, "", "  ")
	require.NoError(s.t, err)
	require.NoError(s.t, os.MkdirAll(filepath.Join(s.Project, ".gemini"), 0o755))
	require.NoError(s.t, os.WriteFile(filepath.Join(s.Project, ".gemini", "settings.json"), data, 0o644))
}

// geminiRun is what one `gemini -p` printed: the stream-json events.
type geminiRun struct {
	Stdout, Stderr string
	ExitCode       int
	SessionID      string
	// Messages are the assistant's texts; Blocked the "Agent execution
	// blocked" warnings the CLI printed for each deny.
	Messages, Blocked []string
}

// Text is every assistant message of the run, joined.
func (r geminiRun) Text() string { return strings.Join(r.Messages, "") }

// run runs `gemini -p PROMPT -o stream-json --yolo` in the project, in its
// own process group, killed with it if the run takes too long.
func (s *geminiSession) run(prompt string, args ...string) geminiRun {
	s.t.Helper()
	if len(s.Hooks) > 0 { // none when closer init wrote them
		s.writeSettings()
	}
	allowProject(s.t, s.Home, filepath.Join(s.Home, "donegate-state"), s.Project)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	args = append([]string{"-p", prompt, "-o", "stream-json", "--yolo", "-m", geminiModel}, args...)
	cmd := exec.CommandContext(ctx, geminiBinary(s.t), args...)
	cmd.Dir = s.Project
	cmd.Stdin = nil
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	// Nothing of the developer's own environment may leak in: no real
	// HOME, no GEMINI_*/GOOGLE_* settings, no donegate config. Project
	// hooks run only in a trusted folder.
	cmd.Env = append([]string{
		"PATH=" + hookBinaries(s.t) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + s.Home,
		"TMPDIR=" + s.t.TempDir(),
		"LANG=C.UTF-8",
		"TERM=dumb",
		"GOOGLE_GEMINI_BASE_URL=" + s.API.URL(),
		"GEMINI_API_KEY=fake-key-for-tests",
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state"),
	}, s.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := geminiRun{Stdout: stdout.String(), Stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.ExitCode = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("run gemini: %v\nstderr: %s", err, stderr.String())
	}
	if ctx.Err() != nil {
		s.t.Fatalf("gemini did not finish within 120s\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
	}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev struct {
			Type      string `json:"type"`
			Role      string `json:"role"`
			Content   string `json:"content"`
			Message   string `json:"message"`
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "init":
			r.SessionID = ev.SessionID
		case ev.Type == "message" && ev.Role == "assistant":
			r.Messages = append(r.Messages, ev.Content)
		case ev.Type == "error" && strings.HasPrefix(ev.Message, "Agent execution blocked: "):
			r.Blocked = append(r.Blocked, strings.TrimPrefix(ev.Message, "Agent execution blocked: "))
		}
	}
	return r
}

// geminiMainTurn returns what the CLI told the model last before main
// request i: the prompt, a tool's result, or a deny's reason.
func geminiMainTurn(t *testing.T, api *fakeapi.Gemini, i int) string {
	t.Helper()
	reqs := api.Of("main")
	require.Greater(t, len(reqs), i, "main requests")
	return fakeapi.GeminiText(reqs[i].Body, true)
}

// assertGeminiEnded checks the run ended normally after the whole script.
func assertGeminiEnded(t *testing.T, api *fakeapi.Gemini, r geminiRun, mainRequests int) {
	t.Helper()
	assert.Equal(t, 0, r.ExitCode, "exit code; stderr: %s", r.Stderr)
	assert.False(t, api.Exhausted(), "the agent was kept going beyond the script")
	assert.Len(t, api.Of("main"), mainRequests)
}

func geminiTodo(description, status string) map[string]any {
	return map[string]any{"description": description, "status": status}
}

func writeTodos(todos ...map[string]any) fakeapi.Turn {
	return fakeapi.Call("write_todos", map[string]any{"todos": todos})
}

func shell(command string) fakeapi.Turn {
	return fakeapi.Call("run_shell_command", map[string]any{"command": command, "description": command})
}

// geminiRecordingHook is a hook that keeps each event it is given (and, for
// AfterAgent, a copy of the chat file as it was then, and the GEMINI_* and
// CLAUDE_* environment) in dir, and answers AfterAgent from dir/answers,
// one line per AfterAgent: "deny" denies with a numbered reason,
// anything else allows ({}).
const geminiRecordingHook = `#!/bin/sh
dir=%s
n=$(ls "$dir" | grep -c '\.json$')
n=$(printf %%02d "$n")
cat > "$dir/$n.json"
event=$(sed -n 's/.*"hook_event_name":"\([A-Za-z]*\)".*/\1/p' "$dir/$n.json")
mv "$dir/$n.json" "$dir/$n-$event.json"
env | grep -E '^(GEMINI|CLAUDE)_' | sort > "$dir/$n-$event.env"
if [ "$event" = AfterAgent ]; then
  chat=$(sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p' "$dir/$n-$event.json")
  cp "$chat" "$dir/$n-$event.chat"
  k=$(ls "$dir" | grep -c 'AfterAgent\.json$')
  if [ "$(sed -n "${k}p" "$dir/answers")" = deny ]; then
    echo "{\"decision\":\"deny\",\"reason\":\"Not done yet (deny $k).\"}"
    exit 0
  fi
fi
echo '{}'
`

// useRecorder registers the recording hook for the events it records and
// returns the directory it records into.
func (s *geminiSession) useRecorder(answers ...string) string {
	dir := filepath.Join(s.t.TempDir(), "recorded")
	require.NoError(s.t, os.MkdirAll(dir, 0o755))
	require.NoError(s.t, os.WriteFile(filepath.Join(dir, "answers"), []byte(strings.Join(answers, "\n")+"\n"), 0o644))
	hook := filepath.Join(filepath.Dir(dir), "record-hook")
	require.NoError(s.t, os.WriteFile(hook, []byte(fmt.Sprintf(geminiRecordingHook, "'"+dir+"'")), 0o755))
	for _, event := range []string{"SessionStart", "BeforeAgent", "AfterAgent"} {
		s.Hooks[event] = append(s.Hooks[event], hook)
	}
	return dir
}

// geminiEvent is one event the recording hook kept.
type geminiEvent struct {
	File string
	Raw  []byte
	Env  string
	Chat []byte // AfterAgent: the chat file as it was
}

func (e geminiEvent) field(t *testing.T, name string) any {
	var m map[string]any
	require.NoError(t, json.Unmarshal(e.Raw, &m), "%s", e.Raw)
	return m[name]
}

func geminiEvents(t *testing.T, dir, event string) []geminiEvent {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*-"+event+".json"))
	require.NoError(t, err)
	sort.Strings(files)
	var out []geminiEvent
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		env, _ := os.ReadFile(strings.TrimSuffix(f, ".json") + ".env")
		chat, _ := os.ReadFile(strings.TrimSuffix(f, ".json") + ".chat")
		out = append(out, geminiEvent{File: f, Raw: raw, Env: string(env), Chat: chat})
	}
	return out
}

// The events and the chat file testdata/events/gemini/ holds are what the
// real CLI sends and writes: recorded with -update-gemini, and checked
// against a fresh recording on every run (keys, and the fields donegate
// reads). The run: a prompt denied twice, the second continuation running
// write_todos and a shell command before its answer is denied again, then
// let go; the session resumed with the same prompt, denied once.
func TestGeminiEventsAreTheRecordedOnes(t *testing.T) {
	t.Parallel()
	const prompt = "Write DONE.txt"
	api := fakeapi.NewGemini(
		fakeapi.Say("First answer, turn over."),
		fakeapi.Say("Second answer."),
		writeTodos(geminiTodo("Write DONE.txt", "in_progress"), geminiTodo("Report back", "pending")),
		shell("echo done > DONE.txt"),
		fakeapi.Say("Ran a tool."),
		writeTodos(geminiTodo("Write DONE.txt", "completed"), geminiTodo("Report back", "completed")),
		fakeapi.Say("All done."),
	)
	s := newGeminiSession(t, api)
	dir := s.useRecorder("deny", "deny", "deny", "allow", "deny", "allow")
	r := s.run(prompt)
	assertGeminiEnded(t, api, r, 7)
	assert.Equal(t, []string{"Not done yet (deny 1).", "Not done yet (deny 2).", "Not done yet (deny 3)."}, r.Blocked)
	// A deny's reason is the model's next user turn, as plain text.
	assert.Equal(t, "Not done yet (deny 1).", geminiMainTurn(t, api, 1))
	assert.Equal(t, "Not done yet (deny 3).", geminiMainTurn(t, api, 5))

	// The same session again, the same prompt: a new turn.
	s.API = fakeapi.NewGemini(fakeapi.Say("Second prompt answer."), fakeapi.Say("Second prompt, after deny."))
	r2 := s.run(prompt, "--resume", "latest")
	assertGeminiEnded(t, s.API, r2, 2)
	assert.Equal(t, r.SessionID, r2.SessionID)

	after := geminiEvents(t, dir, "AfterAgent")
	require.Len(t, after, 6)
	var active []any
	var responses []any
	for _, e := range after {
		active = append(active, e.field(t, "stop_hook_active"))
		responses = append(responses, e.field(t, "prompt_response"))
		// The prompt is the turn's first one, never a deny's reason.
		assert.Equal(t, prompt, e.field(t, "prompt"))
		assert.Equal(t, r.SessionID, e.field(t, "session_id"))
		assert.Contains(t, e.Env, "GEMINI_SESSION_ID="+r.SessionID)
		assert.Contains(t, e.Env, "GEMINI_PROJECT_DIR="+s.Project)
	}
	// stop_hook_active is true after a deny, false again once the
	// continued turn ran a tool: it cannot tell a continuation from a new
	// prompt.
	assert.Equal(t, []any{false, true, false, false, false, true}, active)
	// prompt_response is cumulative over the turn and starts over with
	// the next prompt.
	assert.Equal(t, []any{"First answer, turn over.", "First answer, turn over.\nSecond answer.",
		"First answer, turn over.\nSecond answer.\nRan a tool.", "First answer, turn over.\nSecond answer.\nRan a tool.\nAll done.",
		"Second prompt answer.", "Second prompt answer.\nSecond prompt, after deny."}, responses)

	// What identifies a turn: the chat's record of its prompt, as the
	// stop-hook reads it from the chat file as it was at each stop.
	var turns []string
	for _, e := range after {
		chat := filepath.Join(t.TempDir(), "session.jsonl")
		require.NoError(t, os.WriteFile(chat, e.Chat, 0o600))
		id, err := transcript.GeminiTurn(chat, prompt)
		require.NoError(t, err)
		turns = append(turns, id)
	}
	require.NotEmpty(t, turns[0])
	assert.Equal(t, []string{turns[0], turns[0], turns[0], turns[0], turns[4], turns[4]}, turns)
	assert.NotEqual(t, turns[0], turns[4], "the resumed session's prompt is a turn of its own")

	before := geminiEvents(t, dir, "BeforeAgent")
	start := geminiEvents(t, dir, "SessionStart")
	require.Len(t, start, 2)
	// BeforeAgent fires again for each deny, with the reason as prompt.
	require.Len(t, before, 6)
	assert.Equal(t, "Not done yet (deny 1).", before[1].field(t, "prompt"))

	fixtures := []struct {
		file  string
		event geminiEvent
	}{
		{"sessionstart-startup.json", start[0]},
		{"beforeagent-prompt.json", before[0]},
		{"afteragent-first.json", after[0]},
		{"beforeagent-after-deny.json", before[1]},
		{"afteragent-after-deny.json", after[1]},
		{"afteragent-after-deny-and-tool.json", after[2]},
		{"afteragent-allowed.json", after[3]},
		{"sessionstart-resume.json", start[1]},
		{"afteragent-resumed-same-prompt.json", after[4]},
	}
	replacer := strings.NewReplacer(s.Project, "/home/user/project", s.Home, "/home/user")
	fixtureDir := filepath.Join(repoRoot(t), "testdata", "events", "gemini")
	check := func(file string, got []byte, compare func(recorded, got []byte)) {
		t.Helper()
		path := filepath.Join(fixtureDir, file)
		if *updateGemini {
			require.NoError(t, os.MkdirAll(fixtureDir, 0o755))
			require.NoError(t, os.WriteFile(path, got, 0o644))
		}
		recorded, err := os.ReadFile(path)
		require.NoError(t, err, "run go test -tags e2e ./e2e -run TestGeminiEventsAreTheRecordedOnes -update-gemini")
		compare(recorded, got)
	}
	for _, f := range fixtures {
		got := indentJSON(t, []byte(replacer.Replace(string(f.event.Raw))))
		check(f.file, got, func(recorded, got []byte) {
			assert.Equal(t, keys(t, recorded), keys(t, got), "%s: the real CLI's event has other fields than the fixture; record it again", f.file)
			for _, field := range []string{"hook_event_name", "source", "prompt", "prompt_response", "stop_hook_active"} {
				assert.Equal(t, jsonField(t, recorded, field), jsonField(t, got, field), "%s: %s", f.file, field)
			}
			assert.Regexp(t, `^/home/user/\.gemini/tmp/project/chats/session-[0-9T-]+-[0-9a-f]{8}\.jsonl$`, jsonField(t, got, "transcript_path"), f.file)
		})
	}
	// The environment the hook sees, values made alike.
	check("hook-env.txt", []byte(regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f-]{27}`).ReplaceAllString(replacer.Replace(after[0].Env), "SESSION-ID")),
		func(recorded, got []byte) { assert.Equal(t, string(recorded), string(got)) })
	// The chat file at the allowed AfterAgent, with the write_todos calls.
	check("chat-write-todos.jsonl", []byte(replacer.Replace(string(after[3].Chat))), func(recorded, got []byte) {
		assert.Equal(t, chatShape(t, recorded), chatShape(t, got), "the real CLI's chat file has another shape than the fixture; record it again")
	})
}

func indentJSON(t *testing.T, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Indent(&buf, raw, "", " "), "%s", raw)
	buf.WriteByte('\n')
	return buf.Bytes()
}

func jsonField(t *testing.T, data []byte, name string) any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m), "%s", data)
	return m[name]
}

// chatShape is what the plan reader depends on in a chat file, one line
// per record: its keys, its type, and its tool calls' names and arguments.
func chatShape(t *testing.T, chat []byte) []string {
	t.Helper()
	var out []string
	for _, line := range bytes.Split(bytes.TrimSpace(chat), []byte("\n")) {
		var rec map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(line, &rec), "%s", line)
		var names []string
		for k := range rec {
			names = append(names, k)
		}
		sort.Strings(names)
		shape := strings.Join(names, ",") + " " + string(rec["type"])
		var calls []struct {
			Name   string          `json:"name"`
			Args   json.RawMessage `json:"args"`
			Status string          `json:"status"`
		}
		if json.Unmarshal(rec["toolCalls"], &calls) == nil {
			for _, c := range calls {
				shape += " " + c.Name + ":" + c.Status
				if c.Name == "write_todos" {
					shape += string(c.Args)
				}
			}
		}
		out = append(out, shape)
	}
	return out
}

// Gemini (a): held while write_todos has open items, told which, and let
// go once the agent marks them done. The continuation runs tools, so
// stop_hook_active is false again at the second AfterAgent.
func TestGeminiOpenTodosHoldTheAgent(t *testing.T) {
	t.Parallel()
	api := fakeapi.NewGemini(
		writeTodos(geminiTodo("Write DONE.txt", "in_progress"), geminiTodo("Report back", "pending")),
		shell("echo done > DONE.txt"),
		fakeapi.Say("I am done."),
		writeTodos(geminiTodo("Write DONE.txt", "completed"), geminiTodo("Report back", "completed")),
		fakeapi.Say("Now all done."),
	)
	s := newGeminiSession(t, api)
	s.config(`{"checkers":[{"type":"plan"}]}`)
	s.useDonegate()
	r := s.run("Write DONE.txt and report back")

	require.Len(t, r.Blocked, 1, "one deny; stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	reason := geminiMainTurn(t, api, 3)
	assert.Contains(t, reason, "Write DONE.txt")
	assert.Contains(t, reason, "Report back")
	assert.NotContains(t, geminiMainTurn(t, api, 2), "Report back", "no deny before the first answer")
	assertGeminiEnded(t, api, r, 5)
	assert.Equal(t, "I am done.Now all done.", r.Text())
}

// Gemini's task tracker (experimental.taskTracker; where it is on, as with
// Gemini 3 models, the agent plans with tracker_* tools rather than
// write_todos): an open tracker task holds the agent, named with the tool
// that closes it; closing it (by the id Gemini made up, read from the
// create call's result) lets the agent go.
func TestGeminiTaskTrackerHoldsTheAgent(t *testing.T) {
	t.Parallel()
	hexID := regexp.MustCompile(`\b[0-9a-f]{6}\b`)
	var created string
	api := fakeapi.NewGemini(
		fakeapi.Call("tracker_create_task", map[string]any{"title": "Write DONE.txt", "description": "Write the file DONE.txt with the word done", "type": "task"}),
		fakeapi.Say("I am done."),
		fakeapi.Turn{From: func(req fakeapi.Request) fakeapi.Turn {
			// The conversation so far holds the create call's result.
			created = hexID.FindString(fakeapi.GeminiText(req.Body, false))
			return fakeapi.Call("tracker_update_task", map[string]any{"id": created, "status": "closed"})
		}},
		fakeapi.Say("Now all done."),
	)
	s := newGeminiSession(t, api)
	s.Settings = map[string]any{"experimental": map[string]any{"taskTracker": true}}
	s.config(`{"checkers":[{"type":"plan"}]}`)
	s.useDonegate()
	r := s.run("Write DONE.txt")

	main := api.Of("main")
	require.NotEmpty(t, main)
	t.Logf("tools offered: %s", geminiToolNames(main[0].Body))
	require.Len(t, r.Blocked, 1, "one deny; stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	reason := geminiMainTurn(t, api, 2)
	assert.Contains(t, reason, "You have 1 incomplete task(s) out of 1. ")
	assert.Contains(t, reason, "tracker_update_task", "the feedback names the tracker's tool")
	assert.Contains(t, reason, "Write DONE.txt")
	assert.NotEmpty(t, created, "the create call's result named the task's id")
	assertGeminiEnded(t, api, r, 4)
	assert.Equal(t, "I am done.Now all done.", r.Text())

	// The tracker file is where the reader looks, in the shape it reads.
	files, err := filepath.Glob(filepath.Join(s.Home, ".gemini", "tmp", "*", r.SessionID, "tracker", "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1, "one tracker task")
	data, err := os.ReadFile(files[0])
	require.NoError(t, err)
	checkJSONFixture(t, filepath.Join("events", "gemini", "tracker", "task.json"), data, created, "3fa2c1")
}

// geminiToolNames lists the function declarations a Gemini request offers.
func geminiToolNames(body []byte) []string {
	var req struct {
		Tools []struct {
			FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	var names []string
	for _, tl := range req.Tools {
		for _, f := range tl.FunctionDeclarations {
			names = append(names, f.Name)
		}
	}
	return names
}

// Gemini (b): a Go project with a failing test: the test checker holds
// the agent with the failure and lets it go once its fix passes.
func TestGeminiFailingTestHoldsTheAgent(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	api := fakeapi.NewGemini(
		fakeapi.Say("Done."),
		shell("sed -i 's/a - b/a + b/' calc.go"),
		fakeapi.Say("Fixed: Add adds."),
	)
	s := newGeminiSession(t, api)
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.21\n",
		"calc.go":      "package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
	}
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(s.Project, name), []byte(content), 0o644))
	}
	// The developer's build cache keeps the hook's go test quick; no
	// toolchain is ever fetched.
	cache, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	s.Env = []string{"GOCACHE=" + strings.TrimSpace(string(cache)), "GOTOOLCHAIN=local", "GOFLAGS=", "GOPATH=" + filepath.Join(s.Home, "go")}
	s.config(`{"checkers":[{"type":"test"}]}`)
	s.useDonegate()
	r := s.run("Make Add correct")

	require.Len(t, r.Blocked, 1, "one deny; stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	reason := geminiMainTurn(t, api, 1)
	assert.Contains(t, reason, "The test command `go test ./...` failed with exit code 1.")
	assert.Contains(t, reason, "Add(2, 3) = -1, want 5")
	assertGeminiEnded(t, api, r, 3)
	assert.Equal(t, "Done.Fixed: Add adds.", r.Text())
}

// Gemini (c): an agent that never finishes is let go after max_blocks
// continuations by donegate's own count (Gemini has no cap that matters),
// though each continuation ran a tool and so came with stop_hook_active
// false; and the same prompt again in the resumed session is a turn of
// its own, held again rather than let through on the spent count.
func TestGeminiBlockCapLetsTheAgentGo(t *testing.T) {
	t.Parallel()
	api := fakeapi.NewGemini(
		fakeapi.Say("Done."),
		shell("true"),
		fakeapi.Say("Done!"),
		shell("true"),
		fakeapi.Say("Really done."),
	)
	s := newGeminiSession(t, api)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	s.useDonegate()
	r := s.run("Do it")

	require.Len(t, r.Blocked, 2, "two denies; stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	assert.Contains(t, geminiMainTurn(t, api, 1), "Missing required files: never.txt")
	assert.Contains(t, geminiMainTurn(t, api, 3), "Missing required files: never.txt")
	assertGeminiEnded(t, api, r, 5)
	assert.Contains(t, r.Stderr, "still incomplete after 2 continuations", "the person sees why the agent stopped")
	// closer explain --last replays that stop of the real session: the
	// same turn, so the count it finds is spent.
	code, out, _ := s.closer("explain", "--last", "--dir", s.Project)
	assert.Equal(t, 0, code, "the hook let the agent stop")
	assert.Contains(t, out, "session "+r.SessionID)
	assert.Contains(t, out, "Why: let through: max_blocks (2) spent")

	s.API = fakeapi.NewGemini(fakeapi.Say("Done."), fakeapi.Say("Done, again."), fakeapi.Say("Still done."))
	r2 := s.run("Do it", "--resume", "latest")
	require.Equal(t, r.SessionID, r2.SessionID)
	assert.Len(t, r2.Blocked, 2, "the new prompt is held max_blocks times again; stdout: %s\nstderr: %s", r2.Stdout, r2.Stderr)
	assert.Contains(t, geminiMainTurn(t, s.API, 1), "Missing required files: never.txt")
	assertGeminiEnded(t, s.API, r2, 3)
}

// Gemini: what identifies a turn. A turn held once and then cut short
// (the CLI killed during its continuation, so donegate never saw its end)
// leaves a count of 1; the same prompt in the resumed session has the
// same session id and the same prompt text, but is a turn of its own: it
// gets its whole max_blocks, not the interrupted turn's remainder.
func TestGeminiResumedPromptIsANewTurn(t *testing.T) {
	t.Parallel()
	api := fakeapi.NewGemini(
		fakeapi.Say("Done."),
		// The tool's shell is the CLI's child: the CLI dies mid-turn.
		shell("kill -9 $PPID"),
	)
	s := newGeminiSession(t, api)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	s.useDonegate()
	r := s.run("Do it")
	require.Len(t, r.Blocked, 1, "held once; stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	require.NotEqual(t, 0, r.ExitCode, "the CLI was killed")

	s.API = fakeapi.NewGemini(fakeapi.Say("Done."), fakeapi.Say("Done!"), fakeapi.Say("Really done."))
	r2 := s.run("Do it", "--resume", "latest")
	require.Equal(t, r.SessionID, r2.SessionID)
	assert.Len(t, r2.Blocked, 2, "the resumed prompt is held max_blocks times; stdout: %s\nstderr: %s", r2.Stdout, r2.Stderr)
	assertGeminiEnded(t, s.API, r2, 3)
	assert.Contains(t, r2.Stderr, "still incomplete after 2 continuations")
}

// Gemini: stop-hook --criteria at SessionStart and BeforeAgent tells the
// model what donegate will check before its first answer, and the agent
// is then held to it. Gemini fires BeforeAgent again for each
// continuation after a deny, so the criteria come again with each reason.
func TestGeminiCriteriaReachTheModel(t *testing.T) {
	t.Parallel()
	api := fakeapi.NewGemini(
		fakeapi.Say("Done."),
		shell("echo '# Report' > REPORT.md"),
		fakeapi.Say("The report is written."),
	)
	s := newGeminiSession(t, api)
	s.config(`{"checkers":[{"type":"files","paths":["REPORT.md"]}]}`)
	s.useDonegate()
	s.Hooks["SessionStart"] = append(s.Hooks["SessionStart"], "stop-hook --criteria")
	s.Hooks["BeforeAgent"] = append(s.Hooks["BeforeAgent"], "stop-hook --criteria")
	r := s.run("Write the report")

	const criteria = "<hook_context>This session ends when: required files exist: REPORT.md. " +
		"donegate checks this each time you stop and, while something is missing, keeps you working and tells you what.</hook_context>"
	reqs := api.Of("main")
	require.NotEmpty(t, reqs)
	// SessionStart's before the prompt, BeforeAgent's after it.
	assert.Equal(t, criteria+"\n\nWrite the report\n"+criteria, geminiMainTurn(t, api, 0)[strings.Index(geminiMainTurn(t, api, 0), criteria):])
	require.Len(t, r.Blocked, 1, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	assert.Equal(t, "Missing required files: REPORT.md\n"+criteria, geminiMainTurn(t, api, 1))
	assertGeminiEnded(t, api, r, 3)
}

// closer runs the closer binary in the project with the session's HOME,
// killed with its process group after a minute.
func (s *geminiSession) closer(args ...string) (code int, stdout, stderr string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, closerBinary(s.t), args...)
	cmd.Dir = s.Project
	cmd.Env = append([]string{
		"PATH=" + hookBinaries(s.t) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + s.Home,
		"LANG=C.UTF-8",
		"DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state"),
	}, s.Env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("run closer: %v\nstderr: %s", err, errOut.String())
	}
	s.t.Logf("closer %s\nexit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out.String(), errOut.String())
	require.NoError(s.t, ctx.Err(), "closer did not finish within a minute")
	return code, out.String(), errOut.String()
}

// Gemini, set up by `closer init --host gemini` alone (the hooks merged
// into .gemini/settings.json, the default config): the real CLI runs the
// hooks it wrote, holds the agent on its open write_todos item, lets it go
// when done, and doctor finds the setup sound.
func TestGeminiSetUpByCloserInit(t *testing.T) {
	t.Parallel()
	api := fakeapi.NewGemini(
		writeTodos(geminiTodo("Write DONE.txt", "in_progress")),
		fakeapi.Say("I am done."),
		writeTodos(geminiTodo("Write DONE.txt", "completed")),
		fakeapi.Say("Now all done."),
	)
	s := newGeminiSession(t, api)
	code, _, _ := s.closer("init", "--host", "gemini", "--dir", s.Project)
	require.Equal(t, 0, code)
	settings, err := os.ReadFile(filepath.Join(s.Project, ".gemini", "settings.json"))
	require.NoError(t, err)
	assert.Contains(t, string(settings), `"AfterAgent"`)

	r := s.run("Write DONE.txt")
	require.Len(t, r.Blocked, 1, "one deny; stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	assert.Contains(t, geminiMainTurn(t, api, 2), "Write DONE.txt")
	assertGeminiEnded(t, api, r, 4)

	s.Env = append(s.Env, "GEMINI_CLI_TRUST_WORKSPACE=true")
	code, out, _ := s.closer("doctor", "--dir", s.Project)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "✓ gemini: stop-hook at AfterAgent")
	assert.Contains(t, out, "No problems found.", "no warning of Claude Code's plan tools in a Gemini project")
}

// TestGeminiGuardRefusesTheAgentsCalls: with the hooks closer init --host
// gemini registers, the real Gemini CLI's agent tries to loosen its gate:
// closer release through run_shell_command, and a write_file of the
// project's .gemini/settings.json (which Gemini cannot ask the person
// about: an "ask" there waits for ever in gemini -p). Both are denied
// before they run, the reasons reach the model, and the stop still holds.
func TestGeminiGuardRefusesTheAgentsCalls(t *testing.T) {
	t.Parallel()
	api := fakeapi.NewGemini(
		writeTodos(geminiTodo("Write DONE.txt", "in_progress")),
		shell(closerBinary(t)+" release"),
		fakeapi.Call("write_file", map[string]any{"file_path": ".gemini/settings.json", "content": "{}"}),
		fakeapi.Say("I am done."),
		fakeapi.Say("Still done."),
		fakeapi.Say("Done, really."),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
	)
	s := newGeminiSession(t, api)
	code, _, _ := s.closer("init", "--host", "gemini", "--dir", s.Project)
	require.Equal(t, 0, code)
	s.config(`{"checkers":[{"type":"plan"}],"limits":{"max_blocks":2}}`)
	r := s.run("Write DONE.txt")

	assert.Contains(t, geminiMainTurn(t, api, 2), "Tool execution blocked: donegate refuses this call: `closer release` is the person's command, not yours")
	assert.Contains(t, geminiMainTurn(t, api, 3), "This call changes the project's host settings ("+filepath.Join(s.Project, ".gemini", "settings.json")+")")
	assert.Contains(t, geminiMainTurn(t, api, 3), "this host cannot ask them here, so donegate refuses it")
	settings, err := os.ReadFile(filepath.Join(s.Project, ".gemini", "settings.json"))
	require.NoError(t, err)
	assert.Contains(t, string(settings), `"AfterAgent"`, "the write was refused")
	require.NotEmpty(t, r.Blocked, "still held after the tries; stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	assert.Contains(t, geminiMainTurn(t, api, 4), "Write DONE.txt")
}

// TestGeminiTUIHasNoMidTurnRoute measures the person's route in Gemini
// CLI's terminal (tmux): a message typed while the agent's slow shell
// call runs fires no hook while the turn runs — its BeforeAgent, if it
// comes, comes once the running turn has ended (its AfterAgent answered;
// measured: queued and sent then, or left in the input box). No message
// can release a turn there while it runs, so the person's route on Gemini
// is closer release in a terminal of their own (docs/hosts.md). A Gemini
// that fires BeforeAgent at once fails this, and the phrase can be built.
func TestGeminiTUIHasNoMidTurnRoute(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "tmux")
	s := newGeminiSession(t, fakeapi.NewGemini(shell("sleep 6; echo done > job.txt"), fakeapi.Say("Done."), fakeapi.Say("Fine.")))
	events := filepath.Join(t.TempDir(), "events")
	rec := recorder(t, events)
	s.Hooks["BeforeAgent"] = []string{rec + " " + filepath.Join(hookBinaries(t), "stop-hook") + " --criteria"}
	s.Hooks["AfterAgent"] = []string{rec + " " + filepath.Join(hookBinaries(t), "stop-hook")}
	s.config(`{"checkers":[{"type":"files","paths":["job.txt"]}]}`)
	s.writeSettings()
	state := filepath.Join(s.Home, "donegate-state")
	allowProject(t, s.Home, state, s.Project)
	env := []string{"PATH=" + hookBinaries(t) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + s.Home, "TMPDIR=" + t.TempDir(), "LANG=C.UTF-8", "TERM=xterm-256color",
		"GOOGLE_GEMINI_BASE_URL=" + s.API.URL(), "GEMINI_API_KEY=fake-key-for-tests", "GEMINI_CLI_TRUST_WORKSPACE=true", "DONEGATE_STATE_DIR=" + state}
	term := newTerminal(t, "donegate-gemini-"+filepath.Base(s.Home), s.Project, env, geminiBinary(t), "--yolo", "-m", geminiModel)
	term.waitFor("the prompt", func() bool { return strings.Contains(term.screen(), "Type your message") })
	// Measured: an Enter in the first seconds after the prompt shows is
	// taken before the input is live.
	time.Sleep(3 * time.Second)
	term.typeLine("Run the slow job")
	term.waitFor("the slow command", func() bool { return len(s.API.Requests()) >= 1 && strings.Contains(term.screen(), "sleep 6") })
	time.Sleep(time.Second)
	typedAt := len(clientEvents(t, events))
	term.typeLine("donegate release")
	term.waitFor("the first turn's end", func() bool { return len(ofEvent(clientEvents(t, events), "AfterAgent")) >= 1 })
	time.Sleep(3 * time.Second)

	var order []string
	for _, e := range clientEvents(t, events) {
		order = append(order, fmt.Sprintf("%s %v", e.str("hook_event_name"), e.Fields["prompt"]))
	}
	require.Equal(t, 1, typedAt, "typed while the first turn ran: %v", order)
	require.GreaterOrEqual(t, len(order), 2)
	assert.Equal(t, []string{"BeforeAgent Run the slow job", "AfterAgent Run the slow job"}, order[:2],
		"nothing of the typed message reached a hook while the turn ran; the screen:\n%s", term.screen())
}
