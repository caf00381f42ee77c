package checkers_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

func TestCommandOptionsCheckOptions(t *testing.T) {
	tests := []struct {
		when string
		want string // the problem's message; "" for none
	}{
		{when: ""},
		{when: "exit_code:0"},
		{when: "exit_code:255"},
		{when: "empty"},
		{when: "contains:ALL OK"},
		{when: "contains:a:b"},
		{when: `matches:(?m)^ok\s+\d+$`},
		{when: "exit_code", want: `"exit_code": the exit code must be a number from 0 to 255, as in "exit_code:0"`},
		{when: "exit_code:-1", want: `"exit_code:-1": the exit code must be a number from 0 to 255, as in "exit_code:0"`},
		{when: "exit_code:256", want: `"exit_code:256": the exit code must be a number from 0 to 255, as in "exit_code:0"`},
		{when: "exit_code:one", want: `"exit_code:one": the exit code must be a number from 0 to 255, as in "exit_code:0"`},
		{when: "empty:yes", want: `"empty:yes": "empty" takes nothing after it`},
		{when: "contains:", want: `"contains:": give the text to look for, as in "contains:PASS"`},
		{when: "matches:", want: `"matches:": give a regular expression, as in "matches:^ok"`},
		{when: "matches:(unclosed", want: "\"matches:(unclosed\": the regular expression does not compile: error parsing regexp: missing closing ): `(unclosed`"},
		{when: "exitcode:0", want: `"exitcode:0": unknown form; use "exit_code:N", "empty", "contains:TEXT" or "matches:REGEX"`},
		{when: "Empty", want: `"Empty": unknown form; use "exit_code:N", "empty", "contains:TEXT" or "matches:REGEX"`},
	}
	for _, tt := range tests {
		t.Run(tt.when, func(t *testing.T) {
			got := (&checkers.CommandOptions{Command: "true", SuccessWhen: tt.when}).CheckOptions()
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, []config.Problem{{Path: "success_when", Message: tt.want}}, got)
		})
	}
}

func TestCommandChecker(t *testing.T) {
	needSh(t)
	no := false
	tests := []struct {
		name     string
		opts     checkers.CommandOptions
		complete bool
		feedback string
	}{
		{name: "exit 0 by default", opts: checkers.CommandOptions{Command: "echo fine"}, complete: true,
			feedback: "The command `echo fine` passed: it had to exit with code 0 and did."},
		{name: "exit 1 by default", opts: checkers.CommandOptions{Command: "echo 'lint: 2 problems'; exit 1"},
			feedback: "The command `echo 'lint: 2 problems'; exit 1` must exit with code 0 (success_when \"exit_code:0\"), but it exited with code 1. Fix that and run it again.\nLast 40 lines of output:\nlint: 2 problems"},
		{name: "a chosen exit code is met", opts: checkers.CommandOptions{Command: "exit 3", SuccessWhen: "exit_code:3"}, complete: true,
			feedback: "The command `exit 3` passed: it had to exit with code 3 and did."},
		{name: "exit 0 fails a chosen exit code", opts: checkers.CommandOptions{Command: "true", SuccessWhen: "exit_code:3"},
			feedback: "The command `true` must exit with code 3 (success_when \"exit_code:3\"), but it exited with code 0. Fix that and run it again. It printed nothing."},
		{name: "empty: nothing printed", opts: checkers.CommandOptions{Command: "printf ''", SuccessWhen: "empty"}, complete: true,
			feedback: "The command `printf ''` passed: it had to print nothing and did."},
		{name: "empty: blank lines are nothing", opts: checkers.CommandOptions{Command: "printf '\\n  \\n'", SuccessWhen: "empty"}, complete: true,
			feedback: "The command `printf '\\n  \\n'` passed: it had to print nothing and did."},
		{name: "empty: output on stderr counts", opts: checkers.CommandOptions{Command: "echo TODO left >&2", SuccessWhen: "empty"},
			feedback: "The command `echo TODO left >&2` must print nothing (success_when \"empty\"), but it printed output and exited with code 0. Fix that and run it again.\nLast 40 lines of output:\nTODO left"},
		{name: "contains: the exit code does not matter", opts: checkers.CommandOptions{Command: "echo 'ALL OK'; exit 1", SuccessWhen: "contains:ALL OK"}, complete: true,
			feedback: "The command `echo 'ALL OK'; exit 1` passed: it had to print \"ALL OK\" and did."},
		{name: "contains: colour codes do not split the text", opts: checkers.CommandOptions{Command: `printf '\033[32mALL\033[0m OK\n'`, SuccessWhen: "contains:ALL OK"}, complete: true,
			feedback: "The command `printf '\\033[32mALL\\033[0m OK\\n'` passed: it had to print \"ALL OK\" and did."},
		{name: "contains: missing", opts: checkers.CommandOptions{Command: "echo '3 FAILED'", SuccessWhen: "contains:ALL OK"},
			feedback: "The command `echo '3 FAILED'` must print \"ALL OK\" (success_when \"contains:ALL OK\"), but its output does not contain it (exit code 0). Fix that and run it again.\nLast 40 lines of output:\n3 FAILED"},
		{name: "matches: a multi-line pattern", opts: checkers.CommandOptions{Command: "echo start; echo 'coverage: 91%'", SuccessWhen: `matches:(?m)^coverage: (9\d|100)%$`}, complete: true,
			feedback: "The command `echo start; echo 'coverage: 91%'` passed: it had to print output matching `(?m)^coverage: (9\\d|100)%$` and did."},
		// As grep matches: ^ and $ at each line, so the newline that ends
		// every command's output does not defeat $.
		{name: "matches: $ before the output's last newline", opts: checkers.CommandOptions{Command: "echo v1", SuccessWhen: `matches:^v[0-9]+$`}, complete: true,
			feedback: "The command `echo v1` passed: it had to print output matching `^v[0-9]+$` and did."},
		{name: "matches: any line, as grep", opts: checkers.CommandOptions{Command: "echo building; echo v12; echo done", SuccessWhen: `matches:^v[0-9]+$`}, complete: true,
			feedback: "The command `echo building; echo v12; echo done` passed: it had to print output matching `^v[0-9]+$` and did."},
		{name: "matches: \\A and \\z anchor the whole output", opts: checkers.CommandOptions{Command: "echo building; echo v12", SuccessWhen: `matches:\Av[0-9]+\n\z`},
			feedback: "The command `echo building; echo v12` must print output matching `\\Av[0-9]+\\n\\z` (success_when \"matches:\\Av[0-9]+\\n\\z\"), but its output does not match it (exit code 0). Fix that and run it again.\nLast 40 lines of output:\nbuilding\nv12"},
		{name: "matches: no match", opts: checkers.CommandOptions{Command: "echo 'coverage: 42%'; exit 2", SuccessWhen: `matches:(?m)^coverage: (9\d|100)%$`},
			feedback: "The command `echo 'coverage: 42%'; exit 2` must print output matching `(?m)^coverage: (9\\d|100)%$` (success_when \"matches:(?m)^coverage: (9\\d|100)%$\"), but its output does not match it (exit code 2). Fix that and run it again.\nLast 40 lines of output:\ncoverage: 42%"},
		{name: "a command the shell cannot find", opts: checkers.CommandOptions{Command: "donegate-no-such-tool --check", Cache: &no},
			feedback: "The command `donegate-no-such-tool --check` must exit with code 0 (success_when \"exit_code:0\"), but it exited with code 127. Fix that and run it again. Exit code 127 is the shell's \"command not found\": is the tool installed and on PATH?\nLast 40 lines of output:\nsh: 1: donegate-no-such-tool: not found"},
		{name: "killed by a signal meets no condition", opts: checkers.CommandOptions{Command: "kill -KILL $$", SuccessWhen: "empty"},
			feedback: "The command `kill -KILL $$` was killed by killed. It printed nothing."},
		{name: "its own timeout", opts: checkers.CommandOptions{Command: "sleep 5", Timeout: config.Duration(100 * time.Millisecond)},
			feedback: "The command `sleep 5` timed out after 100ms and was stopped. It printed nothing."},
		{name: "the session guard is in its environment", opts: checkers.CommandOptions{Command: `echo "guard=$DONEGATE_CHECKING_SESSION"`, SuccessWhen: "contains:guard=s1"}, complete: true,
			feedback: "The command `echo \"guard=$DONEGATE_CHECKING_SESSION\"` passed: it had to print \"guard=s1\" and did."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: t.TempDir(), Budget: time.Minute}
			r, err := typedChecker(t, "command", &tt.opts).Check(context.Background(), c)
			require.NoError(t, err)
			if strings.Contains(tt.feedback, "not found") {
				// Shells word "not found" differently (dash: "sh: 1: x: not found",
				// bash: "sh: line 1: x: command not found"): compare up to the log.
				head, _, _ := strings.Cut(tt.feedback, "\nLast 40 lines")
				assert.True(t, strings.HasPrefix(r.Feedback, head+"\nLast 40 lines of output:\n"), r.Feedback)
				assert.Contains(t, r.Feedback, "donegate-no-such-tool")
				assert.False(t, r.Complete)
				return
			}
			assertSaid(t, checkers.Result{Complete: tt.complete, Feedback: tt.feedback}, "command-failed", r)
		})
	}
}

// A success_when that slipped past the config's check (a Checker built by
// code) is an error at build time, naming the field, not a checker that
// can never pass.
func TestCommandNewRefusesABadCondition(t *testing.T) {
	ty, ok := checkers.LookupType("command")
	require.True(t, ok)
	_, err := ty.New(config.Checker{Type: "command", Options: &checkers.CommandOptions{Command: "true", SuccessWhen: "matches:["}})
	require.EqualError(t, err, "success_when: \"matches:[\": the regular expression does not compile: error parsing regexp: missing closing ]: `[`")
}

func TestCommandDescribe(t *testing.T) {
	tests := []struct {
		when string
		want string
	}{
		{when: "", want: "`make lint` exits with code 0"},
		{when: "exit_code:1", want: "`make lint` exits with code 1"},
		{when: "empty", want: "`make lint` prints nothing"},
		{when: "contains:OK", want: "`make lint` prints \"OK\""},
		{when: "matches:^ok$", want: "`make lint` prints output matching `^ok$`"},
	}
	ty, ok := checkers.LookupType("command")
	require.True(t, ok)
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, ty.Describe(config.Checker{Type: "command", Options: &checkers.CommandOptions{Command: "make lint", SuccessWhen: tt.when}}))
		})
	}
}

// committedRepo makes a git work tree with one commit and returns its path.
func committedRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"-c", "user.email=a@b", "-c", "user.name=n", "commit", "-q", "--allow-empty", "-m", "init"}} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return dir
}

// Every command-running type goes through the one result cache: a result
// is reused on an unchanged tree, and the key holds the type (its feedback
// differs) and the condition (it decides the result), so neither a test
// checker nor another condition on the same command is answered from it.
func TestCommandResultsAreCachedByTypeAndCondition(t *testing.T) {
	dir := committedRepo(t)
	runs := filepath.Join(t.TempDir(), "runs") // outside the tree: counting must not change it
	command := "echo run >> " + runs + "; echo 'ALL OK'"
	c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: dir, Budget: time.Minute, CacheDir: t.TempDir()}
	count := func() int {
		data, err := os.ReadFile(runs)
		require.NoError(t, err)
		return strings.Count(string(data), "run\n")
	}
	steps := []struct {
		name    string
		checker checkers.Checker
		runs    int
		reused  bool
	}{
		{name: "first run", checker: typedChecker(t, "command", &checkers.CommandOptions{Command: command, SuccessWhen: "contains:ALL OK"}), runs: 1},
		{name: "same tree, same condition", checker: typedChecker(t, "command", &checkers.CommandOptions{Command: command, SuccessWhen: "contains:ALL OK"}), runs: 1, reused: true},
		{name: "another condition", checker: typedChecker(t, "command", &checkers.CommandOptions{Command: command}), runs: 2},
		{name: "a test checker", checker: checkers.Test{Command: command, Cache: true}, runs: 3},
		{name: "the test checker again", checker: checkers.Test{Command: command, Cache: true}, runs: 3, reused: true},
	}
	for _, s := range steps {
		r, err := s.checker.Check(context.Background(), c)
		require.NoError(t, err, s.name)
		assert.True(t, r.Complete, s.name)
		assert.Equal(t, s.runs, count(), s.name)
		assert.Equal(t, s.reused, strings.Contains(r.Feedback, "donegate reused the result"), s.name)
	}
}

// A command that cannot be started is an error of the check, named by
// what the type calls it.
func TestCommandThatCannotStart(t *testing.T) {
	tests := []struct {
		typ  string
		opts any
		want string
	}{
		{typ: "command", opts: &checkers.CommandOptions{Command: "make check"}, want: `command "make check": no shell`},
		{typ: "type-check", opts: &checkers.PresetOptions{Command: "make check"}, want: `type check "make check": no shell`},
		{typ: "lint", opts: &checkers.PresetOptions{Command: "make check"}, want: `lint command "make check": no shell`},
		{typ: "format", opts: &checkers.PresetOptions{Command: "make check"}, want: `format check "make check": no shell`},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			c := &checkers.Context{Event: &hookio.Event{SessionID: "s1"}, ProjectDir: "/proj", Runner: &fakeRunner{err: errors.New("no shell")}}
			_, err := typedChecker(t, tt.typ, tt.opts).Check(context.Background(), c)
			require.EqualError(t, err, tt.want)
		})
	}
}
