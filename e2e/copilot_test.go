//go:build e2e && !windows

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// updateCopilot rewrites testdata/events/copilot/ from the real client.
var updateCopilot = flag.Bool("update-copilot", false, "record the real Copilot CLI's hook events and session.db as fixtures")

// copilotBinary is the pinned Copilot CLI (see pinned).
func copilotBinary(t *testing.T) string {
	return pinned(t, "DONEGATE_COPILOT", "copilot", "the Copilot CLI")
}

// copilotSession is one scripted run of the real Copilot CLI, offline
// (BYOK against the Messages stand-in), in a throwaway HOME.
type copilotSession struct {
	t       *testing.T
	API     *fakeapi.Server
	Home    string
	Project string
	Env     []string
	// Hooks are the project's .github/hooks/<file>.json hook commands by
	// file, then by Copilot's event name.
	Hooks map[string]map[string][]string
}

func newCopilotSession(t *testing.T, api *fakeapi.Server) *copilotSession {
	t.Helper()
	t.Cleanup(api.Close)
	return &copilotSession{t: t, API: api, Home: t.TempDir(), Project: t.TempDir(), Hooks: map[string]map[string][]string{}}
}

// hook registers a bash command for one Copilot event in hook file name.
func (s *copilotSession) hook(file, event, command string) {
	if s.Hooks[file] == nil {
		s.Hooks[file] = map[string][]string{}
	}
	s.Hooks[file][event] = append(s.Hooks[file][event], command)
}

// useDonegate registers donegate's stop-hook as its docs do: the bare
// name, found on PATH, for agentStop and subagentStop.
func (s *copilotSession) useDonegate(flags ...string) {
	command := strings.Join(append([]string{"stop-hook"}, flags...), " ")
	s.hook("donegate", "agentStop", command)
	s.hook("donegate", "subagentStop", command)
}

// config writes the project's host-neutral .donegate.json.
func (s *copilotSession) config(cfg string) {
	require.NoError(s.t, os.WriteFile(filepath.Join(s.Project, ".donegate.json"), []byte(cfg), 0o644))
}

func (s *copilotSession) writeHooks() {
	dir := filepath.Join(s.Project, ".github", "hooks")
	require.NoError(s.t, os.MkdirAll(dir, 0o755))
	for file, events := range s.Hooks {
		hooks := map[string]any{}
		for event, commands := range events {
			var list []any
			for _, c := range commands {
				list = append(list, map[string]any{"type": "command", "bash": c, "timeoutSec": 600})
			}
			hooks[event] = list
		}
		data, err := json.MarshalIndent(map[string]any{"version": 1, "hooks": hooks}, "", "  ")
		require.NoError(s.t, err)
		require.NoError(s.t, os.WriteFile(filepath.Join(dir, file+".json"), data, 0o644))
	}
}

type copilotResult struct {
	Stdout, Stderr string
	ExitCode       int
}

// run runs `copilot -p PROMPT` (with --continue when resume is set) in
// its own process group, killed with it if the run takes too long.
func (s *copilotSession) run(prompt string, resume bool) copilotResult {
	s.t.Helper()
	s.writeHooks()
	allowProject(s.t, s.Home, filepath.Join(s.Home, "donegate-state"), s.Project)
	copilot := copilotBinary(s.t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"-p", prompt, "-s"}
	if resume {
		args = append(args, "--continue")
	}
	cmd := exec.CommandContext(ctx, copilot, args...)
	cmd.Dir = s.Project
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	// Nothing of the developer's own environment may leak in: no real
	// HOME, no COPILOT_* or GH_* settings, no donegate config. The hooks
	// are on PATH under their bare names, as the docs register them.
	// COPILOT_ALLOW_ALL=true also trusts the folder: without it the
	// project's hooks are skipped silently.
	cmd.Env = append([]string{
		"PATH=" + hookBinaries(s.t) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + s.Home,
		"TMPDIR=" + s.t.TempDir(),
		"LANG=C.UTF-8",
		"COPILOT_OFFLINE=true",
		"COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_TYPE=anthropic",
		"COPILOT_PROVIDER_BASE_URL=" + s.API.URL(),
		"COPILOT_PROVIDER_API_KEY=fake-key-for-tests",
		"COPILOT_MODEL=claude-sonnet-4.5",
		"COPILOT_ALLOW_ALL=true",
		"DONEGATE_STATE_DIR=" + filepath.Join(s.Home, "donegate-state"),
	}, s.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := copilotResult{Stdout: stdout.String(), Stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.ExitCode = ee.ExitCode()
	} else if err != nil {
		s.t.Fatalf("run copilot: %v\nstderr: %s", err, stderr.String())
	}
	if ctx.Err() != nil {
		s.t.Fatalf("copilot did not finish within 3 minutes\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
	}
	return r
}

// sessionDir is the one session's state directory, where events.jsonl
// and session.db are.
func (s *copilotSession) sessionDir() string {
	s.t.Helper()
	transcripts, err := filepath.Glob(filepath.Join(s.Home, ".copilot", "session-state", "*", "events.jsonl"))
	require.NoError(s.t, err)
	require.Len(s.t, transcripts, 1, "sessions")
	return filepath.Dir(transcripts[0])
}

// recordingHook is a hook that keeps each event it gets, in order, as
// DIR/<n>-<event>.json, and a copy of session.db beside the transcript
// as DIR/<n>-session.db at each agentStop. It blocks the first
// agentStop of the main agent and the first subagentStop, once each.
const recordingHook = `#!/bin/sh
dir=$1 event=$2
n=$(ls "$dir" | wc -l)
n=$(printf %03d "$n")
cat > "$dir/$n-$event.json"
case $event in agentStop)
  db=$(dirname "$(sed -n 's/.*"transcriptPath":"\([^"]*\)".*/\1/p' "$dir/$n-$event.json")")/session.db
  [ -f "$db" ] && cp "$db" "$dir/$n-session.db"
esac
if grep -q '"agentId"' "$dir/$n-$event.json"; then sub=1; else sub=0; fi
if { [ "$event" = agentStop ] && [ $sub = 0 ]; } || [ "$event" = subagentStop ]; then
  if [ ! -e "$dir/.blocked-$event" ]; then
    : > "$dir/.blocked-$event"
    printf '%s\n' '{"decision":"block","reason":"recording: finish the open todos"}'
  fi
fi
exit 0
`

// recordedEvent is one event the recording hook kept.
type recordedEvent struct {
	Event string
	Data  []byte
	Field map[string]any
}

func (e recordedEvent) subagent() bool { _, ok := e.Field["agentId"]; return ok }

// The events the fixtures under testdata/events/copilot/ hold are what
// the real client sends: a first agentStop, one after a block, one at a
// second prompt of a resumed session, a subagent's own agentStop and its
// subagentStop before and after a block, sessionStart and
// userPromptSubmitted; and session.db as the agent's sql tool left it.
// -update-copilot records them again; otherwise every event of the real
// client must still have the recorded fields.
func TestCopilotFixturesAreTheRealClientsEvents(t *testing.T) {
	t.Parallel()
	insert := "INSERT INTO todos (id, title, description) VALUES " +
		"('write-done', 'Writing DONE.txt', 'Create DONE.txt in the project'), " +
		"('report-back', 'Reporting back', 'Tell the user what was done'); " +
		"INSERT INTO todo_deps (todo_id, depends_on) VALUES ('report-back', 'write-done'); " +
		"UPDATE todos SET status = 'in_progress' WHERE id = 'write-done';"
	api := fakeapi.New(
		fakeapi.Call("sql", map[string]any{"description": "Insert todos", "query": insert}),
		fakeapi.Say("I stop early."),
		fakeapi.Call("sql", map[string]any{"description": "Finish todos", "query": "UPDATE todos SET status = 'done';"}),
		fakeapi.Say("All done."),
		fakeapi.Call("task", map[string]any{"name": "checker", "description": "Check the project", "prompt": "SUBAGENT: look at the project", "agent_type": "general-purpose", "mode": "sync"}),
		fakeapi.Say("Second answer."),
	).WithSubagent("SUBAGENT:", fakeapi.Say("Subagent finished."), fakeapi.Say("Subagent finished twice."))
	s := newCopilotSession(t, api)
	rec := t.TempDir()
	script := filepath.Join(t.TempDir(), "rec.sh")
	require.NoError(t, os.WriteFile(script, []byte(recordingHook), 0o755))
	for _, event := range []string{"sessionStart", "userPromptSubmitted", "agentStop", "subagentStop"} {
		s.hook("rec", event, fmt.Sprintf("%s %s %s", script, rec, event))
	}

	r := s.run("Do the work", false)
	require.Equal(t, 0, r.ExitCode, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	r = s.run("Now check the project", true)
	require.Equal(t, 0, r.ExitCode, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	assert.False(t, api.Exhausted(), "the agent was kept going beyond the script")

	// Sort what was recorded by kind.
	names, err := os.ReadDir(rec)
	require.NoError(t, err)
	var events []recordedEvent
	var dbs []string
	for _, n := range names {
		name := n.Name()
		switch {
		case strings.HasSuffix(name, "-session.db"):
			dbs = append(dbs, filepath.Join(rec, name))
		case strings.HasSuffix(name, ".json"):
			data, err := os.ReadFile(filepath.Join(rec, name))
			require.NoError(t, err)
			e := recordedEvent{Event: strings.TrimSuffix(name[strings.Index(name, "-")+1:], ".json"), Data: data}
			require.NoError(t, json.Unmarshal(data, &e.Field), "%s: %s", name, data)
			events = append(events, e)
		}
	}
	pick := func(event string, sub bool) []recordedEvent {
		var out []recordedEvent
		for _, e := range events {
			if e.Event == event && e.subagent() == sub {
				out = append(out, e)
			}
		}
		return out
	}
	agentStops, subStops := pick("agentStop", false), pick("subagentStop", true)
	subAgentStops := pick("agentStop", true)
	starts, prompts, subPrompts := pick("sessionStart", false), pick("userPromptSubmitted", false), pick("userPromptSubmitted", true)
	require.Len(t, agentStops, 3, "main agentStops")
	require.Len(t, subStops, 2, "subagentStops")
	require.Len(t, subAgentStops, 2, "a subagent's own agentStops")
	require.Len(t, starts, 2, "sessionStarts")
	require.Len(t, prompts, 3, "userPromptSubmitted of the main agent")
	require.Len(t, subPrompts, 2, "userPromptSubmitted of the subagent")
	require.Len(t, dbs, 5, "session.db at each agentStop")

	fixtures := []struct {
		file  string
		event recordedEvent
	}{
		{"agentstop-first.json", agentStops[0]},
		{"agentstop-after-block.json", agentStops[1]},
		{"agentstop-second-prompt.json", agentStops[2]},
		{"subagent-agentstop.json", subAgentStops[0]},
		{"subagentstop-first.json", subStops[0]},
		{"subagentstop-after-block.json", subStops[1]},
		{"sessionstart-new.json", starts[0]},
		{"sessionstart-resume.json", starts[1]},
		{"userpromptsubmitted-first.json", prompts[0]},
		{"userpromptsubmitted-block-reason.json", prompts[1]},
		{"subagent-userpromptsubmitted.json", subPrompts[0]},
	}
	dir := filepath.Join(repoRoot(t), "testdata", "events", "copilot")
	if *updateCopilot {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for _, f := range fixtures {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f.file), s.fixture(f.event.Data), 0o644))
		}
		// The first agentStop's copy holds todos still open; the last
		// of the first prompt's, every todo done.
		copyFile(t, dbs[0], filepath.Join(dir, "session-open.db"))
		copyFile(t, dbs[1], filepath.Join(dir, "session-done.db"))
	}
	for _, f := range fixtures {
		recorded, err := os.ReadFile(filepath.Join(dir, f.file))
		require.NoError(t, err, "run go test -tags e2e ./e2e -run CopilotFixtures -update-copilot")
		assert.Equal(t, keys(t, recorded), keys(t, f.event.Data), "%s: the real client's event has other fields than the fixture; record it again", f.file)
	}

	// The plan as the real client's sql tool left it, read as the
	// stop-hook reads it; in rollback-journal mode (header bytes 18 and
	// 19 are 1), which is all the reader reads beside an empty WAL.
	for i, want := range [][]transcript.Item{
		{{Title: "Writing DONE.txt", Status: "in_progress"}, {Title: "Reporting back", Status: "pending"}},
		{{Title: "Writing DONE.txt", Status: "completed"}, {Title: "Reporting back", Status: "completed"}},
	} {
		session := t.TempDir()
		copyFile(t, dbs[i], filepath.Join(session, "session.db"))
		items, found, err := transcript.ReadCopilotTodos(context.Background(), filepath.Join(session, "events.jsonl"))
		require.NoError(t, err)
		assert.True(t, found)
		assert.Equal(t, want, items)
		header, err := os.ReadFile(dbs[i])
		require.NoError(t, err)
		assert.Equal(t, []byte{1, 1}, header[18:20], "session.db's journal mode: 1 rollback, 2 WAL")
	}

	// What tells a continuation from a new prompt: stop_hook_active.
	assert.Equal(t, false, agentStops[0].Field["stop_hook_active"])
	assert.Equal(t, true, agentStops[1].Field["stop_hook_active"])
	assert.Equal(t, false, agentStops[2].Field["stop_hook_active"])
	assert.Equal(t, true, subStops[1].Field["stop_hook_active"])
	// A block's reason comes back as a prompt.
	assert.Equal(t, "recording: finish the open todos", prompts[1].Field["prompt"])
	assert.Equal(t, "resume", starts[1].Field["source"])
	// The subagent's own agentStop names the subagent as its session.
	assert.Equal(t, subAgentStops[0].Field["agentId"], subAgentStops[0].Field["sessionId"])
	assert.Equal(t, agentStops[0].Field["sessionId"], subAgentStops[0].Field["parentAgentId"])
	assert.Equal(t, filepath.Join(s.sessionDir(), "events.jsonl"), agentStops[0].Field["transcriptPath"])
}

// fixture rewrites the run's temporary paths as the fixtures keep them:
// $COPILOT_HOME for the CLI's state dir, /home/user/project for the
// project; everything else as recorded.
func (s *copilotSession) fixture(data []byte) []byte {
	text := strings.ReplaceAll(string(data), filepath.Join(s.Home, ".copilot"), "$COPILOT_HOME")
	text = strings.ReplaceAll(text, s.Project, "/home/user/project")
	var m map[string]any
	require.NoError(s.t, json.Unmarshal([]byte(text), &m))
	// Keep the client's field order out of it: sorted, indented.
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, k := range ks {
		kj, _ := json.Marshal(k)
		vj, _ := json.Marshal(m[k])
		fmt.Fprintf(&b, " %s: %s", kj, vj)
		if i < len(ks)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return b.Bytes()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, data, 0o644))
}

// copilotTodos is the sql tool call the real client's model makes to
// write a plan (its system prompt's own example): two todos, the first
// in progress.
func copilotTodos() fakeapi.Turn {
	return fakeapi.Call("sql", map[string]any{"description": "Insert todos", "query": "INSERT INTO todos (id, title, description) VALUES " +
		"('write-done', 'Writing DONE.txt', 'Create DONE.txt in the project'), " +
		"('report-back', 'Reporting back', 'Tell the user what was done'); " +
		"UPDATE todos SET status = 'in_progress' WHERE id = 'write-done';"})
}

// copilotAssertEnded checks a run ended normally after the whole script.
func copilotAssertEnded(t *testing.T, api *fakeapi.Server, r copilotResult, final string, mainRequests int) {
	t.Helper()
	assert.Equal(t, 0, r.ExitCode, "exit code; stderr: %s", r.Stderr)
	assert.Contains(t, r.Stdout, final)
	assert.False(t, api.Exhausted(), "the agent was kept going beyond the script")
	assert.Len(t, api.Of("main"), mainRequests)
}

// (a) Copilot's plan: the agent writes todos into session.db with its sql
// tool and stops with them open; donegate's stop-hook, registered as the
// docs say, holds it with the open todos, and lets it go once its sql
// tool marked them done.
func TestCopilotPlanHoldsTheAgentUntilItsTodosAreDone(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		copilotTodos(),
		fakeapi.Say("I stop early."),
		fakeapi.Call("sql", map[string]any{"description": "Finish todos", "query": "UPDATE todos SET status = 'done';"}),
		fakeapi.Say("All done."),
	)
	s := newCopilotSession(t, api)
	s.config(`{"checkers":[{"type":"plan"}]}`)
	s.useDonegate()
	r := s.run("Write DONE.txt and report", false)

	fb := mainTurn(t, api, 2)
	assert.Contains(t, fb, "You have 2 incomplete task(s) out of 2. Please either complete all remaining tasks or update the plan with sql to remove tasks that are no longer needed before producing output: Writing DONE.txt, Reporting back")
	copilotAssertEnded(t, api, r, "All done.", 4)
}

// (b) The embedded default on a Go project with a failing test (no
// config at all): held with the failure, let go after the fix.
func TestCopilotDefaultHoldsAGoProjectUntilItsTestsPass(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	api := fakeapi.New()
	s := newCopilotSession(t, api)
	files := map[string]string{
		"go.mod":       "module example.com/calc\n\ngo 1.21\n",
		"calc.go":      "package calc\n\n// Add returns a plus b.\nfunc Add(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
	}
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(s.Project, name), []byte(content), 0o644))
	}
	api = fakeapi.New(
		fakeapi.Say("Done."),
		fakeapi.Call("edit", map[string]any{"path": filepath.Join(s.Project, "calc.go"), "old_str": "return a - b", "new_str": "return a + b"}),
		fakeapi.Say("Fixed: Add adds."),
	)
	s.API = api
	t.Cleanup(api.Close)
	// The developer's build cache keeps the hook's go test quick; no
	// toolchain is ever fetched.
	cache, err := exec.Command("go", "env", "GOCACHE").Output()
	require.NoError(t, err)
	s.Env = []string{"GOCACHE=" + strings.TrimSpace(string(cache)), "GOTOOLCHAIN=local", "GOFLAGS=", "GOPATH=" + filepath.Join(s.Home, "go")}
	s.useDonegate() // and no config
	r := s.run("Make Add correct", false)

	fb := mainTurn(t, api, 1)
	assert.Contains(t, fb, "The test command `go test ./...` failed with exit code 1.")
	assert.Contains(t, fb, "Add(2, 3) = -1, want 5")
	copilotAssertEnded(t, api, r, "Fixed: Add adds.", 3)
	for _, name := range []string{".donegate.json", ".claude"} {
		_, err = os.Stat(filepath.Join(s.Project, name))
		assert.ErrorIs(t, err, os.ErrNotExist, "no config was written: %s", name)
	}
}

// (c) An agent that never finishes is let go after limits.max_blocks
// continuations — donegate's count, below Copilot's own cap of 8
// consecutive blocks — and closer explain --last says why (Copilot shows
// a systemMessage nowhere).
func TestCopilotLetsGoAfterMaxBlocks(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		fakeapi.Say("Stop 1."),
		fakeapi.Say("Stop 2."),
		fakeapi.Call("bash", map[string]any{"command": "echo still working", "description": "Work a little"}),
		fakeapi.Say("Stop 3."),
		fakeapi.Say("Stop 4."),
	)
	s := newCopilotSession(t, api)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":3}}`)
	s.useDonegate()
	r := s.run("Never finish", false)

	for _, turn := range []int{1, 2, 4} {
		assert.Contains(t, mainTurn(t, api, turn), "Missing required files: never.txt", "main turn %d", turn)
	}
	copilotAssertEnded(t, api, r, "Stop 4.", 5)

	c := (&session{t: t, API: api, Home: s.Home, Project: s.Project}).closer(time.Minute, "explain", "--last", "--json")
	require.Equal(t, 0, c.Code, "the hook let the agent stop; stderr: %s", c.Stderr)
	var rep struct{ Session, Event, Why string }
	require.NoError(t, json.Unmarshal([]byte(c.Stdout), &rep), c.Stdout)
	assert.Equal(t, filepath.Base(s.sessionDir()), rep.Session)
	assert.Equal(t, "Stop", rep.Event)
	assert.Equal(t, "let through: max_blocks (3) spent (still incomplete after 3 continuations)", rep.Why)
}

// A subagent (Copilot's task tool) is held at its subagentStop until its
// own work is done, and continued by Copilot; the agentStop Copilot runs
// for the subagent just before is neither checked nor counted (a block
// there is ignored).
func TestCopilotHoldsASubagentAtSubagentStop(t *testing.T) {
	t.Parallel()
	api := fakeapi.New(
		fakeapi.Call("task", map[string]any{"name": "writer", "description": "Write sub.txt", "prompt": "SUBAGENT: write sub.txt", "agent_type": "general-purpose", "mode": "sync"}),
		fakeapi.Say("Main done."),
	)
	s := newCopilotSession(t, api)
	api.WithSubagent("SUBAGENT:",
		fakeapi.Say("Subagent finished."),
		fakeapi.Call("create", map[string]any{"path": filepath.Join(s.Project, "sub.txt"), "file_text": "done\n"}),
		fakeapi.Say("Subagent finished twice."),
	)
	s.config(`{"checkers":[{"type":"files","paths":["sub.txt"],"on":["subagent_stop"]}]}`)
	s.useDonegate()
	r := s.run("Have a subagent write sub.txt", false)

	sub := api.Of("subagent")
	require.Len(t, sub, 3, "held once, then done")
	assert.Contains(t, sub[1].LastUserText(), "Missing required files: sub.txt")
	copilotAssertEnded(t, api, r, "Main done.", 2)
	assert.FileExists(t, filepath.Join(s.Project, "sub.txt"))
}

// TestCopilotGuardRefusesTheAgentsCalls: with the hooks closer init
// --host copilot writes, the real Copilot CLI's agent tries to loosen its
// gate: closer release through bash (denied before it runs) and a create
// of .github/hooks/donegate.json, where donegate's hooks are (asked of the
// person: copilot -p denies it, "unable to ask user for confirmation").
// Both are refused, and the stop after the tries still holds.
func TestCopilotGuardRefusesTheAgentsCalls(t *testing.T) {
	t.Parallel()
	hooks := filepath.Join(".github", "hooks", "donegate.json")
	api := fakeapi.New(
		fakeapi.Call("bash", map[string]any{"command": "echo draft > work.txt", "description": "draft"}),
		fakeapi.Call("bash", map[string]any{"command": closerBinary(t) + " release", "description": "release"}),
		fakeapi.Call("create", map[string]any{"path": hooks, "file_text": "{}"}),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
		fakeapi.Say("Done."),
	)
	s := newCopilotSession(t, api)
	closerInit(t, "copilot", s.Project, s.Home)
	s.config(`{"checkers":[{"type":"files","paths":["never.txt"]}],"limits":{"max_blocks":2}}`)
	r := s.run("Do it", false)
	require.Equal(t, 0, r.ExitCode, r.Stderr)

	main := api.Of("main")
	require.GreaterOrEqual(t, len(main), 5, "stdout: %s\nstderr: %s", r.Stdout, r.Stderr)
	assert.Contains(t, main[2].TailText(), "Denied by preToolUse hook: donegate refuses this call: `closer release` is the person's command, not yours")
	assert.Contains(t, main[3].TailText(), "Denied by preToolUse hook (unable to ask user for confirmation): This call changes the project's host settings ("+filepath.Join(s.Project, hooks)+")")
	data, err := os.ReadFile(filepath.Join(s.Project, hooks))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"agentStop"`, "the write was refused")
	assert.Contains(t, main[4].TailText(), "Missing required files: never.txt", "still held after the tries")
}

// TestCopilotTUIHasNoMidTurnRoute measures the person's route in Copilot
// CLI's terminal (tmux): a message typed while the agent works joins the
// conversation at once (the screen shows it, and the model answers it)
// but fires no userPromptSubmitted, nor does any later hook carry it. No
// message can release a turn there, so the person's route on Copilot is
// closer release in a terminal of their own (docs/hosts.md). A Copilot
// that hands the message to its prompt hook fails this, and the phrase
// can be built.
func TestCopilotTUIHasNoMidTurnRoute(t *testing.T) {
	t.Parallel()
	needDebianTool(t, "tmux")
	s := newCopilotSession(t, fakeapi.New(
		fakeapi.Call("bash", map[string]any{"command": "sleep 6; echo done > job.txt", "description": "slow"}),
		fakeapi.Say("Done."), fakeapi.Say("Fine."), fakeapi.Say("Third."),
	))
	events := filepath.Join(t.TempDir(), "events")
	rec := recorder(t, events)
	s.hook("donegate", "userPromptSubmitted", rec+" "+filepath.Join(hookBinaries(t), "stop-hook")+" --criteria")
	s.hook("donegate", "agentStop", rec+" "+filepath.Join(hookBinaries(t), "stop-hook"))
	s.config(`{"checkers":[{"type":"files","paths":[".donegate.json"]}]}`)
	s.writeHooks()
	state := filepath.Join(s.Home, "donegate-state")
	allowProject(t, s.Home, state, s.Project)
	env := []string{"PATH=" + hookBinaries(t) + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + s.Home, "TMPDIR=" + t.TempDir(), "LANG=C.UTF-8", "TERM=xterm-256color",
		"COPILOT_OFFLINE=true", "COPILOT_AUTO_UPDATE=false", "COPILOT_PROVIDER_TYPE=anthropic", "COPILOT_PROVIDER_BASE_URL=" + s.API.URL(),
		"COPILOT_PROVIDER_API_KEY=fake-key-for-tests", "COPILOT_MODEL=claude-sonnet-4.5", "COPILOT_ALLOW_ALL=true", "DONEGATE_STATE_DIR=" + state}
	term := newTerminal(t, "donegate-copilot-"+filepath.Base(s.Home), s.Project, env, copilotBinary(t))
	term.waitFor("the prompt", func() bool { return strings.Contains(term.screen(), "Interactive") })
	time.Sleep(3 * time.Second)
	term.typeLine("Run the slow job")
	term.waitFor("the slow command", func() bool { return len(s.API.Requests()) >= 1 && strings.Contains(term.screen(), "sleep 6") })
	time.Sleep(time.Second)
	term.typeLine("donegate release")
	term.waitFor("the typed message in the conversation, answered", func() bool {
		screen := term.screen()
		i := strings.Index(screen, "❯ donegate release")
		return i >= 0 && strings.Contains(screen[i:], "Done.")
	})
	term.waitFor("the command's end", func() bool { return strings.Contains(term.screen(), "completed") })
	time.Sleep(3 * time.Second)

	recorded := clientEvents(t, events)
	var prompts []any
	for _, e := range recorded {
		if p, ok := e.Fields["prompt"]; ok {
			prompts = append(prompts, p)
		}
		assert.NotContains(t, string(e.Raw), "donegate release", "no hook carries the typed message")
	}
	require.NotEmpty(t, prompts)
	assert.Equal(t, "Run the slow job", prompts[0])
}
