package checkers

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// A test that fails once and passes when run again is flaky, not the
// agent's open work: holding the agent on it sends it to "fix" what is
// not broken. So a failing test command runs again, once, within what is
// left of the budget — only the tests that failed where the runner can
// be told so, else the whole command — and a failure that passes the
// second time does not hold; the person is told it is flaky, naming the
// tests. A failure that fails again holds as always, with the first
// run's output.

// Flaky is a test command that failed and then passed when run again.
type Flaky struct {
	Command string
	Rerun   string   // what ran the second time
	Tests   []string // the tests that failed the first time, when known
}

// String says it for the person.
func (f Flaky) String() string {
	what := "`" + f.Command + "`"
	if len(f.Tests) > 0 {
		what += " (" + strings.Join(f.Tests, ", ") + ")"
	}
	return fmt.Sprintf("%s failed, then passed when run again (`%s`): flaky, so it did not hold the agent", what, f.Rerun)
}

// noteFlaky records a flaky test command for the run.
func (c *Context) noteFlaky(f Flaky) {
	c.notesMu.Lock()
	c.flaky = append(c.flaky, f)
	c.notesMu.Unlock()
}

// Flakies returns the test commands of the run that failed and then
// passed when run again.
func (c *Context) Flakies() []Flaky {
	c.notesMu.Lock()
	defer c.notesMu.Unlock()
	return slices.Clone(c.flaky)
}

var (
	goFailed  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^--- FAIL: (\w+) `) })
	goTestCmd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\S+=\S+\s+)*go\s+test(\s|$)`) })
	pytestCmd = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(\S+=\S+\s+)*(pytest|py\.test|python3?\s+-m\s+pytest)(\s|$)`)
	})
	shellChars = "|;&<>`$()"
)

// rerun is the command that runs again what failed in the output of
// command, and the tests that failed, when known: go test's failed
// top-level tests (-run '^(TestA|TestB)$'), pytest's last failed (--lf),
// else command itself.
func rerun(command string, output string) (string, []string) {
	simple := !strings.ContainsAny(command, shellChars)
	switch {
	case simple && goTestCmd().MatchString(command):
		var tests []string
		for _, m := range goFailed().FindAllStringSubmatch(output, -1) {
			if !slices.Contains(tests, m[1]) {
				tests = append(tests, m[1])
			}
		}
		if len(tests) > 0 && len(tests) <= 50 {
			return fmt.Sprintf("%s -count=1 -run '^(%s)$'", command, strings.Join(tests, "|")), tests
		}
	case simple && pytestCmd().MatchString(command):
		return command + " --lf", nil
	}
	return command, nil
}

// rerunWorth reports whether what is left of the budget leaves room for
// another run as long as the first: a rerun cut short by the budget
// would say nothing.
func rerunWorth(left, took time.Duration) bool {
	return left > took+took/2+time.Second
}
