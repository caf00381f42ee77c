// Package judge asks a model whether the work meets the user's completion
// criteria (LLM-as-judge): `claude -p --output-format json --json-schema`,
// with the project's hooks disabled, answers with a checklist of the
// criteria; the answer is read, checked and its verdict recomputed from
// the checklist. closer judge and the judge checker both ask through Ask,
// so that what the judge is told and how its answer is read cannot drift
// apart.
//
// The hooks link this package (through package checkers): it must not
// link validator/v10, see Answer.
package judge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/donegate/donegate/transcript"
)

// DefaultTimeout bounds one run of the judge when none is given.
const DefaultTimeout = 2 * time.Minute

// Schema is the --json-schema claude must answer with.
const Schema = `{"type":"object","additionalProperties":false,` +
	`"required":["checklist","allComplete","summary","pendingActions"],` +
	`"properties":{` +
	`"checklist":{"type":"array","minItems":1,"items":{"type":"object","additionalProperties":false,` +
	`"required":["id","description","completed","evidence"],` +
	`"properties":{"id":{"type":"string"},"description":{"type":"string"},"completed":{"type":"boolean"},"evidence":{"type":"string"}}}},` +
	`"allComplete":{"type":"boolean"},` +
	`"summary":{"type":"string"},` +
	`"pendingActions":{"type":"array","items":{"type":"string"}}}}`

// Question is one question to the judge.
type Question struct {
	// Criteria are the completion criteria, as the user wrote them.
	Criteria string
	// Changes and Plan are the evidence: see Changes.String and PlanText.
	Changes, Plan string
	// Checks are the results of donegate's checkers (closer judge); nil
	// leaves the section out (the judge checker, itself one of them).
	Checks []Check
	// Model is claude's --model; "" is claude's default.
	Model string
}

// Check is the result of one deterministic checker, for the prompt.
type Check struct {
	Passed      bool
	Description string
	Evidence    string
}

// Prompt is the verification prompt.
func (q Question) Prompt() string {
	var b strings.Builder
	b.WriteString(`You are a strict reviewer. Decide whether a coding agent's task is really done, judged against the completion criteria below. Do not change any file. Use only the evidence here and what you read in the project directory.

## Completion criteria

`)
	// Numbered, so that the checklist can be matched with them (see
	// Answer.Recompute).
	if criteria := SplitCriteria(q.Criteria); len(criteria) > 0 {
		for i, c := range criteria {
			fmt.Fprintf(&b, "%d. %s\n", i+1, c)
		}
	} else {
		b.WriteString(strings.TrimSpace(q.Criteria) + "\n")
	}
	b.WriteString("\n## Changes\n\n")
	b.WriteString(clip(strings.TrimSpace(q.Changes)))
	b.WriteString("\n\n## The agent's plan\n\n")
	b.WriteString(clip(strings.TrimSpace(q.Plan)))
	b.WriteString("\n\n")
	if q.Checks != nil {
		b.WriteString("## Deterministic checks (donegate)\n\n")
		for _, c := range q.Checks {
			mark := "PASS"
			if !c.Passed {
				mark = "FAIL"
			}
			fmt.Fprintf(&b, "- %s %s\n%s\n", mark, c.Description, indent(c.Evidence, "    "))
		}
		b.WriteString("\n")
	}
	// The judge checker's prompt has no checks section: pointing at "a
	// failing check above" there sends the model looking for one.
	done := "true only when the evidence shows it done"
	if q.Checks != nil {
		done += "; a failing check above means not done"
	}
	b.WriteString(`## Your answer

Give one checklist item per criterion, none left out: its number above as the id ("1", "2", ...), the criterion as the description, completed (` + done + `), and the evidence for your decision. Set allComplete to true only when every item is completed. List in pendingActions what the agent must still do, one action each, and say in summary, in one sentence, where the work stands.`)
	return b.String()
}

// Args are claude's arguments for the question: print mode, the JSON
// result with the structured output of Schema, the project's hooks off.
func (q Question) Args() []string {
	args := []string{"-p", q.Prompt(), "--output-format", "json", "--json-schema", Schema, "--settings", NoHooks}
	if q.Model != "" {
		args = append(args, "--model", q.Model)
	}
	return args
}

// Claude says how to run claude: the executable (a name looked up on PATH,
// or a path), the project dir it runs in, its timeout and what is added
// to its environment.
type Claude struct {
	Bin     string
	Dir     string
	Timeout time.Duration
	Env     []string
}

// Ask asks the judge q and reads its answer: the structured output, else a
// JSON object in the result text, checked against the answer's rules and
// its verdict recomputed from the checklist, which must answer each
// criterion (see Answer.Recompute). A judge that gives no
// answer, or a malformed one, is an incomplete Answer whose Reason says
// why: the judge fails closed. The error is for a judge that could not be
// asked: no claude (wraps ErrNotFound), one that cannot start, or ctx
// ended (wraps ctx's error).
func Ask(ctx context.Context, run Runner, c Claude, q Question) (Answer, error) {
	cr, err := RunClaude(ctx, run, c.Bin, c.Dir, c.Timeout, c.Env, q.Args()...)
	var nv *NoVerdict
	switch {
	case errors.As(err, &nv):
		return NoAnswer("the judge gave no verdict: " + nv.Reason), nil
	case err != nil:
		return Answer{}, err
	}
	var ans Answer
	switch {
	case len(cr.StructuredOutput) > 0 && string(cr.StructuredOutput) != "null":
		err = decodeAnswer(cr.StructuredOutput, &ans)
	default:
		err = FindJSON(cr.Result, &ans, decodeAnswer)
	}
	if err != nil {
		return NoAnswer("the judge's answer cannot be used: " + err.Error()), nil
	}
	ans.Recompute(SplitCriteria(q.Criteria))
	return ans, nil
}

// Changes are what changed in the project, for the prompt.
type Changes struct {
	// Base is the commit the work is compared with; "" when the
	// repository has none.
	Base string
	// Against names the base for the judge: "the baseline", "HEAD".
	Against string
	// Stat is `git diff --stat Base --`, when there is a Base.
	Stat string
	// Changed are the changed files, listed when there is no Base.
	Changed []string
	// Untracked are the untracked files.
	Untracked []string
}

func (c Changes) String() string {
	var b strings.Builder
	if c.Base != "" {
		against := c.Against
		if against == "" {
			against = "the baseline"
		}
		fmt.Fprintf(&b, "git diff --stat %s (the working tree against %s):\n", ShortID(c.Base), against)
		if strings.TrimSpace(c.Stat) == "" {
			b.WriteString("(no changes to tracked files)\n")
		} else {
			b.WriteString(c.Stat)
		}
	} else {
		b.WriteString("The repository has no commit yet. Changed files:\n")
		for _, f := range c.Changed {
			b.WriteString(" " + f + "\n")
		}
	}
	if len(c.Untracked) > 0 {
		b.WriteString("Untracked files:\n")
		for _, f := range c.Untracked {
			b.WriteString(" " + f + "\n")
		}
	}
	return b.String()
}

// PlanText lists the agent's plan for the prompt, or says that there is
// none or that it could not be read.
func PlanText(items []transcript.Item, found bool, err error) string {
	switch {
	case err != nil:
		return fmt.Sprintf("The plan could not be read: %v", err)
	case !found:
		return "The agent made no plan."
	}
	var b strings.Builder
	for _, it := range items {
		fmt.Fprintf(&b, "- [%s] %s\n", it.Status, it.Title)
	}
	return b.String()
}

// ShortID is a commit id cut to 12 characters, for people.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// maxEvidence bounds the changes and the plan in the prompt: the prompt is
// one argument of claude's, and Linux refuses an argument over 128 KiB
// (MAX_ARG_STRLEN); a diff stat of a vendored tree can be longer.
const maxEvidence = 16 << 10

// clip cuts s to maxEvidence bytes at a line's end, saying so.
func clip(s string) string {
	if len(s) <= maxEvidence {
		return s
	}
	cut := s[:maxEvidence]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		cut = cut[:i]
	}
	return fmt.Sprintf("%s\n... (%d more bytes left out; read the project directory)", cut, len(s)-len(cut))
}

func indent(s, pre string) string {
	if s == "" {
		return ""
	}
	return pre + strings.ReplaceAll(s, "\n", "\n"+pre)
}
