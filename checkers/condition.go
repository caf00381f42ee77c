package checkers

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/proc"
)

// A condition is a command checker's success_when: what a command's
// result must be for the check to pass. The zero value is exit_code:0.
type condition struct {
	form condForm
	code int            // exit_code
	text string         // contains, and the source of matches
	re   *regexp.Regexp // matches
}

type condForm int

const (
	condExitCode condForm = iota // exit_code:N, the default
	condEmpty                    // empty: no output
	condContains                 // contains:TEXT
	condMatches                  // matches:REGEX
)

// successWhenForms lists the forms for messages.
const successWhenForms = `"exit_code:N", "empty", "contains:TEXT" or "matches:REGEX"`

// parseCondition reads a success_when; "" is exit_code:0. Its errors say
// what is wrong with the value; the caller names the field.
func parseCondition(s string) (condition, error) {
	if s == "" {
		return condition{}, nil
	}
	form, arg, hasArg := strings.Cut(s, ":")
	switch form {
	case "exit_code":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 || n > 255 {
			return condition{}, fmt.Errorf("%q: the exit code must be a number from 0 to 255, as in \"exit_code:0\"", s)
		}
		return condition{form: condExitCode, code: n}, nil
	case "empty":
		if hasArg {
			return condition{}, fmt.Errorf("%q: \"empty\" takes nothing after it", s)
		}
		return condition{form: condEmpty}, nil
	case "contains":
		if arg == "" {
			return condition{}, fmt.Errorf("%q: give the text to look for, as in \"contains:PASS\"", s)
		}
		return condition{form: condContains, text: arg}, nil
	case "matches":
		if arg == "" {
			return condition{}, fmt.Errorf("%q: give a regular expression, as in \"matches:^ok\"", s)
		}
		if _, err := regexp.Compile(arg); err != nil { // its error quotes the user's text
			return condition{}, fmt.Errorf("%q: the regular expression does not compile: %w", s, err)
		}
		// Multi-line, as grep matches: ^ and $ at each line's start and
		// end. A command's output ends with a newline, so without it
		// "matches:^v[0-9]+$" never matched `echo v1`. \A and \z still
		// anchor at the whole output's ends.
		re := regexp.MustCompile("(?m)" + arg)
		return condition{form: condMatches, text: arg, re: re}, nil
	}
	return condition{}, fmt.Errorf("%q: unknown form; use %s", s, successWhenForms)
}

// String is the condition as a config writes it.
func (w condition) String() string {
	switch w.form {
	case condEmpty:
		return "empty"
	case condContains:
		return "contains:" + w.text
	case condMatches:
		return "matches:" + w.text
	}
	return "exit_code:" + strconv.Itoa(w.code)
}

// isDefault reports whether w is exit_code:0.
func (w condition) isDefault() bool { return w.form == condExitCode && w.code == 0 }

// met reports whether out, a command that exited, meets the condition.
// The text conditions look at the output with colour codes removed, as a
// person reads it, and at most its last proc.MaxOutputBytes; they ignore
// the exit code, so that a tool that exits 1 after printing its verdict
// can be judged by the verdict.
func (w condition) met(out proc.Outcome) bool {
	switch w.form {
	case condEmpty:
		return strings.TrimSpace(plainOutput(out)) == ""
	case condContains:
		return strings.Contains(plainOutput(out), w.text)
	case condMatches:
		return w.re.MatchString(plainOutput(out))
	}
	return out.ExitCode == w.code
}

// want says what the condition requires, to complete "it must ...".
func (w condition) want() string {
	switch w.form {
	case condEmpty:
		return "print nothing"
	case condContains:
		return fmt.Sprintf("print %q", w.text)
	case condMatches:
		return fmt.Sprintf("print output matching `%s`", w.text)
	}
	return fmt.Sprintf("exit with code %d", w.code)
}

// describe says what the condition requires of a command, in the third
// person: "`make lint` exits with code 0".
func (w condition) describe() string {
	switch w.form {
	case condEmpty:
		return "prints nothing"
	case condContains:
		return fmt.Sprintf("prints %q", w.text)
	case condMatches:
		return fmt.Sprintf("prints output matching `%s`", w.text)
	}
	return fmt.Sprintf("exits with code %d", w.code)
}

// missed says how out fails the condition, exit code included; it follows
// want in a sentence ("must print X ..., but its output does not contain
// it").
func (w condition) missed(out proc.Outcome) string {
	switch w.form {
	case condEmpty:
		return fmt.Sprintf("it printed output and exited with code %d", out.ExitCode)
	case condContains:
		return fmt.Sprintf("its output does not contain it (exit code %d)", out.ExitCode)
	case condMatches:
		return fmt.Sprintf("its output does not match it (exit code %d)", out.ExitCode)
	}
	return fmt.Sprintf("it exited with code %d", out.ExitCode)
}

// plainOutput is the output as a person reads it: colour codes removed,
// line ends of one kind.
func plainOutput(out proc.Outcome) string {
	return strings.ReplaceAll(hookio.StripANSI(string(out.Output)), "\r\n", "\n")
}
