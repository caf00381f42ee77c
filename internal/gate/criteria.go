package gate

import (
	"fmt"
	"io"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// criteria is stop-hook --criteria at SessionStart or UserPromptSubmit:
// the config is found and loaded as the hooks do it, and the agent is
// told what will be checked before it may stop (checkers.Criteria). No
// transcript is read and no checker is built or run: it runs at every
// session start and every prompt, so it may cost little more than
// reading the config (bench/hookbench holds it to the start-up floor).
// The one write is what it sees of the session (see noteSession).
func criteria(hook string, opts Options, env Env, ev *hookio.Event, stderr io.Writer) (Report, error) {
	r := newRun(hook, opts, env, ev, stderr)
	if rep, ok := r.releaseByMessage(); ok {
		// The person's message, whatever the config and the mode.
		if err := rep.write(); err != nil {
			return rep, err
		}
		r.logDecision(&rep)
		return rep, nil
	}
	c, err := r.config()
	rep := Report{Hook: hook, Event: r.event, ProjectDir: r.projectDir(), StateDir: r.stateDir(), ConfigErr: err, Dialect: r.dialect(c)}
	if opts.Explain {
		rep.ConfigPath, _ = config.Find(lookup(r.opts, r.env, r.event.Cwd))
	}
	r.settleMode(c)
	if err == nil && !r.guarded() && r.mode != config.ModeOff {
		// The session's start, for the rule of a session that changed
		// nothing (see unchangedSince): only where the rule can apply.
		// The prompt's turn, for the guard against holds without
		// progress (see personsPrompt).
		_, projectChecks := checkers.AgentOnly(checkers.At(c.Checkers, checkers.ReasonStop))
		r.noteSession(!c.HoldUnchanged && len(projectChecks) > 0)
	}
	switch {
	case r.mode == config.ModeOff:
		rep.Decision = Decision{Kind: KindOff}
	case r.guarded():
		// As the Stop hook checks nothing inside donegate's own check of
		// this session, there is nothing to announce there either.
		fmt.Fprintf(r.stderr, "%s: running inside donegate's own check of session %s; not telling the criteria\n", r.name, r.event.SessionID)
		rep.Decision = Decision{Kind: KindGuarded}
	case r.event.Host.PromptTakesNoContext() && r.event.HookEventName == hookio.EventUserPromptSubmit:
		// Cursor's beforeSubmitPrompt cannot add context, nor can VS
		// Code's UserPromptSubmit. The entry is most likely Claude Code's
		// UserPromptSubmit one, which both run from .claude/settings.json
		// too: failing would mark every prompt of a project set up for
		// both; the criteria were told at session start, and this
		// answers nothing.
		fmt.Fprintf(r.stderr, "%s: %s's %s cannot add context, so the criteria are told at %s only (this entry is Claude Code's UserPromptSubmit one, or can go)\n", r.name, r.event.Host.Title(), r.event.WireEventName, r.event.Host.EventNames().Criteria)
		rep.Decision = Decision{Kind: KindCriteria}
	case r.event.ResumesTurn():
		// Qwen Code asks again before every request of a turn: an answer
		// each time would add the criteria to the context once per tool
		// call and per block (measured: 5 copies by the fourth request).
		// The turn's own prompt was told them; this answers nothing.
		rep.Decision = Decision{Kind: KindResumed}
	case err != nil && config.BlockOnError(err):
		// on_error "block": the Stop hook will hold the agent until the
		// config loads, so that is what it must hear now.
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		rep.Criteria = fmt.Sprintf("This session ends when donegate's config loads and what it requires holds; the config is broken now, so fix it before you finish: %v", err)
		rep.Verdict = hookio.Verdict{Context: rep.Criteria}
		rep.Decision = Decision{Kind: KindCriteria, Err: err}
	case err != nil:
		// What the agent would be held to is unknown, and the Stop hook
		// will let it go: the model hears nothing, the person hears why
		// (as at every stop) and the session goes on.
		rep.Verdict = r.configFailure(err)
		rep.Decision = Decision{Kind: KindConfigBroken, Err: err}
	default:
		rep.Criteria = checkers.Criteria(c, r.projectDir())
		rep.Verdict = hookio.Verdict{Context: rep.Criteria}
		rep.Decision = Decision{Kind: KindCriteria}
	}
	return rep, rep.write()
}
