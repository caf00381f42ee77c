package checkers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/donegate/donegate/config"
)

// Criteria is the paragraph that stop-hook --criteria tells the agent up
// front: what the checkers that run when it stops require, each in its
// type's own words (Type.Describe, so a new type needs nothing here), and,
// when the gated tools (StructuredOutput) are held to something else, what
// that is. It is "" when nothing is checked at either.
//
// It only describes: no checker is built or run, nothing is read. The
// hook that prints it runs at every session start and prompt, so it must
// cost no more than reading the config.
func Criteria(c *config.Config, dir string) string {
	stop := describeAll(At(c.Checkers, ReasonStop), dir)
	tool := describeAll(At(c.Checkers, ReasonToolUse), dir)
	var parts []string
	if len(stop) > 0 {
		parts = append(parts, "This session ends when: "+strings.Join(stop, "; ")+
			". donegate checks this each time you stop and, while something is missing, keeps you working and tells you what.")
	}
	if len(tool) == 0 || len(c.GateTools) == 0 {
		return strings.Join(parts, " ")
	}
	output := "Your final output (" + strings.Join(c.GateTools, ", ") + ")"
	switch {
	case len(c.CompletionSignal) > 0:
		// The agent must know that an honest "blocked" is let through:
		// otherwise it may dress up unfinished work as complete, or keep
		// working at what it cannot finish.
		parts = append(parts, output+", when it declares the work complete ("+config.DescribeConditions(c.CompletionSignal, ", or ")+
			"), is accepted only when: "+strings.Join(tool, "; ")+
			"; one that declares anything else, such as that you are blocked, is accepted as it is.")
	case !slices.Equal(stop, tool):
		// The same list twice would only be longer; a different one is
		// what an agent handing in its final structured output must know.
		parts = append(parts, output+" is accepted only when: "+strings.Join(tool, "; ")+".")
	}
	return strings.Join(parts, " ")
}

// describeAll says what each of specs requires, without its label: the
// agent is told what must hold, not what the config calls it. A test
// checker without a command names the one the project in dir has (issue
// 29: with no config the agent was told five commands it might be).
func describeAll(specs []config.Checker, dir string) []string {
	out := make([]string, 0, len(specs))
	for _, s := range specs {
		text := requirement(s)
		if o, ok := s.Options.(*TestOptions); ok && o.Command == "" && dir != "" {
			if d, err := DetectTestCommand(dir); err == nil && d.Command != "" {
				text = fmt.Sprintf("`%s` passes (the project's test command, from %s)", d.Command, d.From)
			}
		}
		// One sentence holds them all: a description's own full stop
		// would end it early.
		out = append(out, strings.TrimRight(strings.TrimSpace(text), "."))
	}
	return out
}
