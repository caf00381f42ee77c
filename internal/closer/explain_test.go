package closer

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/gate"
	"github.com/donegate/donegate/internal/lastevent"
	"github.com/donegate/donegate/internal/testsupport/consenttest"
)

// explainEnv is what explain and the hook see: the same variables.
type explainEnv struct {
	vars     map[string]string
	stateDir string
}

func newExplainEnv(t *testing.T, vars map[string]string) explainEnv {
	t.Helper()
	e := explainEnv{vars: map[string]string{"HOME": t.TempDir()}, stateDir: filepath.Join(t.TempDir(), "state")}
	for k, v := range vars {
		e.vars[k] = v
	}
	e.vars["DONEGATE_STATE_DIR"] = e.stateDir
	return e
}

// explain runs closer explain --json on event and checks that it wrote
// nothing under the state dir.
func (e explainEnv) explain(t *testing.T, event []byte, args ...string) (int, explainReport) {
	t.Helper()
	before := tree(t, e.stateDir)
	env := testEnv(e.vars, false)
	env.Stdin = bytes.NewReader(event)
	var out, errOut bytes.Buffer
	code := Main(context.Background(), append([]string{"explain", "--json"}, args...), &out, &errOut, env)
	require.Contains(t, []int{ExitComplete, ExitIncomplete}, code, "stderr: %s", errOut.String())
	assert.Empty(t, errOut.String())
	assert.Equal(t, before, tree(t, e.stateDir), "explain wrote under the state dir")
	var rep explainReport
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	return code, rep
}

// hook runs the real hook on event and returns what it printed.
func (e explainEnv) hook(t *testing.T, hook string, event []byte, args ...string) (stdout, stderr string) {
	t.Helper()
	run := gate.StopHook
	if hook == gate.ToolHookName {
		run = gate.ToolHook
	}
	var out, errOut bytes.Buffer
	env := gate.Env{Getenv: func(k string) string { return e.vars[k] }, Now: time.Now}
	code := run(context.Background(), args, bytes.NewReader(event), &out, &errOut, env)
	require.Equal(t, gate.ExitOK, code, errOut.String())
	return out.String(), errOut.String()
}

// same runs explain, then the hook, on event and asserts that explain
// said what the hook then printed, on stdout and on stderr.
func (e explainEnv) same(t *testing.T, event []byte, args ...string) explainReport {
	t.Helper()
	code, rep := e.explain(t, event, args...)
	hookArgs := args
	if gate.CriteriaEvent(rep.Event) {
		hookArgs = append([]string{"--criteria"}, args...)
	}
	stdout, stderr := e.hook(t, rep.Hook, event, hookArgs...)
	assert.JSONEq(t, stdout, string(rep.Answer))
	assert.Equal(t, lines(stderr), rep.Stderr)
	assert.Equal(t, rep.Decision.Block, code == ExitIncomplete, "exit code")
	return rep
}

// tree maps every file under dir to its content; nil when there is no dir.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return nil
	}
	m := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		m[p] = string(data)
		return err
	}))
	return m
}

// recordedEvent reads testdata/events/name with $CLAUDE_DIR filled in,
// as scripts/demo does.
func recordedEvent(t *testing.T, name string) []byte {
	t.Helper()
	claude, err := filepath.Abs(filepath.Join("..", "..", "testdata", "claude"))
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "events", name))
	require.NoError(t, err)
	return bytes.ReplaceAll(data, []byte("$CLAUDE_DIR"), []byte(jsonText(claude)))
}

// Every recorded event, stopped again and again until the block limit is
// spent: at each stop explain says what the hook then answers, and why.
func TestExplainRecordedEvents(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "events", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	wantWhy := map[string][]string{
		"stop-plan-open.json": {
			"blocked: 1 of 5 continuations used", "blocked: 2 of 5 continuations used", "blocked: 3 of 5 continuations used",
			"blocked: 4 of 5 continuations used", "blocked: 5 of 5 continuations used",
			"let through: max_blocks (5) spent (still incomplete after 5 continuations)",
			"let through: max_blocks (5) spent (still incomplete after 5 continuations)",
		},
		"stop-plan-done.json":                       {"complete", "complete"},
		"stop-no-plan.json":                         {"complete"},
		"pretooluse-bash.json":                      {"not gated: tool Bash"},
		"posttooluse-bash.json":                     {"not gated: tool Bash"},
		"pretooluse-structuredoutput-done.json":     {"complete"},
		"pretooluse-structuredoutput-open.json":     {"blocked: 1 of 5 continuations used", "blocked: 2 of 5 continuations used"},
		"posttooluse-structuredoutput-open.json":    {"blocked: 1 of 5 continuations used"},
		"stop-tasks-open.json":                      {"blocked: 1 of 5 continuations used"},
		"subagentstop-open.json":                    {"blocked: 1 of 5 continuations used"},
		"sessionstart-startup.json":                 {"criteria told up front, nothing checked", "criteria told up front, nothing checked"},
		"userpromptsubmit.json":                     {"criteria told up front, nothing checked"},
		"(every file in testdata/events is listed)": nil,
	}
	for _, f := range files {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			want, ok := wantWhy[name]
			require.True(t, ok, "add %s to wantWhy", name)
			e := newExplainEnv(t, nil)
			event := recordedEvent(t, name)
			for i, w := range want {
				rep := e.same(t, event)
				assert.Equal(t, w, rep.Why, "stop %d", i+1)
				if rep.Decision.Kind == string(gate.KindNotGated) {
					assert.Empty(t, rep.Checkers)
					continue
				}
				if rep.Decision.Kind == string(gate.KindCriteria) {
					assert.Empty(t, rep.Checkers, "--criteria runs no checker")
					assert.Equal(t, checkers.Criteria(config.Default(), rep.ProjectDir), rep.Criteria)
					continue
				}
				if strings.HasPrefix(name, "subagentstop") {
					// The test checker checks the project, not one agent.
					assert.Equal(t, []string{"plan"}, labels(rep))
				} else {
					assert.Equal(t, []string{"plan", "test"}, labels(rep), "the default chain")
					// The recorded project dir does not exist here: no test
					// command is detected, and the test checker passes.
					assert.True(t, rep.Checkers[1].Complete, "%+v", rep.Checkers[1])
				}
				assert.True(t, rep.Checkers[0].ByHook)
				assert.Equal(t, !rep.Checkers[0].Complete, rep.Checkers[0].Reported)
			}
		})
	}
}

// writeConfig writes a config file outside any project and returns it.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "donegate.json")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func stopEvent(cwd string) []byte {
	return []byte(`{"session_id":"s1","transcript_path":"` + jsonText(filepath.Join(cwd, "none.jsonl")) + `","cwd":"` + jsonText(cwd) + `","prompt_id":"p1","hook_event_name":"Stop"}`)
}

// jsonText is s as it stands between the quotes of a JSON string: a
// Windows path's backslashes escaped.
func jsonText(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b[1 : len(b)-1])
}

func TestExplainDecisions(t *testing.T) {
	tests := []struct {
		name   string
		config string
		stops  int // explain and hook this many times; the last is checked
		event  func(dir string) []byte
		// want
		why      string
		checkers []explainChecker // TookMS and Feedback not compared
	}{
		{
			name:   "the chain stops at the first open checker; explain runs the rest",
			config: `{"checkers":[{"type":"files","name":"report","paths":["report.md"]},{"type":"test","name":"unit","command":"exit 3","cache":false},{"type":"plan"}]}`,
			stops:  1, event: stopEvent,
			why: "blocked: 1 of 5 continuations used",
			checkers: []explainChecker{
				{Label: "report", Reported: true, ByHook: true},
				{Label: "unit"},
				{Label: "plan", Complete: true},
			},
		},
		{
			name:   "complete",
			config: `{"checkers":[{"type":"plan"},{"type":"files","paths":["."]}]}`,
			stops:  1, event: stopEvent,
			why: "complete",
			checkers: []explainChecker{
				{Label: "plan", Complete: true, ByHook: true},
				{Label: "files", Complete: true, ByHook: true},
			},
		},
		{
			name:   "max_blocks spent",
			config: `{"checkers":[{"type":"files","paths":["report.md"]}],"limits":{"max_blocks":2}}`,
			stops:  3, event: stopEvent,
			why:      "let through: max_blocks (2) spent (still incomplete after 2 continuations)",
			checkers: []explainChecker{{Label: "files", Reported: true, ByHook: true}},
		},
		{
			name:   "config broken, on_error allow",
			config: `{"checkers":[{"type":"test","comand":"true"}]}`,
			stops:  1, event: stopEvent,
			why: "config broken, on_error allow",
		},
		{
			name:   "config broken, on_error block",
			config: `{"checkers":[{"type":"test","comand":"true"}],"on_error":"block"}`,
			stops:  2, event: stopEvent,
			why: "config broken, on_error block; blocked: 2 of 5 continuations used",
		},
		{
			name:   "a checker that cannot run, on_error allow",
			config: `{"checkers":[{"type":"git-clean"}]}`,
			stops:  1, event: stopEvent,
			why:      "a checker could not run, on_error allow: checker 1 (git-clean): ",
			checkers: []explainChecker{{Label: "git-clean", Reported: true, ByHook: true}},
		},
		{
			name:   "an ungated tool, with a config file",
			config: `{"checkers":[{"type":"files","paths":["report.md"]}]}`,
			stops:  1,
			event: func(dir string) []byte {
				return []byte(`{"session_id":"s1","transcript_path":"` + jsonText(filepath.Join(dir, "none.jsonl")) + `","cwd":"` + jsonText(dir) + `","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`)
			},
			why: "not gated: tool Bash",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			e := newExplainEnv(t, map[string]string{"DONEGATE_CONFIG": writeConfig(t, tt.config)})
			if !strings.HasPrefix(tt.why, "config broken") {
				// The person allowed the project: its commands run.
				consenttest.Allow(t, e.stateDir, dir, e.vars["DONEGATE_CONFIG"])
			}
			var rep explainReport
			for range tt.stops {
				rep = e.same(t, tt.event(dir))
			}
			if strings.HasSuffix(tt.why, ": ") {
				assert.True(t, strings.HasPrefix(rep.Why, tt.why), rep.Why)
			} else {
				assert.Equal(t, tt.why, rep.Why)
			}
			got := make([]explainChecker, len(rep.Checkers))
			for i, c := range rep.Checkers {
				got[i] = explainChecker{Label: c.Label, Complete: c.Complete, Cached: c.Cached, ByHook: c.ByHook, Reported: c.Reported}
			}
			if tt.checkers == nil {
				tt.checkers = []explainChecker{}
			}
			assert.Equal(t, tt.checkers, got)
		})
	}
}

// A result the hook cached is shown as cached, and explain adds none to
// the cache itself.
func TestExplainCachedResult(t *testing.T) {
	repo, _ := newRepo(t)
	e := newExplainEnv(t, map[string]string{"DONEGATE_CONFIG": writeConfig(t, `{"checkers":[{"type":"test","name":"unit","command":"echo ran; exit 1"}]}`)})
	consenttest.Allow(t, e.stateDir, repo, e.vars["DONEGATE_CONFIG"])
	event := stopEvent(repo)

	rep := e.same(t, event) // explain first: it must not fill the cache
	require.Len(t, rep.Checkers, 1)
	assert.False(t, rep.Checkers[0].Cached)
	assert.Equal(t, "blocked: 1 of 5 continuations used", rep.Why)

	rep = e.same(t, event) // the hook of the first round cached its result
	require.Len(t, rep.Checkers, 1)
	assert.True(t, rep.Checkers[0].Cached)
	assert.Contains(t, rep.Checkers[0].Feedback, "donegate reused the result")
	assert.Equal(t, "blocked: 2 of 5 continuations used; reused from the result cache: unit", rep.Why)
}

// --dir replaces the hook's project dir, for the config lookup and the
// checkers alike.
func TestExplainDir(t *testing.T) {
	proj := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(proj, ".claude"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proj, ".claude", "donegate.json"), []byte(`{"checkers":[{"type":"files","paths":["here.txt"]}]}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "here.txt"), nil, 0o644))
	e := newExplainEnv(t, nil)
	event := stopEvent(t.TempDir()) // the event's cwd has no config

	_, rep := e.explain(t, event)
	assert.Equal(t, "", rep.Config)
	assert.Equal(t, []string{"plan", "test"}, labels(rep))

	_, rep = e.explain(t, event, "--dir", proj)
	assert.Equal(t, filepath.Join(proj, ".claude", "donegate.json"), rep.Config)
	assert.Equal(t, proj, rep.ProjectDir)
	assert.Equal(t, []string{"files"}, labels(rep))
	assert.Equal(t, "complete", rep.Why)
}

func labels(rep explainReport) []string {
	var out []string
	for _, c := range rep.Checkers {
		out = append(out, c.Label)
	}
	return out
}

func TestExplainUsage(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		event   string
		wantErr string
	}{
		{"no event", nil, "", "closer explain: event: "},
		{"an event no hook answers", nil, `{"session_id":"s","hook_event_name":"Notification"}`,
			`no donegate hook answers a "Notification" event; give --hook stop-hook or posttooluse-hook`},
		{"the wrong hook", []string{"--hook", "stop-hook"}, `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash"}`,
			"stop-hook would answer nothing and exit 1: got a PreToolUse event; register stop-hook for Stop and SubagentStop only"},
		{"an unknown hook", []string{"--hook", "pre-hook"}, `{}`, `--hook "pre-hook": want stop-hook or posttooluse-hook`},
		{"a bad dialect", []string{"--dialect", "x"}, `{}`, `--dialect: unknown dialect "x"`},
		{"a missing event file", []string{"--event", "/nonexistent/e.json"}, ``, "--event: open /nonexistent/e.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv(map[string]string{"HOME": t.TempDir(), "DONEGATE_STATE_DIR": t.TempDir()}, false)
			env.Stdin = strings.NewReader(tt.event)
			var out, errOut bytes.Buffer
			code := Main(context.Background(), append([]string{"explain"}, tt.args...), &out, &errOut, env)
			assert.Equal(t, ExitUsage, code)
			assert.Contains(t, errOut.String(), tt.wantErr)
			assert.Empty(t, out.String())
		})
	}
}

// git-commits records its baseline in the state dir at a prompt's first
// stop: explain works it out as the hook would and records none.
func TestExplainGitCommitsBaseline(t *testing.T) {
	repo, _ := newRepo(t)
	e := newExplainEnv(t, map[string]string{"DONEGATE_CONFIG": writeConfig(t, `{"checkers":[{"type":"git-commits"}]}`)})
	event := stopEvent(repo)

	rep := e.same(t, event)
	assert.Equal(t, "blocked: 1 of 5 continuations used", rep.Why)
	require.NoError(t, os.WriteFile(filepath.Join(repo, "new"), []byte("x\n"), 0o644))
	gitT(t, repo, "add", "new")
	gitT(t, repo, "commit", "-q", "-m", "new")
	rep = e.same(t, event) // from the baseline the hook recorded
	assert.Equal(t, "complete", rep.Why)
}

// TestExplainLast: the hooks keep each session's last event, and explain
// --last (or --session ID) replays it: the user's way to see what
// happened at a real stop (issue 20).
func TestExplainLast(t *testing.T) {
	e := newExplainEnv(t, nil)
	// No hook ran yet: a usage error that says where it looked.
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{"explain", "--last"}, &out, &errOut, testEnv(e.vars, false))
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut.String(), "no event recorded")

	open := recordedEvent(t, "stop-plan-open.json")
	var doneEv map[string]any
	require.NoError(t, json.Unmarshal(recordedEvent(t, "stop-plan-done.json"), &doneEv))
	doneEv["session_id"] = "other"
	done, err := json.Marshal(doneEv)
	require.NoError(t, err)
	e.hook(t, gate.StopHookName, done)
	e.hook(t, gate.StopHookName, open)
	// The event kept last wins, whatever its record's name, and however
	// recently the other's record was written.
	later := time.Now().Add(time.Minute)
	var openID struct {
		SessionID string `json:"session_id"`
	}
	require.NoError(t, json.Unmarshal(open, &openID))
	rec, err := lastevent.Load(e.stateDir, "other")
	require.NoError(t, err)
	require.NoError(t, os.Chtimes(rec.Path, later, later))

	_, rep := e.explain(t, nil, "--last")
	assert.Equal(t, openID.SessionID, rep.Session)
	assert.Equal(t, "blocked: 2 of 5 continuations used", rep.Why, "the stop after the one recorded")
	assert.Len(t, rep.Warnings, 1, "the recorded cwd, /home/user/project, is not here: %v", rep.Warnings)

	_, rep = e.explain(t, nil, "--session", "other")
	assert.Equal(t, "complete", rep.Why)

	code = Main(context.Background(), []string{"explain", "--last", "--event", "x"}, &out, &errOut, testEnv(e.vars, false))
	assert.Equal(t, ExitUsage, code)
}

// TestExplainWarnsOfMissingFiles: an event whose transcript and cwd are
// not here (testdata/events as committed, with $CLAUDE_DIR unexpanded)
// is explained with a warning, not as a plain "complete" (issue 20).
func TestExplainWarnsOfMissingFiles(t *testing.T) {
	e := newExplainEnv(t, nil)
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "events", "stop-plan-open.json"))
	require.NoError(t, err)
	_, rep := e.explain(t, raw)
	require.Len(t, rep.Warnings, 2, rep.Warnings)
	assert.Contains(t, rep.Warnings[0], "transcript $CLAUDE_DIR/")
	assert.Contains(t, rep.Warnings[0], "does not exist")
	assert.Contains(t, rep.Warnings[1], "cwd ")

	code, out, _ := run(t, "explain", "--event", filepath.Join("..", "..", "testdata", "events", "stop-plan-open.json"))
	assert.Equal(t, ExitComplete, code)
	assert.Contains(t, out, "warning: transcript $CLAUDE_DIR/")
}
