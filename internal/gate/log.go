package gate

import (
	"fmt"
	"strings"

	"github.com/donegate/donegate/internal/decisionlog"
	"github.com/donegate/donegate/internal/otlp"
)

// logDecision puts the run's decision on the record (see package
// decisionlog). Ungated tool calls (VS Code runs the hook before every
// tool), the criteria told up front, a stop another entry answers and
// closer explain's dry runs are no decisions and are not kept. A failure to write costs the record only:
// it is said on stderr and the answer stands.
func (r *run) logDecision(rep *Report) {
	switch rep.Decision.Kind {
	case KindNotGated, KindCriteria, KindResumed, KindDuplicate:
		return
	}
	if r.opts.DryRun {
		return
	}
	e := decisionlog.Entry{
		Time:      r.env.Now().UTC(),
		Project:   rep.ProjectDir,
		Host:      string(rep.Event.Host),
		Session:   rep.Event.SessionID,
		Turn:      rep.Event.PromptID,
		Hook:      rep.Hook,
		Event:     rep.Event.HookEventName,
		Tool:      rep.Event.ToolName,
		Mode:      r.mode,
		Decision:  string(rep.Decision.Kind),
		Blocks:    rep.Decision.Blocks,
		MaxBlocks: rep.Decision.MaxBlocks,
		Why:       rep.Why(),
	}
	switch {
	case rep.Verdict.Block:
		e.Reason = rep.Verdict.Reason
	default:
		e.Reason = rep.Verdict.SystemMessage
	}
	for _, o := range r.checkers {
		if !o.ByHook {
			continue
		}
		c := decisionlog.Check{Label: o.Label, Complete: o.Complete, NotRun: o.NotRun, TookMS: o.Took.Milliseconds(), Reused: o.Cached, Fresh: o.Fresh}
		if o.Err != nil {
			c.Error = o.Err.Error()
		}
		e.Checks = append(e.Checks, c)
	}
	if cs := rep.Consent; cs != nil && len(cs.NotRun) > 0 {
		var cmds []string
		for _, c := range cs.NotRun {
			cmds = append(cmds, c.String()+cs.whyNotRun(c))
		}
		e.Why += "; not run for want of consent: " + strings.Join(cmds, "; ")
	}
	if err := decisionlog.Append(r.stateDir(), e); err != nil {
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
		return
	}
	// On its way to the collector, when an export is set (see package
	// otlp): the hook starts the exporter and waits for nothing.
	if err := otlp.Kick(r.stateDir(), r.env.Getenv, r.env.environ); err != nil {
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
	}
}
