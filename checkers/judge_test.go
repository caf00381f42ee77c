package checkers_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/judge"
	"github.com/donegate/donegate/internal/testsupport/proctest"
)

// judgeResult is the real CLI's recorded `claude -p --json-schema` result
// (closer's fixture, checked against the CLI by
// e2e.TestCloserFixturesAreTheRealCLIsOutput) with fields replaced.
func judgeResult(t *testing.T, set map[string]any) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "internal", "closer", "testdata", "claude", "result-structured.json"))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	for k, v := range set {
		m[k] = v
	}
	out, err := json.Marshal(m)
	require.NoError(t, err)
	return string(out)
}

func judgeItem(id, criterion string, done bool, evidence string) map[string]any {
	return map[string]any{"id": id, "description": criterion, "completed": done, "evidence": evidence}
}

func judgeAnswer(all bool, summary string, pending []string, items ...map[string]any) map[string]any {
	return map[string]any{"checklist": items, "allComplete": all, "summary": summary, "pendingActions": pending}
}

// fakeJudge is a project with work in it and the fake claude
// (testdata/judge/claude) answering calls in order from calls ("1.json",
// "2.sh", "last.json"). It returns the checker context and the fake's dir,
// where each call's arguments are (n.args).
func fakeJudge(t *testing.T, calls map[string]string) (*checkers.Context, string) {
	t.Helper()
	repo := gitRepo(t, map[string]string{"a.go": "package a\n"})
	writeFile(t, repo, "a.go", "package a\n\nfunc A() {}\n")
	writeFile(t, repo, "b.go", "package a\n")
	fake := t.TempDir()
	for name, content := range calls {
		writeFile(t, fake, name, content)
	}
	return &checkers.Context{
		Event:      &hookio.Event{SessionID: "s1", PromptID: "p1", TranscriptPath: filepath.Join(repo, "none.jsonl")},
		ProjectDir: repo, Getenv: claudeEnv(t.TempDir(), ""), Budget: time.Minute, StateDir: t.TempDir(),
		Env: []string{"FAKE_CLAUDE_DIR=" + fake},
	}, fake
}

func fakeClaudeBin(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("testdata", "judge", "claude"))
	require.NoError(t, err)
	return bin
}

func judgeCalls(t *testing.T, fake string) int {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fake, "count"))
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	return n
}

func judgeArgs(t *testing.T, fake string, n int) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fake, strconv.Itoa(n)+".args"))
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
}

const judgeCriteria = "1. `A` is exported\n2. `A` is documented"

func TestJudgeChecker(t *testing.T) {
	done, open := judgeItem("1", "`A` is exported", true, "a.go declares func A"), judgeItem("2", "`A` is documented", false, "A has no doc comment")
	tests := []struct {
		name     string
		call     string // the fake's answer, 1.json; 1.sh when script is set
		script   bool
		timeout  time.Duration
		want     bool
		feedback []string // parts of the feedback, in order
		open     []checkers.JudgeCriterion
	}{
		{name: "every criterion met", call: judgeResult(t, map[string]any{"structured_output": judgeAnswer(true, "Done.", nil, done, judgeItem("2", "`A` is documented", true, "// A does a."))}),
			want: true, feedback: []string{"An LLM judge found every completion criterion met: Done."}},
		{name: "a criterion not met, with the judge's reasons", call: judgeResult(t, map[string]any{"structured_output": judgeAnswer(false, "A lacks its doc comment.", []string{"Document A."}, done, open)}),
			feedback: []string{"An LLM judge found 1 of 2 completion criteria not met. Do this, then finish again:\n- Document A.\n\nNot met, with the judge's reasons:\n- `A` is documented: A has no doc comment\n\nThe judge's summary: A lacks its doc comment."},
			open:     []checkers.JudgeCriterion{{ID: "2", Criterion: "`A` is documented", Reason: "A has no doc comment"}}},
		{name: "all complete with a criterion open is not complete", call: judgeResult(t, map[string]any{"structured_output": judgeAnswer(true, "Fine.", nil, done, open)}),
			feedback: []string{"1 of 2 completion criteria not met", "- `A` is documented\n", "Note: the judge said all complete, but item(s) 2 are not."},
			open:     []checkers.JudgeCriterion{{ID: "2", Criterion: "`A` is documented", Reason: "A has no doc comment"}}},
		{name: "no structured output: the JSON in its text", call: judgeResult(t, map[string]any{"structured_output": nil, "result": "Verdict:\n```json\n" + `{"checklist":[{"id":"1","description":"d","completed":true,"evidence":"e"},{"id":"2","description":"d","completed":true,"evidence":"e"}],"allComplete":true,"summary":"ok","pendingActions":[]}` + "\n```"}),
			want: true, feedback: []string{"every completion criterion met: ok"}},
		{name: "a criterion left out", call: judgeResult(t, map[string]any{"structured_output": judgeAnswer(true, "Done.", nil, done)}),
			feedback: []string{"An LLM judge found 1 of 2 completion criteria not met. Do this, then finish again:\n- `A` is documented\n\nNot met, with the judge's reasons:\n- `A` is documented: the judge gave no checklist item for this criterion\n",
				"Note: the judge gave no checklist item for criterion 2."},
			open: []checkers.JudgeCriterion{{ID: "2", Criterion: "`A` is documented", Reason: "the judge gave no checklist item for this criterion"}}},
		{name: "one completed item about something else entirely", call: judgeResult(t, map[string]any{"structured_output": judgeAnswer(true, "Done.", nil, judgeItem("x", "something else entirely", true, "it is"))}),
			feedback: []string{"An LLM judge found 2 of 2 completion criteria not met.", "- `A` is exported: the judge gave no checklist item for this criterion\n- `A` is documented: the judge gave no checklist item for this criterion\n",
				`Note: the judge gave no checklist item for criteria 1, 2; completed item(s) ["x"] answer no criterion and were left out.`},
			open: []checkers.JudgeCriterion{{ID: "1", Criterion: "`A` is exported", Reason: "the judge gave no checklist item for this criterion"}, {ID: "2", Criterion: "`A` is documented", Reason: "the judge gave no checklist item for this criterion"}}},
		{name: "malformed answer", call: judgeResult(t, map[string]any{"structured_output": map[string]any{"checklist": []any{map[string]any{"description": "d"}}, "summary": "s"}}),
			feedback: []string{"Check your work against the completion criteria below yourself", "The judge gave no verdict: the judge's answer cannot be used: answer is malformed: checklist[0].id is required; checklist[0].completed is required.\n\nCompletion criteria:\n" + judgeCriteria}},
		{name: "garbage", call: "echo 'Welcome to claude!'", script: true,
			feedback: []string{`The judge gave no verdict: CLAUDE printed no JSON result: output "Welcome to claude!" is not a result object.`}},
		{name: "non-zero exit", call: "echo 'Error: Invalid API key' >&2; exit 1", script: true,
			feedback: []string{"no verdict: CLAUDE exited with code 1: Error: Invalid API key."}},
		{name: "is_error", call: judgeResult(t, map[string]any{"is_error": true, "subtype": "error_max_turns", "result": "max turns"}),
			feedback: []string{"no verdict: CLAUDE reported an error (error_max_turns): max turns."}},
		{name: "timeout", call: "sleep 30", script: true, timeout: 300 * time.Millisecond,
			feedback: []string{"no verdict: CLAUDE timed out after 300ms and was stopped with its process group."}},
	}
	bin := fakeClaudeBin(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "1.json"
			if tt.script {
				name = "1.sh"
			}
			c, fake := fakeJudge(t, map[string]string{name: tt.call})
			ch := typedChecker(t, "judge", &checkers.JudgeOptions{Criteria: judgeCriteria, Model: "haiku", Claude: bin, Timeout: config.Duration(tt.timeout)})
			r, err := ch.Check(context.Background(), c)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Complete, r.Feedback)
			at := 0
			for _, part := range tt.feedback {
				part = strings.ReplaceAll(part, "CLAUDE", bin)
				i := strings.Index(r.Feedback[at:], part)
				require.GreaterOrEqual(t, i, 0, "feedback %q\nlacks, in order, %q", r.Feedback, part)
				at += i + len(part)
			}
			if !tt.want {
				assert.Equal(t, "judge-incomplete", r.Pattern)
				if tt.open != nil {
					assert.Equal(t, tt.open, r.Params["Open"])
				}
			}

			// What the judge was asked, and how.
			require.Equal(t, 1, judgeCalls(t, fake))
			args := judgeArgs(t, fake, 1)
			assert.Equal(t, []string{"--output-format", "json", "--json-schema", judge.Schema, "--settings", judge.NoHooks, "--model", "haiku"}, args[2:])
			prompt := args[1]
			assert.Contains(t, prompt, "## Completion criteria\n\n"+judgeCriteria+"\n\n## Changes\n\ngit diff --stat ")
			assert.Regexp(t, `\(the working tree against HEAD\):\n a.go \| 2 \+\+\n 1 file changed, 2 insertions\(\+\)\nUntracked files:\n b.go\n`, prompt)
			assert.Contains(t, prompt, "## The agent's plan\n\nThe agent made no plan.\n\n## Your answer")
			guard, err := os.ReadFile(filepath.Join(fake, "1.guard"))
			require.NoError(t, err)
			assert.Equal(t, "s1", string(guard), "the judge runs with the recursion guard")
		})
	}
}

// A judge that hangs is stopped at its timeout with everything it started.
func TestJudgeCheckerTimeoutKillsTheProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	c, _ := fakeJudge(t, map[string]string{"1.sh": "sleep 300 & echo $! > " + pidFile + "; wait"})
	ch := typedChecker(t, "judge", &checkers.JudgeOptions{Criteria: "x", Claude: fakeClaudeBin(t), Timeout: config.Duration(500 * time.Millisecond)})
	// The judge waits for its 300 s child: only the kill at its timeout
	// ends it within the minute.
	var r checkers.Result
	var err error
	proctest.WithinAMinute(t, func() { r, err = ch.Check(context.Background(), c) })
	require.NoError(t, err)
	assert.False(t, r.Complete)
	assert.Contains(t, r.Feedback, "timed out after 500ms and was stopped with its process group")
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return proctest.Gone(pid) }, 20*time.Second, 20*time.Millisecond, "the hung judge's child was killed")
}

// The hook's budget bounds the judge as its own timeout does: the run is
// given what is left of it.
func TestJudgeCheckerWithinTheBudget(t *testing.T) {
	c, _ := fakeJudge(t, map[string]string{"1.sh": "sleep 30"})
	c.Budget = 400 * time.Millisecond
	ch := typedChecker(t, "judge", &checkers.JudgeOptions{Criteria: "x", Claude: fakeClaudeBin(t)})
	ctx, cancel := context.WithTimeout(context.Background(), c.Budget)
	defer cancel()
	r, err := ch.Check(ctx, c)
	require.NoError(t, err)
	assert.False(t, r.Complete)
	assert.Equal(t, "judge-incomplete", r.Pattern)
	assert.Contains(t, r.Feedback, "The judge gave no verdict: it did not finish within the hook's time budget (limits.budget 400ms) and was stopped after")

	// No budget left at all: the judge is not even started.
	c2, fake := fakeJudge(t, map[string]string{"1.json": judgeResult(t, nil)})
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	r, err = ch.Check(done, c2)
	require.NoError(t, err)
	assert.False(t, r.Complete)
	assert.Contains(t, r.Feedback, "was spent before it could start")
	assert.Equal(t, 0, judgeCalls(t, fake))
}

// Verdicts are cached by the state of the tree and what the judge is
// told; a judge that gave no verdict is asked again.
func TestJudgeCheckerCache(t *testing.T) {
	no := judgeResult(t, map[string]any{"structured_output": judgeAnswer(false, "Not yet.", nil, judgeItem("1", "x", false, "no"))})
	yes := judgeResult(t, map[string]any{"structured_output": judgeAnswer(true, "Yes.", nil, judgeItem("1", "x", true, "yes"))})
	c, fake := fakeJudge(t, map[string]string{"1.sh": "echo garbage", "2.json": no, "last.json": yes})
	c.CacheDir = t.TempDir()
	bin := fakeClaudeBin(t)
	build := func(o checkers.JudgeOptions) checkers.Checker {
		o.Claude = bin
		return typedChecker(t, "judge", &o)
	}
	steps := []struct {
		name     string
		checker  checkers.Checker
		edit     string // a file written before the check
		calls    int
		complete bool
		reused   bool
		// noVerdict: the judge answered garbage
		noVerdict bool
	}{
		{name: "no verdict", checker: build(checkers.JudgeOptions{Criteria: "x"}), calls: 1, noVerdict: true},
		{name: "no verdict is not remembered", checker: build(checkers.JudgeOptions{Criteria: "x"}), calls: 2},
		{name: "a verdict is", checker: build(checkers.JudgeOptions{Criteria: "x"}), calls: 2, reused: true},
		{name: "other criteria", checker: build(checkers.JudgeOptions{Criteria: "y"}), calls: 3, complete: true},
		{name: "another model", checker: build(checkers.JudgeOptions{Criteria: "x", Model: "opus"}), calls: 4, complete: true},
		{name: "the tree changed", checker: build(checkers.JudgeOptions{Criteria: "x"}), edit: "c.go", calls: 5, complete: true},
		{name: "unchanged since", checker: build(checkers.JudgeOptions{Criteria: "x"}), calls: 5, complete: true, reused: true},
		{name: "cache off", checker: build(checkers.JudgeOptions{Criteria: "x", Cache: new(bool)}), calls: 6, complete: true},
	}
	for _, s := range steps {
		if s.edit != "" {
			writeFile(t, c.ProjectDir, s.edit, "package a\n")
		}
		// A new run, as each hook call is: a Context holds the run's look
		// at the tree.
		run := &checkers.Context{Event: c.Event, ProjectDir: c.ProjectDir, Getenv: c.Getenv, Budget: c.Budget,
			StateDir: c.StateDir, CacheDir: c.CacheDir, Env: c.Env}
		r, err := s.checker.Check(context.Background(), run)
		require.NoError(t, err, s.name)
		assert.Equal(t, s.complete, r.Complete, "%s: %s", s.name, r.Feedback)
		assert.Equal(t, s.calls, judgeCalls(t, fake), s.name)
		assert.Equal(t, s.reused, strings.Contains(r.Feedback, "donegate reused the result"), s.name)
		if s.noVerdict {
			assert.Contains(t, r.Feedback, "The judge gave no verdict: ", s.name)
			continue
		}
		if !r.Complete {
			assert.Equal(t, "judge-incomplete", r.Pattern, s.name)
			// A remembered verdict is worded again from its parameters.
			assert.Contains(t, r.Feedback, "Not met, with the judge's reasons:\n- x: no\n", s.name)
		}
	}
}

func TestJudgeCheckerCriteriaFile(t *testing.T) {
	c, fake := fakeJudge(t, map[string]string{"last.json": judgeResult(t, map[string]any{"structured_output": judgeAnswer(true, "ok", nil, judgeItem("1", "x", true, "y"))})})
	writeFile(t, c.ProjectDir, "docs/done.md", "- the API is versioned\n")
	ch := typedChecker(t, "judge", &checkers.JudgeOptions{CriteriaFile: "docs/done.md", Claude: fakeClaudeBin(t)})
	r, err := ch.Check(context.Background(), c)
	require.NoError(t, err)
	assert.True(t, r.Complete)
	assert.Contains(t, judgeArgs(t, fake, 1)[1], "## Completion criteria\n\n1. the API is versioned\n\n")

	for name, tt := range map[string]struct{ file, content, want string }{
		"missing": {"nope.md", "", "judge: criteria_file: open " + filepath.Join(c.ProjectDir, "nope.md") + ": no such file or directory"},
		"empty":   {"empty.md", " \n", "judge: criteria_file: " + filepath.Join(c.ProjectDir, "empty.md") + " is empty"},
	} {
		t.Run(name, func(t *testing.T) {
			if tt.content != "" {
				writeFile(t, c.ProjectDir, tt.file, tt.content)
			}
			_, err := typedChecker(t, "judge", &checkers.JudgeOptions{CriteriaFile: tt.file, Claude: fakeClaudeBin(t)}).Check(context.Background(), c)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

// A claude that is not there cannot judge: an error of the check, which
// on_error governs, naming what to set.
func TestJudgeCheckerWithoutClaude(t *testing.T) {
	c, _ := fakeJudge(t, nil)
	for _, bin := range []string{"no-such-claude-donegate", "/nonexistent/claude", "bin/claude"} {
		_, err := typedChecker(t, "judge", &checkers.JudgeOptions{Criteria: "x", Claude: bin}).Check(context.Background(), c)
		require.Error(t, err, bin)
		want := bin
		if bin == "bin/claude" {
			want = filepath.Join(c.ProjectDir, bin) // relative to the project dir
		}
		assert.Equal(t, `judge: claude: executable "`+want+`" not found (install Claude Code, or set the checker's "claude" to its path)`, err.Error())
	}
}

// The plan and the changes since the prompt began reach the judge.
func TestJudgeCheckerShowsThePlanAndTheSessionsChanges(t *testing.T) {
	c, fake := fakeJudge(t, map[string]string{"last.json": judgeResult(t, nil)})
	writeFile(t, filepath.Join(c.Getenv("CLAUDE_CONFIG_DIR"), "tasks", "s1"), "1.json", `{"id":"1","subject":"Export A","status":"completed"}`)
	writeFile(t, filepath.Join(c.Getenv("CLAUDE_CONFIG_DIR"), "tasks", "s1"), "2.json", `{"id":"2","subject":"Document A","status":"in_progress"}`)
	ch := typedChecker(t, "judge", &checkers.JudgeOptions{Criteria: "x", Claude: fakeClaudeBin(t), Cache: new(bool)})
	_, err := ch.Check(context.Background(), c)
	require.NoError(t, err)
	assert.Contains(t, judgeArgs(t, fake, 1)[1], "## The agent's plan\n\n- [completed] Export A\n- [in_progress] Document A\n\n")

	// The agent commits: the diff is still the prompt's, not HEAD's.
	base := gitIn(t, c.ProjectDir, "rev-parse", "HEAD")
	gitIn(t, c.ProjectDir, "add", "-A")
	gitIn(t, c.ProjectDir, "commit", "-q", "-m", "work")
	_, err = ch.Check(context.Background(), c)
	require.NoError(t, err)
	assert.Contains(t, judgeArgs(t, fake, 2)[1], "git diff --stat "+base[:12]+" (the working tree against where HEAD was when this prompt began):\n a.go | 2 ++\n b.go | 1 +\n 2 files changed, 3 insertions(+)\n")
}

func TestJudgeOptionsCheckOptions(t *testing.T) {
	tests := []struct {
		name string
		o    checkers.JudgeOptions
		want []config.Problem
	}{
		{name: "criteria", o: checkers.JudgeOptions{Criteria: "it works"}},
		{name: "criteria file", o: checkers.JudgeOptions{CriteriaFile: "DONE.md", Model: "haiku", Claude: "/opt/claude"}},
		{name: "neither", want: []config.Problem{{Path: "criteria", Message: "required: the completion criteria the judge checks, as text (or a file, with criteria_file)"}}},
		{name: "both", o: checkers.JudgeOptions{Criteria: "x", CriteriaFile: "y"}, want: []config.Problem{{Path: "criteria", Message: "give the criteria as text or as criteria_file, not both"}}},
		{name: "blank criteria", o: checkers.JudgeOptions{Criteria: " \n\t"}, want: []config.Problem{{Path: "criteria", Message: "must not be blank"}}},
		{name: "blank file", o: checkers.JudgeOptions{CriteriaFile: " "}, want: []config.Problem{{Path: "criteria_file", Message: "must not be blank"}}},
		{name: "model like an option", o: checkers.JudgeOptions{Criteria: "x", Model: "--dangerously-skip-permissions"}, want: []config.Problem{{Path: "model", Message: `"--dangerously-skip-permissions" is not a model name`}}},
		{name: "blank claude", o: checkers.JudgeOptions{Criteria: "x", Claude: " "}, want: []config.Problem{{Path: "claude", Message: "must not be blank; leave it out to use claude on PATH"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.o.CheckOptions())
		})
	}
}

func TestJudgeDescribe(t *testing.T) {
	long := strings.Repeat("é", 130) // cut between runes, at 120
	tests := []struct {
		o    checkers.JudgeOptions
		want string
	}{
		{checkers.JudgeOptions{Criteria: "The API is versioned"}, "an LLM judge agrees that: The API is versioned"},
		{checkers.JudgeOptions{Criteria: "\n1. The API is versioned\n2. Errors are logged\n\n- It is documented\n"}, "an LLM judge agrees that: The API is versioned (and 2 more criteria)"},
		{checkers.JudgeOptions{Criteria: "* one\n* two"}, "an LLM judge agrees that: one (and 1 more criterion)"},
		{checkers.JudgeOptions{Criteria: long}, "an LLM judge agrees that: " + strings.Repeat("é", 120) + "..."},
		{checkers.JudgeOptions{CriteriaFile: "docs/DONE.md"}, "an LLM judge agrees that every criterion in `docs/DONE.md` holds"},
	}
	ty, ok := checkers.LookupType("judge")
	require.True(t, ok)
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			o := tt.o
			assert.Equal(t, tt.want, ty.Describe(config.Checker{Type: "judge", Options: &o}))
		})
	}
}

// docs/checkers.md shows what the agent is told, rendered by the built-in
// judge-incomplete template from the parameters the checker gives it.
func TestJudgeFeedbackIsDocumented(t *testing.T) {
	readme, err := os.ReadFile("../docs/checkers.md")
	require.NoError(t, err)
	criteria := "- Every new exported function has a doc comment\n- The README documents the --verbose flag\n- No test was deleted or skipped"
	c := &checkers.Context{}
	for _, params := range []map[string]any{
		{
			"Open":           []checkers.JudgeCriterion{{ID: "1", Criterion: "Every new exported function has a doc comment", Reason: "ParseConfig in config.go has none"}},
			"Total":          3,
			"PendingActions": []string{"Add a doc comment to ParseConfig."},
			"Summary":        "Two of three criteria hold; ParseConfig is undocumented.",
			"Note":           "", "NoVerdict": "", "Criteria": criteria,
		},
		{
			"Open": []checkers.JudgeCriterion{}, "Total": 0, "PendingActions": []string{}, "Summary": "", "Note": "",
			"NoVerdict": "claude timed out after 2m0s and was stopped with its process group",
			"Criteria":  criteria,
		},
	} {
		r := c.Fail("judge-incomplete", params)
		assert.Contains(t, string(readme), "```\n"+r.Feedback+"\n```\n")
	}
}

// Whatever the judge prints, the hook answers within its budget: a reply
// that is not an answer is no verdict, and a judge that prints without
// end is stopped with everything it started, at its timeout or when the
// budget is spent (issue 18).
func TestJudgeCheckerHostileReplies(t *testing.T) {
	tests := []struct {
		name    string
		script  string // 1.sh; PIDFILE is where it writes its child's pid
		reply   string // the result text of a well-formed result, else
		timeout time.Duration
		budget  time.Duration
		want    string
	}{
		{name: "nesting that never closes", reply: strings.Repeat(`{"a":`, 200_000), timeout: 3 * time.Second, budget: 5 * time.Second,
			want: "The judge gave no verdict: the judge's answer cannot be used: not the expected JSON: "},
		{name: "more than a result can be", script: "head -c 17000000 /dev/zero | tr '\\0' '{'",
			want: "The judge gave no verdict: CLAUDE printed more than 16 MiB, more than any result, and was not read."},
		{name: "endless output, stopped at its timeout", script: `yes '{"a":' & echo $! > PIDFILE; wait`, timeout: 500 * time.Millisecond,
			want: "The judge gave no verdict: CLAUDE timed out after 500ms and was stopped with its process group."},
		{name: "endless output, stopped when the budget is spent", script: `yes '{"a":' & echo $! > PIDFILE; wait`, budget: 500 * time.Millisecond,
			want: "The judge gave no verdict: it did not finish within the hook's time budget (limits.budget 500ms) and was stopped after"},
	}
	bin := fakeClaudeBin(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "child.pid")
			call := map[string]string{"1.sh": strings.ReplaceAll(tt.script, "PIDFILE", pidFile)}
			if tt.script == "" {
				call = map[string]string{"1.json": judgeResult(t, map[string]any{"structured_output": nil, "result": tt.reply})}
			}
			c, _ := fakeJudge(t, call)
			ctx := context.Background()
			if tt.budget > 0 {
				c.Budget = tt.budget
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.budget)
				defer cancel()
			}
			ch := typedChecker(t, "judge", &checkers.JudgeOptions{Criteria: judgeCriteria, Claude: bin, Timeout: config.Duration(tt.timeout)})
			r, err := ch.Check(ctx, c)
			require.NoError(t, err)
			assert.False(t, r.Complete)
			assert.Equal(t, "judge-incomplete", r.Pattern)
			assert.Contains(t, r.Feedback, strings.ReplaceAll(tt.want, "CLAUDE", bin))
			if strings.Contains(tt.script, "PIDFILE") {
				data, err := os.ReadFile(pidFile)
				require.NoError(t, err)
				pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
				require.NoError(t, err)
				assert.Eventually(t, func() bool { return proctest.Gone(pid) }, 5*time.Second, 20*time.Millisecond, "the judge's child was killed")
			}
		})
	}
}

// A checklist that left a criterion out is not remembered: the tree did
// not decide it, and the next check asks the judge again.
func TestJudgeCheckerAsksAgainWhenACriterionWasLeftOut(t *testing.T) {
	done, documented := judgeItem("1", "`A` is exported", true, "yes"), judgeItem("2", "`A` is documented", true, "yes")
	c, fake := fakeJudge(t, map[string]string{
		"1.json":    judgeResult(t, map[string]any{"structured_output": judgeAnswer(true, "Done.", nil, done)}),
		"last.json": judgeResult(t, map[string]any{"structured_output": judgeAnswer(true, "Done.", nil, done, documented)}),
	})
	c.CacheDir = t.TempDir()
	ch := typedChecker(t, "judge", &checkers.JudgeOptions{Criteria: judgeCriteria, Claude: fakeClaudeBin(t)})
	for i, want := range []struct {
		complete bool
		calls    int
	}{{false, 1}, {true, 2}, {true, 2}} {
		run := &checkers.Context{Event: c.Event, ProjectDir: c.ProjectDir, Getenv: c.Getenv, Budget: c.Budget,
			StateDir: c.StateDir, CacheDir: c.CacheDir, Env: c.Env}
		r, err := ch.Check(context.Background(), run)
		require.NoError(t, err)
		assert.Equal(t, want.complete, r.Complete, "check %d: %s", i+1, r.Feedback)
		assert.Equal(t, want.calls, judgeCalls(t, fake), "check %d", i+1)
	}
}
