package gate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/lastevent"
	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/transcript"
)

// The hooks' names, as Evaluate takes them.
const (
	StopHookName = hookio.StopHookProgram
	ToolHookName = hookio.ToolHookProgram
)

// HookFor names the hook registered for an event (hookio.Entries): ""
// for an event no donegate hook answers.
func HookFor(eventName string) string { return hookio.ProgramFor(eventName) }

// CriteriaEvent reports whether stop-hook --criteria answers events named
// eventName (and stop-hook without it does not): hookio.Entries.
func CriteriaEvent(eventName string) bool { return hookio.CriteriaAt(eventName) }

// Kind is what decided a run's answer.
type Kind string

// Kinds of decision.
const (
	KindComplete     Kind = "complete"      // the chain passed
	KindBlocked      Kind = "blocked"       // open work, within the limits
	KindLetGo        Kind = "let through"   // open work, but a limit is spent
	KindNotGated     Kind = "not gated"     // a tool the config does not gate
	KindNotDeclared  Kind = "not declared"  // a gated call that declares no completion (completion_signal)
	KindGuarded      Kind = "guarded"       // inside donegate's own check of the session
	KindConfigBroken Kind = "config broken" // no config, on_error allow
	KindCheckFailed  Kind = "check failed"  // a checker could not run, on_error allow
	KindStateFailed  Kind = "state failed"  // the block count could not be kept
	KindCriteria     Kind = "criteria"      // stop-hook --criteria: told, nothing checked
	KindStarted      Kind = "started"       // stop-hook --start: checks started for the stop, nothing decided
	KindDuplicate    Kind = "duplicate"     // a stop another donegate entry answers (Cursor), or a later event (Copilot)
	KindUnchecked    Kind = "unchecked"     // a stop the host's event says not to check (Event.Unchecked)
	KindResumed      Kind = "turn resumed"  // stop-hook --criteria at a prompt event of a turn going on (Qwen): told at its start
	KindWaiting      Kind = "waiting"       // a stop while the agent's own background work runs: the stop after it ends is checked
	KindOff          Kind = "off"           // mode off: nothing checked
	KindReleased     Kind = "released"      // the person released the turn (closer release)
	KindObserved     Kind = "observed"      // observe mode: open work found, the agent let go all the same
	KindSignalled    Kind = "signalled"     // a signal stopped the hook while a check ran: nothing held
	KindRefused      Kind = "refused"       // the agent's shell or edit call would loosen its gate: denied, or asked of the person
)

// Decision says why a run answered as it did.
type Decision struct {
	Kind Kind
	// Limit is, for KindLetGo, the limit that let the agent go
	// ("max_blocks" or "deadline"), and Why its words for it; for
	// KindNotDeclared, Why names the completion_signal that did not hold;
	// for KindDuplicate, where the stop is answered; for KindUnchecked,
	// why it is not checked.
	Limit, Why string
	// Blocks is the gate's count of continuations after this run
	// (KindBlocked: this one included); MaxBlocks is limits.max_blocks.
	Blocks, MaxBlocks int
	// Err is the config, checker or state error behind the answer; with
	// KindBlocked, the error that on_error "block" blocks on.
	Err error
	// SetAside are the checks of the project's state that did not run:
	// the session's agent had changed nothing since it began.
	SetAside []string
	// Flaky are the test commands that failed and then passed, as the
	// person is told.
	Flaky []string
}

// Outcome is one top-level checker's part in a run (Options.Explain).
type Outcome struct {
	Label    string
	Complete bool
	Feedback string
	Err      error
	Took     time.Duration
	// Cached is true when the result was reused from the result cache;
	// Fresh says why each command it ran was run rather than reused.
	Cached bool
	Fresh  []string
	// NotRun: it did not run for want of the person's consent.
	NotRun bool
	// ByHook is false for a checker the hook's chain stopped before (it
	// stops at the first that is not done): explain ran it afterwards,
	// for the record, with what was left of the budget.
	ByHook bool
	// Reported marks the checker whose result the hook's chain answered
	// with; none when the chain passed.
	Reported bool
}

// Report is everything a run decided; the hooks print Answer, closer
// explain all of it.
type Report struct {
	Hook       string
	Event      *hookio.Event // with its paths expanded
	ProjectDir string
	StateDir   string
	// ConfigPath is the config file used, "" for the embedded default;
	// found only with Options.Explain.
	ConfigPath string
	ConfigErr  error
	Dialect    hookio.Dialect
	Verdict    hookio.Verdict
	// Answer is exactly what the hook prints on stdout.
	Answer   []byte
	Decision Decision
	// Result is what the chain found (zero when it did not run).
	Result checkers.Result
	// Checkers are the top-level checkers' outcomes (Options.Explain).
	Checkers []Outcome
	// Criteria is what stop-hook --criteria tells the agent ("" for
	// nothing; see checkers.Criteria).
	Criteria string
	// Consent is what was found of the person's consent to run the
	// project's commands, and what was not run for want of it; nil when
	// the run did not get that far (an ungated tool).
	Consent *Consent
	// ToldAlready are the notices told to the person once a session (a
	// config's warnings, the consent notice, the mode) that this answer
	// leaves out, told already: at the call explained or an earlier one
	// of its session (Options.Explain).
	ToldAlready []string
}

// Evaluate decides the answer of hook (StopHookName or ToolHookName) to
// the event raw, as read from stdin: the one place that does, for the
// hooks and for closer explain. Diagnostics go to stderr, one line each,
// as the hook prints them. An error means no answer: the event cannot be
// read or is not one hook answers.
func Evaluate(ctx context.Context, hook string, opts Options, env Env, raw []byte, stderr io.Writer) (Report, error) {
	ev, err := hookio.Parse(raw, detectHost(opts, env, raw))
	if err != nil {
		return Report{}, err
	}
	ev.SchemaTold = opts.SchemaTold
	path, reason, err := route(hook, opts, ev)
	switch {
	case err != nil:
		return Report{}, err
	case path == pathStart:
		return start(ctx, hook, opts, env, ev, raw, stderr)
	case path == pathCriteria:
		return criteria(hook, opts, env, ev, stderr)
	}
	r := newRun(hook, opts, env, ev, stderr)
	r.raw = raw
	if r.modeEnv == config.ModeOff {
		// The person's switch: answered at once, nothing read.
		rep := Report{Hook: hook, Event: r.event, ProjectDir: r.projectDir(), StateDir: r.stateDir(), Dialect: r.dialect(nil), Decision: Decision{Kind: KindOff, Why: ModeEnv + "=off"}}
		return rep, rep.write()
	}
	if hook == ToolHookName {
		if rep, refused, err := r.refuse(); refused {
			return rep, err
		}
	}
	c, file, err := r.loadConfig()
	rep := Report{Hook: hook, Event: r.event, ProjectDir: r.projectDir(), StateDir: r.stateDir()}
	if opts.Explain {
		rep.ConfigPath, _ = config.Find(lookup(r.opts, r.env, r.event.Cwd))
	}
	// Ungated tools pass at once, whatever the config: the consent record
	// is read only for a tool the config on disk gates, or one gated by
	// default, which an edited config may have dropped. A run of the
	// agent's shell tool is noted first (see recordAgentRun): it needs the
	// config on disk, not consent, since it runs nothing.
	if hook == ToolHookName && !gates(c, err, ev.ToolName) && !slices.Contains(config.DefaultGateTools, ev.ToolName) {
		if r.settleMode(c); err == nil && r.mode != config.ModeOff {
			r.recordAgentRun(ctx, c)
		}
		rep.ConfigErr, rep.Dialect, rep.Decision = err, r.dialect(c), Decision{Kind: KindNotGated}
		return rep, rep.write()
	}
	c, r.consent, err = r.resolveConsent(c, file, err)
	rep.ConfigErr, rep.Consent = err, r.consent
	if hook == ToolHookName && !gates(c, err, ev.ToolName) {
		rep.Dialect, rep.Decision = r.dialect(c), Decision{Kind: KindNotGated}
		return rep, rep.write()
	}
	if reason == checkers.ReasonStop && err == nil && slices.Contains(c.GateTools, structuredOutputTool) {
		if r.event.FinalOutput() != nil {
			// A host that hands the agent's final output in at its stop
			// (codex exec --output-schema: the last message) has no tool
			// call to gate: the output is checked as a gated call's is
			// (the tool_use chain, completion_signal, output and claims),
			// and answered as the stop it is.
			reason = checkers.ReasonToolUse
		}
	}
	rep.Dialect, rep.Verdict, rep.Result, rep.Decision = r.evaluate(ctx, reason, c, err)
	if opts.Explain {
		rep.Checkers, rep.ToldAlready = r.checkers, r.toldAlready
	}
	// What the answer's form depends on and the host writes after the
	// event (Claude Code's version, in its transcript) is waited for at
	// the first hold of a count only: at a later one it is written, or
	// never will be (a session the host keeps no transcript of), and a
	// wait for it would cost every hold.
	wait := transcript.Wait{}
	if rep.Decision.Kind == KindBlocked && rep.Decision.Blocks == 1 {
		wait = checkers.TranscriptWait
	}
	hookio.SettleAnswer(ctx, rep.Event, rep.Dialect, rep.Verdict, wait)
	if err := rep.write(); err != nil {
		return rep, err
	}
	r.logDecision(&rep)
	return rep, nil
}

// hookPath is how a hook answers an event: checked (the stop's or the
// tool call's checks), or by stop-hook --start's or --criteria's own path.
type hookPath int

const (
	pathCheck hookPath = iota
	pathStart
	pathCriteria
)

// route says how hook, run with opts, answers ev, and for a check its
// stop reason; an error where hook answers no such event, saying which
// entry does.
func route(hook string, opts Options, ev *hookio.Event) (hookPath, checkers.StopReason, error) {
	names := ev.Host.EventNames()
	switch {
	case hook == StopHookName && opts.Criteria && opts.Start:
		return 0, "", errors.New("--criteria and --start: register each for its own events")
	case hook == StopHookName && opts.Start:
		if ev.HookEventName != hookio.EventPostToolUse {
			return 0, "", fmt.Errorf("got a %s event; register stop-hook --start after the edit tools (PostToolUse), to run in the background", ev.WireEventName)
		}
		return pathStart, "", nil
	case hook == StopHookName && opts.Criteria:
		if !CriteriaEvent(ev.HookEventName) {
			return 0, "", fmt.Errorf("got a %s event; register stop-hook --criteria for %s only", ev.WireEventName, names.Criteria)
		}
		return pathCriteria, "", nil
	case hook == StopHookName:
		if CriteriaEvent(ev.HookEventName) {
			// Most likely an entry that lost its flag: say which one
			// answers this event rather than only where this one belongs.
			return 0, "", fmt.Errorf("got a %s event without --criteria; register stop-hook --criteria for %s, stop-hook for %s", ev.WireEventName, names.Criteria, names.Stop)
		}
		if !ev.IsStop() {
			return 0, "", fmt.Errorf("got a %s event; register stop-hook for %s only", ev.WireEventName, names.Stop)
		}
		if ev.HookEventName == hookio.EventSubagentStop {
			return pathCheck, checkers.ReasonSubagentStop, nil
		}
		return pathCheck, checkers.ReasonStop, nil
	case hook == ToolHookName:
		if ev.HookEventName != hookio.EventPreToolUse && ev.HookEventName != hookio.EventPostToolUse {
			return 0, "", fmt.Errorf("got a %s event; register posttooluse-hook for %s only", ev.WireEventName, names.Tool)
		}
		return pathCheck, checkers.ReasonToolUse, nil
	default:
		return 0, "", fmt.Errorf("no hook named %q (%s or %s)", hook, StopHookName, ToolHookName)
	}
}

// gates reports whether the config (c, or the error loading it gave)
// gates tool. A broken config cannot say which tools it gates, so then
// only the default ones are: denying every tool (Write included, the one
// the agent needs to fix the config) would trap the agent.
func gates(c *config.Config, err error, tool string) bool {
	gated := config.DefaultGateTools
	if err == nil {
		gated = c.GateTools
	}
	return slices.Contains(gated, tool)
}

// structuredOutputTool is Claude Code's tool for a final structured
// answer; a config that gates it gates a Codex agent's final JSON message
// too (see hookio.Event.FinalOutput).
const structuredOutputTool = "StructuredOutput"

// write renders the answer.
func (rep *Report) write() error {
	var b bytes.Buffer
	if err := hookio.WriteHostAnswer(&b, rep.Event, rep.Dialect, rep.Verdict); err != nil {
		return err
	}
	rep.Answer = b.Bytes()
	return nil
}

// evaluate checks and decides with the config the run loaded (c, or the
// error that loading it gave).
func (r *run) evaluate(ctx context.Context, reason checkers.StopReason, c *config.Config, err error) (hookio.Dialect, hookio.Verdict, checkers.Result, Decision) {
	f := r.eventFacts(reason == checkers.ReasonToolUse, c, err)
	d, check, needSession := decideBefore(f)
	if needSession {
		r.sessionFacts(&f)
		d, check, _ = decideBefore(f)
	}
	if !check {
		if d.Kind == KindNotDeclared && r.event.ToolInput == nil {
			// A Codex agent's final JSON comes at Stop, and no event follows
			// it to be kept instead (after Claude Code's StructuredOutput
			// call a Stop does): kept, or closer explain --last, where a
			// Codex user learns why the agent was let go, would replay an
			// older event or none.
			r.keepEvent()
		}
		return r.dialect(c), r.answerBefore(d, f), checkers.Result{}, d
	}
	r.hostTurn()
	if err != nil {
		if !config.BlockOnError(err) {
			return r.dialect(nil), r.configFailure(err), checkers.Result{}, Decision{Kind: KindConfigBroken, Err: err}
		}
		fallback := config.Default()
		fallback.OnError = "block"
		v, d := r.decide(fallback, checkers.Result{}, err)
		if r.mode == config.ModeObserve {
			v, d = observed(v, d)
		}
		return r.dialect(nil), v, checkers.Result{}, d
	}
	res, err := r.check(ctx, c, reason)
	if proc.Stopped() {
		// The host stopped the hook (its hook timeout) or the person
		// pressed ^C while a check ran: nothing found since is the
		// work's, and a stop the person ends holds nobody.
		fmt.Fprintf(r.stderr, "%s: stopped by a signal (the host's hook timeout, or ^C) while a check ran: holding nothing, counting nothing\n", r.name)
		return r.dialect(c), hookio.Verdict{SystemMessage: "donegate was stopped by a signal before its checks ended, so it holds nothing"}, res, Decision{Kind: KindSignalled}
	}
	v, d := r.decide(c, res, err)
	if r.mode == config.ModeObserve {
		v, d = observed(v, d)
	}
	d.SetAside = r.setAside
	for _, f := range r.flaky {
		// Each is news: told every time it happens.
		msg := "donegate: " + f.String()
		fmt.Fprintf(r.stderr, "%s: %s\n", r.name, msg)
		v.SystemMessage = strings.TrimSpace(v.SystemMessage + "\n" + msg)
		d.Flaky = append(d.Flaky, f.String())
	}
	// Told where the person looks: once a session in the answer, on
	// stderr (the host's log) every time.
	for _, n := range []struct{ topic, notice string }{
		{"config", strings.Join(c.Warnings, "; ")},
		{"consent", r.consent.notice()},
		{"mode", r.modeNotice},
	} {
		if n.notice == "" {
			continue
		}
		fmt.Fprintf(r.stderr, "%s: %s\n", r.name, n.notice)
		if r.tellOnce(n.topic, n.notice) {
			v.SystemMessage = strings.TrimSpace(v.SystemMessage + "\n" + n.notice)
		} else {
			r.toldAlready = append(r.toldAlready, n.notice)
		}
	}
	return r.dialect(c), v, res, d
}

// structuredOutput is what the agent hands in as its final answer: the
// gated tool call's input, or a Codex agent's final JSON message.
func (r *run) structuredOutput() []byte {
	if r.event.ToolInput != nil {
		return r.event.ToolInput
	}
	return r.event.FinalOutput()
}

// declaresCompletion reports whether any condition of the config's
// completion_signal holds on the gated tool's input.
func declaresCompletion(signal []config.Condition, input []byte) bool {
	for i := range signal {
		if ok, _ := signal[i].Holds(input); ok {
			return true
		}
	}
	return false
}

// explainCheck runs chain as check does, recording each top-level
// checker's outcome, then runs those the chain stopped before, so that
// explain shows every checker and which one the hook reported. The
// answer is the chain's own: nothing here decides.
func (r *run) explainCheck(ctx context.Context, chain checkers.Checker, cc *checkers.Context) (checkers.Result, error) {
	comp, ok := chain.(checkers.Composite)
	if !ok {
		// checkers.FromConfig builds a composite; should that change,
		// the answer stays right and only the detail is lost.
		return chain.Check(ctx, cc)
	}
	watched, out := watch(comp)
	res, err := watched.Check(ctx, cc)
	// What the hook's own chain kept from running, not what runs below
	// for the record: the person is told of that alone.
	r.consent.NotRun = cc.NotRun()
	r.flaky = cc.Flakies()
	if err != nil || !res.Complete {
		// The chain (mode all, in order) answers with the first member
		// that is not done, or that it did not get to run at all.
		for i := range out {
			if o := out[i]; !o.ByHook || o.Err != nil || !o.Complete {
				out[i].Reported = true
				break
			}
		}
	}
	for i, m := range comp.Members {
		if out[i].ByHook {
			continue
		}
		if e := ctx.Err(); e != nil {
			out[i].Err = fmt.Errorf("not run: %w", e)
			continue
		}
		record(ctx, cc, m.Checker, &out[i])
	}
	r.checkers = out
	return res, err
}

// recorder records its checker's outcome when the chain runs it.
type recorder struct {
	checkers.Checker
	out *Outcome
}

func (rc recorder) Check(ctx context.Context, cc *checkers.Context) (checkers.Result, error) {
	res, err := record(ctx, cc, rc.Checker, rc.out)
	rc.out.ByHook = true
	return res, err
}

func record(ctx context.Context, cc *checkers.Context, ch checkers.Checker, out *Outcome) (checkers.Result, error) {
	reused, start := cc.Reused(), time.Now()
	_, fresh := cc.Fresh(0)
	res, err := checkers.Run(ctx, ch, cc)
	out.Took = time.Since(start)
	out.Complete, out.Feedback, out.Err, out.NotRun = res.Complete, res.Feedback, err, res.NotRun
	out.Cached = cc.Reused() > reused
	out.Fresh, _ = cc.Fresh(fresh)
	return res, err
}

// watch wraps the members of chain, a composite, so that each records its
// outcome when the chain runs it; out holds them, in the members' order.
// Another checker is returned as it is, with no outcomes.
func watch(chain checkers.Checker) (watched checkers.Checker, out []Outcome) {
	comp, ok := chain.(checkers.Composite)
	if !ok {
		return chain, nil
	}
	out = make([]Outcome, len(comp.Members))
	w := comp
	w.Members = make([]checkers.Member, len(comp.Members))
	for i, m := range comp.Members {
		out[i].Label = m.Label
		w.Members[i] = checkers.Member{Label: m.Label, Checker: recorder{m.Checker, &out[i]}}
	}
	return w, out
}

// keepEvent keeps the event as the session's last (closer explain
// --last, closer release), before the checks run: a person may release
// the turn while they do. An ungated or undeclared tool call, which
// checks nothing, keeps nothing; the Stop that follows it is kept. The
// event goes into the session's record, which the run reads anyway: read
// under the lock to keep it, the record is also the one the run found
// (see session), one file opened for both. A failure costs only the
// record: it is told on stderr (once: the count's update meets it too),
// and the hook answers as it decides.
func (r *run) keepEvent() {
	if r.event.SessionID == "" {
		return
	}
	if r.opts.DryRun {
		// What the stop would find of consent, nothing written.
		if s, err := r.session(); err == nil {
			r.consent.lostIn(s, false)
		}
		return
	}
	var found *state.Session
	err := state.Store{Dir: r.stateDir()}.Update(r.event.SessionID, func(s *state.Session) error {
		found = s
		r.consent.lostIn(s, true)
		return lastevent.Keep(s, r.raw, r.env.Now(), lastevent.Found{Project: r.consent.project(r), FinalOutput: r.event.FinalOutput() != nil})
	})
	if err != nil {
		r.recordFailed(err)
		return
	}
	r.found(found)
}
