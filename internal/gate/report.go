package gate

import (
	"fmt"
	"strconv"
	"strings"
)

// Why says in a line why the run answered as it did: closer explain's
// "Why:" and the decision log's.
func (rep Report) Why() string {
	d := rep.Decision
	var s string
	switch d.Kind {
	case KindComplete:
		s = "complete"
	case KindBlocked:
		// Strings joined, not fmt: see limit.Open.
		s = "blocked: " + strconv.Itoa(d.Blocks) + " of " + strconv.Itoa(d.MaxBlocks) + " continuations used"
		switch {
		case rep.ConfigErr != nil:
			s = "config broken, on_error block; " + s
		case d.Err != nil:
			s += fmt.Sprintf(" (a checker could not run, on_error block: %s)", oneLine(d.Err.Error()))
		}
	case KindLetGo:
		switch d.Limit {
		case "deadline":
			s = fmt.Sprintf("let through: deadline spent (%s)", d.Why)
		case "no_progress":
			s = fmt.Sprintf("let through: no progress (%s)", d.Why)
		default:
			s = "let through: max_blocks (" + strconv.Itoa(d.MaxBlocks) + ") spent (" + d.Why + ")"
		}
	case KindNotGated:
		s = "not gated: tool " + rep.Event.ToolName
	case KindNotDeclared:
		what := "the call"
		if rep.Event.ToolName == "" {
			what = "the agent's final JSON message" // a Codex stop (codex exec --output-schema)
		}
		s = "not checked: " + what + " declares no completion (completion_signal: " + d.Why + ")"
	case KindGuarded:
		s = "not checked: the hook runs inside donegate's own check of this session"
	case KindConfigBroken:
		s = "config broken, on_error allow"
	case KindCheckFailed:
		s = "a checker could not run, on_error allow: " + oneLine(d.Err.Error())
	case KindStateFailed:
		s = "let through: the block count could not be kept: " + oneLine(d.Err.Error())
	case KindCriteria:
		s = "criteria told up front, nothing checked"
		if rep.Criteria == "" {
			s = "nothing runs at a stop: nothing to tell"
		}
		if rep.ConfigErr != nil {
			s = "config broken, on_error block: the agent is told to fix it"
		}
	case KindReleased:
		by := d.Why
		if by == "" {
			by = "closer release"
		}
		s = releasedHow(by) + ": not checked"
	case KindOff:
		s = "off: nothing checked (" + d.Why + ")"
		if d.Why == "" {
			s = "off: nothing checked"
		}
	case KindObserved:
		s = fmt.Sprintf("observe mode: would have held the agent (%d of %d continuations), let it go", d.Blocks, d.MaxBlocks)
	case KindRefused:
		s = "the agent's call would loosen its gate: " + d.Why
	case KindSignalled:
		s = "stopped by a signal while a check ran: nothing held"
	case KindWaiting:
		s = "not checked: the agent's background work is still running (" + d.Why + "); the stop after it ends is checked"
	default:
		s = string(d.Kind)
	}
	var cached []string
	for _, o := range rep.Checkers {
		if o.Cached && o.ByHook {
			cached = append(cached, o.Label)
		}
	}
	for _, f := range d.Flaky {
		s += "; " + f
	}
	if len(d.SetAside) > 0 {
		s += "; not held by the project's checks (" + strings.Join(d.SetAside, ", ") + "): the agent has changed nothing since the session began"
	}
	if len(cached) > 0 {
		s += "; reused from the result cache: " + strings.Join(cached, ", ")
	}
	return s
}

// oneLine folds a message onto one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
