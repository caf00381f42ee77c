package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/proc"
)

func TestExternalAnswers(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "not-executable"), []byte("#!/bin/sh\n"), 0o644))
	tests := []struct {
		name    string
		command config.Argv
		timeout time.Duration
		budget  time.Duration // the chain's; none when zero
		dir     string        // the project dir, when not dir
		want    checkers.Result
		err     []string // parts of the error, when it is one
	}{
		{name: "complete with feedback", command: config.Argv{Shell: `echo '{"complete": true, "feedback": "all 3 endpoints answer"}'`},
			want: checkers.OK("all 3 endpoints answer")},
		{name: "complete without feedback", command: config.Argv{Shell: `echo '{"complete": true}'`},
			want: checkers.OK("The external checker `echo '{\"complete\": true}'` says the work is complete.")},
		{name: "incomplete with feedback, unknown keys ignored", command: config.Argv{Args: []string{"printf", `{"complete": false, "feedback": " Sign the release. ", "v": 2}`}},
			want: checkers.Incomplete("Sign the release.")},
		{name: "incomplete without feedback", command: config.Argv{Args: []string{"echo", `{"complete": false, "feedback": null}`}},
			want: checkers.Incomplete("The external checker `[echo {\"complete\": false, \"feedback\": null}]` says the work is not complete (it gave no reason).")},
		{name: "stderr is not the answer", command: config.Argv{Shell: `echo noise >&2; echo '{"complete": true, "feedback": "ok"}'`},
			want: checkers.OK("ok")},
		{name: "exit code other than 0", command: config.Argv{Shell: `echo '{"complete": true}'; echo one >&2; echo 'db unreachable' >&2; exit 3`},
			err: []string{`external checker "echo`, "exited with code 3", "Its stderr ends:\none\ndb unreachable"}},
		{name: "not JSON", command: config.Argv{Shell: `echo all good`},
			err: []string{"exited 0 but its stdout is not an answer", `"all good"`, "It printed nothing."}},
		{name: "nothing on stdout", command: config.Argv{Shell: `true`},
			err: []string{"its stdout is not an answer", "unexpected end of JSON input"}},
		{name: "complete missing", command: config.Argv{Shell: `echo '{"feedback": "done"}'`},
			err: []string{`(no "complete" true or false)`}},
		{name: "complete not a bool", command: config.Argv{Shell: `echo '{"complete": "true"}'`},
			err: []string{"its stdout is not an answer", "cannot unmarshal string"}},
		{name: "feedback not a string", command: config.Argv{Shell: `echo '{"complete": false, "feedback": ["a"]}'`},
			err: []string{"its stdout is not an answer", "cannot unmarshal array"}},
		{name: "two answers", command: config.Argv{Shell: `echo '{"complete": true}'; echo '{"complete": false}'`},
			err: []string{"its stdout is not an answer", "invalid character"}},
		{name: "an array", command: config.Argv{Shell: `echo '[true]'`},
			err: []string{"its stdout is not an answer", "cannot unmarshal array"}},
		{name: "killed by a signal", command: config.Argv{Shell: `echo dying >&2; kill -9 $$`},
			err: []string{"killed by killed", "dying"}},
		{name: "answer too large", command: config.Argv{Shell: `head -c 2000000 /dev/zero | tr '\0' ' '; echo '{"complete": true}'`},
			err: []string{"answered more than 1048576 bytes on stdout"}},
		{name: "shell cannot find the command", command: config.Argv{Shell: `no-such-checker-donegate --x`},
			err: []string{`external checker "no-such-checker-donegate --x": command: the shell could not find it (exit code 127)`, "not found"}},
		{name: "program not in PATH", command: config.Argv{Args: []string{"no-such-checker-donegate", "--x"}},
			err: []string{`external checker "[no-such-checker-donegate --x]": command: program "no-such-checker-donegate" not found in PATH`}},
		{name: "relative program missing", command: config.Argv{Args: []string{"./bin/check"}},
			err: []string{`command: program "./bin/check" does not exist (a relative path is relative to the project dir ` + dir + `)`}},
		{name: "program not executable", command: config.Argv{Args: []string{"./not-executable"}},
			err: []string{`command: program "./not-executable" cannot be run (is it executable?)`}},
		{name: "project dir missing", command: config.Argv{Args: []string{"true"}}, dir: filepath.Join(dir, "gone"),
			err: []string{"project dir: stat " + filepath.Join(dir, "gone")}},
		{name: "own timeout", command: config.Argv{Shell: `echo started >&2; sleep 30`}, timeout: 100 * time.Millisecond,
			err: []string{"timed out after 100ms and was stopped (context deadline exceeded)", "started"}},
		{name: "budget ends first", command: config.Argv{Args: []string{"sleep", "30"}}, budget: 100 * time.Millisecond,
			err: []string{"did not finish within the hook's time budget (limits.budget 100ms)", "context deadline exceeded"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.budget > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.budget)
				defer cancel()
			}
			ch := typedChecker(t, "external", &checkers.ExternalOptions{Command: tt.command, Timeout: config.Duration(tt.timeout)})
			project := dir
			if tt.dir != "" {
				project = tt.dir
			}
			r, err := ch.Check(ctx, &checkers.Context{ProjectDir: project, Reason: checkers.ReasonStop, Budget: tt.budget})
			if tt.err != nil {
				require.Error(t, err)
				for _, part := range tt.err {
					assert.Contains(t, err.Error(), part)
				}
				if tt.timeout > 0 || tt.budget > 0 {
					assert.ErrorIs(t, err, context.DeadlineExceeded)
				}
				return
			}
			require.NoError(t, err)
			assertSaid(t, tt.want, "external-incomplete", r)
		})
	}
}

// TestExternalInput: the checker reads the event as received (fields
// donegate does not know, spacing and all), the project dir and the
// reason; closer check sends a null event. Its environment carries the
// recursion guard.
func TestExternalInput(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	const stop = `{"session_id": "s1", "hook_event_name": "Stop", "cwd": "/w", "future_field": {"x": "<&>"}}`
	const tool = `{"session_id":"s2","hook_event_name":"PreToolUse","tool_name":"StructuredOutput","tool_input":{"answer":42}}`
	tests := []struct {
		name   string
		raw    string
		event  *hookio.Event
		reason checkers.StopReason
		input  string
		guard  string
	}{
		{name: "stop", raw: stop, event: &hookio.Event{SessionID: "s1"}, reason: checkers.ReasonStop,
			input: `{"event":` + stop + `,"project_dir":"` + dir + `","reason":"stop"}`, guard: "s1"},
		{name: "tool use", raw: tool, event: &hookio.Event{SessionID: "s2"}, reason: checkers.ReasonToolUse,
			input: `{"event":` + tool + `,"project_dir":"` + dir + `","reason":"tool_use"}`, guard: "s2"},
		{name: "closer", reason: checkers.ReasonManual,
			input: `{"event":null,"project_dir":"` + dir + `","reason":"manual"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ch := typedChecker(t, "external", &checkers.ExternalOptions{Command: config.Argv{
				Shell: `cat > input.json; printf %s "$` + proc.GuardEnv + `" > guard; echo '{"complete": true}'`}})
			c := &checkers.Context{Event: tt.event, RawEvent: []byte(tt.raw + "\n"), ProjectDir: dir, Reason: tt.reason}
			_, err := ch.Check(context.Background(), c)
			require.NoError(t, err)
			input, err := os.ReadFile(filepath.Join(dir, "input.json"))
			require.NoError(t, err)
			assert.Equal(t, tt.input, string(input), "byte for byte")
			guard, err := os.ReadFile(filepath.Join(dir, "guard"))
			require.NoError(t, err)
			assert.Equal(t, tt.guard, string(guard))
		})
	}
	_, err := typedChecker(t, "external", &checkers.ExternalOptions{Command: config.Argv{Shell: "true"}}).
		Check(context.Background(), &checkers.Context{RawEvent: []byte("{oops"), ProjectDir: dir})
	require.ErrorContains(t, err, "the event is not valid JSON")
}

// The examples in the docs, run for real.
var (
	shellExample  = filepath.Join("testdata", "external", "no-todo.sh")
	pythonExample = filepath.Join("testdata", "external", "changelog.py")
)

func TestExternalExamples(t *testing.T) {
	needSh(t)
	shell, err := filepath.Abs(shellExample)
	require.NoError(t, err)
	python, err := filepath.Abs(pythonExample)
	require.NoError(t, err)
	tests := []struct {
		name    string
		command config.Argv
		files   map[string]string
		want    checkers.Result
		err     []string
	}{
		{name: "shell: TODOs left", command: config.Argv{Args: []string{shell}},
			files: map[string]string{"src/a.go": "// TODO: x", "src/b/c.go": "// TODO: y", "src/d.go": "ok"},
			want:  checkers.Incomplete("2 file(s) under src/ still hold TODO (grep -rn TODO src).")},
		{name: "shell: none left", command: config.Argv{Shell: "sh " + shell},
			files: map[string]string{"src/a.go": "ok", "README": "TODO elsewhere does not count"},
			want:  checkers.OK("No TODO left under src/.")},
		{name: "python: entry missing", command: config.Argv{Args: []string{python}},
			files: map[string]string{"VERSION": "1.4.0\n", "CHANGELOG.md": "## 1.3.0\n- old\n"},
			want:  checkers.Incomplete("Add a '## 1.4.0' entry to CHANGELOG.md.")},
		{name: "python: entry there", command: config.Argv{Shell: "python3 " + python},
			files: map[string]string{"VERSION": "1.4.0\n", "CHANGELOG.md": "## 1.4.0\n- new\n"},
			want:  checkers.OK("The external checker `python3 " + python + "` says the work is complete.")},
		{name: "python: its own failure is an error with its traceback", command: config.Argv{Args: []string{python}},
			err: []string{"exited with code 1", "FileNotFoundError", "VERSION"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
			}
			ch := typedChecker(t, "external", &checkers.ExternalOptions{Command: tt.command})
			r, err := ch.Check(context.Background(), &checkers.Context{ProjectDir: dir, Reason: checkers.ReasonManual})
			if tt.err != nil {
				require.Error(t, err)
				for _, part := range tt.err {
					assert.Contains(t, err.Error(), part)
				}
				return
			}
			require.NoError(t, err)
			assertSaid(t, tt.want, "external-incomplete", r)
		})
	}
}

// TestExternalExamplesAreDocumented: docs/checkers.md shows the examples that
// TestExternalExamples runs, not copies that may drift.
func TestExternalExamplesAreDocumented(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join("..", "docs", "checkers.md"))
	require.NoError(t, err)
	for _, path := range []string{shellExample, pythonExample} {
		example, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.True(t, strings.Contains(string(docs), string(example)), "%s is not in the docs as it is", path)
		assert.LessOrEqual(t, strings.Count(string(example), "\n"), 10, "%s: the docs promise a 10-line example", path)
	}
}

func TestExternalOptions(t *testing.T) {
	tests := []struct {
		name string
		opts checkers.ExternalOptions
		want []config.Problem
	}{
		{name: "shell command", opts: checkers.ExternalOptions{Command: config.Argv{Shell: "./check"}}},
		{name: "arguments", opts: checkers.ExternalOptions{Command: config.Argv{Args: []string{"./check", ""}}}},
		{name: "missing is the required rule's", opts: checkers.ExternalOptions{}},
		{name: "blank", opts: checkers.ExternalOptions{Command: config.Argv{Shell: " \t"}},
			want: []config.Problem{{Path: "command", Message: "must not be blank"}}},
		{name: "empty array", opts: checkers.ExternalOptions{Command: config.Argv{Args: []string{}}},
			want: []config.Problem{{Path: "command", Message: "must not be an empty array; give the program and its arguments"}}},
		{name: "empty program", opts: checkers.ExternalOptions{Command: config.Argv{Args: []string{"", "x"}}},
			want: []config.Problem{{Path: "command[0]", Message: "the program must not be empty"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.opts.CheckOptions())
		})
	}
}
