package closer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/gate"
	"github.com/donegate/donegate/internal/lastevent"
)

var explainCommand = command{
	name: "explain",
	args: " [--event FILE | --last | --session ID]",
	summary: `Show what a hook would answer to a recorded event, and why.
The event (stdin, or --event FILE) goes through the hook's own code — the
same config lookup, the same block counts read from the state dir — with
nothing written: no count, no cached result. explain prints every
checker's verdict, time and feedback (the hook's chain stops at the first
checker not done; explain runs the rest after it, for the record, and
marks the one the hook reports), then the answer the hook would print and
why. The hook follows from the event's hook_event_name (Stop and
SubagentStop: stop-hook; PreToolUse and PostToolUse: posttooluse-hook;
SessionStart and UserPromptSubmit: stop-hook --criteria, which checks
nothing and tells the agent what will be checked).
As the hook does, explain takes the project dir from $CLAUDE_PROJECT_DIR,
else the event's cwd, unless --dir is given; run it with the environment
the hook had.
The hooks keep the last event of each session (a Stop, a SubagentStop, a
gated tool call; at most 64 KiB) in the session's record in the state dir
(mode 0600): --last explains the most recent one of any session,
--session ID that session's. explain warns when the event's transcript
or cwd does not exist: the checks then see no plan and no project.
Exit 0 when the hook would let the agent stop (or the tool call pass),
1 when it would block.`,
	bind: func(fs *flag.FlagSet, common *options) runFunc {
		var o explainOptions
		explainFlags(fs, common, &o)
		return func(ctx context.Context, r *runCtx) (verdict, error) { return runExplain(ctx, r, o) }
	},
}

// explainOptions are explain's own flags.
type explainOptions struct {
	event, stateDir, dialect, hook, session string
	last                                    bool
}

func explainFlags(fs *flag.FlagSet, common *options, o *explainOptions) {
	fs.StringVar(&o.event, "event", "", "the hook event's JSON `file` (default: stdin)")
	stateDirFlag(fs, &o.stateDir)
	fs.StringVar(&o.dialect, "dialect", "", "answer `dialect`, as the hook's --dialect: claude-code or sdk (overrides the config)")
	fs.BoolVar(&o.last, "last", false, "explain the last event the hooks recorded, of any session (kept in the sessions' records in the state dir)")
	fs.StringVar(&o.session, "session", "", "explain the last event the hooks recorded for session `id`")
	fs.StringVar(&o.hook, "hook", "", "the `hook`, stop-hook or posttooluse-hook (default: from the event's hook_event_name)")
	// The hook has no --dir: it follows $CLAUDE_PROJECT_DIR and the
	// event's cwd, and so does explain unless --dir is given. "" tells
	// the flag left out from "--dir .".
	common.dir = ""
	if f := fs.Lookup("dir"); f != nil {
		f.DefValue = ""
		f.Usage = "the project `dir` instead of the hook's: $CLAUDE_PROJECT_DIR, else the event's cwd"
	}
	if f := fs.Lookup("config"); f != nil {
		f.Usage = "config `file`, as the hook's --config (default: $DONEGATE_CONFIG, $CLAUDE_PROJECT_DIR/.claude/donegate.json, <cwd>/.claude/donegate.json, the embedded default)"
	}
}

func runExplain(ctx context.Context, r *runCtx, o explainOptions) (verdict, error) {
	if o.dialect != "" {
		if _, err := hookio.ParseDialect(o.dialect); err != nil {
			return incomplete, errorf(ErrUsage, "--dialect: %w", err)
		}
	}
	raw, found, err := r.readEvent(o)
	if err != nil {
		return incomplete, err
	}
	hook := o.hook
	switch hook {
	case gate.StopHookName, gate.ToolHookName:
	case "":
		name := hookio.Peek(raw).Event
		if hook = gate.HookFor(name); hook == "" {
			if _, err := hookio.ParseEvent(raw); err != nil {
				return incomplete, errorf(ErrUsage, "event: %w", err)
			}
			return incomplete, errorf(ErrUsage, "no donegate hook answers a %q event; give --hook %s or %s to see what one would do", name, gate.StopHookName, gate.ToolHookName)
		}
	default:
		return incomplete, errorf(ErrUsage, "--hook %q: want %s or %s", hook, gate.StopHookName, gate.ToolHookName)
	}
	opts := gate.Options{ConfigPath: r.opts.configPath, Dialect: o.dialect, StateDir: o.stateDir, DryRun: true, Explain: true, SchemaTold: found.FinalOutput}
	// stop-hook answers these events only as stop-hook --criteria, which
	// is how settings.example.json registers it there.
	opts.Criteria = hook == gate.StopHookName && gate.CriteriaEvent(hookio.Peek(raw).Event)
	if r.opts.dir != "" {
		opts.ProjectDir = r.dir
	}
	if o.last || o.session != "" {
		// The recorded event is replayed against the state dir it was
		// recorded in.
		opts.StateDir = r.stateDirOr(o.stateDir)
	}
	var diag bytes.Buffer
	rep, err := gate.Evaluate(ctx, hook, opts, gate.Env{Getenv: r.env.Getenv, Now: r.env.Now}, raw, &diag)
	if err != nil {
		// The hook would print this line and exit 1: no answer at all.
		return incomplete, errorf(ErrUsage, "%s would answer nothing and exit 1: %w", hook, err)
	}
	v := verdict(!rep.Verdict.Block)
	stderr := lines(diag.String())
	warnings := missingFiles(rep)
	if r.opts.json {
		out := explainJSON(rep, stderr)
		out.Warnings = warnings
		return v, writeJSON(r.stdout, out)
	}
	return v, r.printExplain(rep, stderr, warnings)
}

// stateDirOr is a command's --state-dir, flag, else the hooks' default.
func (r *runCtx) stateDirOr(flag string) string {
	if d := flag; d != "" {
		return d
	}
	return r.stateDir()
}

// missingFiles warns of the event's paths that do not exist here: a
// recorded event from another machine, or one whose session was
// deleted, is checked against nothing, and "no plan" then means nothing.
func missingFiles(rep gate.Report) []string {
	out := []string{}
	ev := rep.Event
	for _, f := range []struct{ what, path string }{
		{"transcript", ev.TranscriptPath},
		{"agent transcript", ev.AgentTranscriptPath},
		{"cwd", ev.Cwd},
	} {
		if f.path == "" {
			continue
		}
		if _, err := os.Stat(f.path); err != nil {
			out = append(out, fmt.Sprintf("%s %s does not exist here: what the checks read of it is missing, and the answer may not be the hook's", f.what, f.path))
		}
	}
	return out
}

// readEvent reads the event from --event or stdin, bounded as the hooks
// bound theirs, or the one the hooks kept, with what they found beside
// it.
func (r *runCtx) readEvent(o explainOptions) ([]byte, lastevent.Found, error) {
	if n := btoi(o.event != "") + btoi(o.last) + btoi(o.session != ""); n > 1 {
		return nil, lastevent.Found{}, errorf(ErrUsage, "--event, --last and --session each name the event: give one")
	}
	if o.last || o.session != "" {
		var rec lastevent.Record
		var err error
		if o.last {
			rec, err = lastevent.Latest(r.stateDirOr(o.stateDir))
		} else {
			rec, err = lastevent.Load(r.stateDirOr(o.stateDir), o.session)
		}
		if errors.Is(err, lastevent.ErrNone) {
			return nil, lastevent.Found{}, errorf(ErrUsage, "%w: the hooks record a session's last Stop, SubagentStop and gated tool call when they run; is --state-dir (or DONEGATE_STATE_DIR) the hooks' own?", err)
		}
		if err != nil {
			return nil, lastevent.Found{}, errorf(ErrEnv, "recorded event: %w", err)
		}
		return rec.Raw, rec.Found, nil
	}
	in := r.env.Stdin
	if f := o.event; f != "" {
		file, err := os.Open(f)
		if err != nil {
			return nil, lastevent.Found{}, errorf(ErrUsage, "--event: %w", err)
		}
		defer file.Close()
		in = file
	}
	if in == nil {
		in = strings.NewReader("")
	}
	raw, err := hookio.ReadAll(in)
	if err != nil {
		return nil, lastevent.Found{}, errorf(ErrUsage, "event: %w", err)
	}
	return raw, lastevent.Found{}, nil
}

func (r *runCtx) printExplain(rep gate.Report, stderr, warnings []string) error {
	p := r.printer()
	ev := rep.Event
	criteria := rep.Decision.Kind == gate.KindCriteria || gate.CriteriaEvent(ev.HookEventName)
	hook := rep.Hook
	if criteria {
		hook += " --criteria"
	}
	head := fmt.Sprintf("%s on %s", hook, ev.HookEventName)
	if ev.ToolName != "" {
		head += " of " + ev.ToolName
	}
	head += ", session " + ev.SessionID
	if ev.PromptID != "" {
		head += ", prompt " + ev.PromptID
	}
	p.line(head)
	for _, w := range warnings {
		p.line(p.paint("33", "warning: ") + w)
	}
	switch {
	case rep.ConfigErr != nil:
		p.line("config: broken: " + oneLine(rep.ConfigErr.Error()))
	case rep.ConfigPath == "":
		p.line("config: the embedded default")
	default:
		p.line("config: " + rep.ConfigPath)
	}
	p.line("project dir: " + rep.ProjectDir)
	p.line("state dir: " + rep.StateDir + " (read, not written)")
	if l := consentLine(rep.Consent); l != "" {
		p.line("consent: " + l)
	}
	if criteria {
		told := "nothing"
		if rep.Criteria != "" {
			told = rep.Criteria
		}
		p.line("The agent would be told (no checker runs): " + told)
	}
	if !criteria && len(rep.Checkers) == 0 && (rep.Decision.Kind == gate.KindComplete || rep.Decision.Kind == gate.KindBlocked && rep.ConfigErr == nil && rep.Decision.Err == nil) {
		p.line("no checker runs at " + ev.HookEventName)
	}
	for _, o := range rep.Checkers {
		title := fmt.Sprintf("%s (%s", o.Label, o.Took.Round(time.Millisecond))
		if o.Cached {
			title += ", cached"
		}
		title += ")"
		switch {
		case o.Reported:
			title += " ← the hook reports this one"
		case !o.ByHook:
			title += " — not run by the hook: its chain stopped before"
		}
		evidence := o.Feedback
		if o.Err != nil {
			evidence = "could not run: " + o.Err.Error()
		}
		p.item(o.Err == nil && o.Complete, title, evidence)
		for _, why := range o.Fresh {
			// Why a command ran rather than its result being reused.
			p.line("    " + p.dim("ran: "+why))
		}
	}
	for _, l := range stderr {
		p.line("the hook would print on stderr: " + l)
	}
	p.line("The hook would answer: " + strings.TrimSpace(string(rep.Answer)))
	for _, n := range rep.ToldAlready {
		// The recorded call's own answer may have carried it.
		p.line("    " + p.dim("left out, told to the person once a session and told already (by this call or an earlier one): "+n))
	}
	p.line("Why: " + rep.Why())
	return p.err
}

// why says in one line what decided the answer.

// explainReport is explain's --json output.
type explainReport struct {
	Hook        string           `json:"hook"`
	Event       string           `json:"event"`
	Tool        string           `json:"tool,omitempty"`
	Session     string           `json:"session"`
	Prompt      string           `json:"prompt,omitempty"`
	Config      string           `json:"config"` // "": the embedded default
	ConfigError string           `json:"configError,omitempty"`
	ProjectDir  string           `json:"projectDir"`
	StateDir    string           `json:"stateDir"`
	Dialect     string           `json:"dialect"`
	Checkers    []explainChecker `json:"checkers"`
	Stderr      []string         `json:"stderr"`
	// Criteria is what stop-hook --criteria tells the agent.
	Criteria string          `json:"criteria,omitempty"`
	Answer   json.RawMessage `json:"answer"`
	Decision explainDecision `json:"decision"`
	Why      string          `json:"why"`
	// Warnings name the event's files that do not exist.
	Warnings []string `json:"warnings"`
	// Consent is what the run found of the person's consent, and what it
	// did not run for want of it; "" when the run did not look.
	Consent string `json:"consent,omitempty"`
	// ToldAlready: see gate.Report.ToldAlready.
	ToldAlready []string `json:"toldAlready,omitempty"`
}

type explainChecker struct {
	Label    string `json:"label"`
	Complete bool   `json:"complete"`
	Feedback string `json:"feedback"`
	Error    string `json:"error,omitempty"`
	TookMS   int64  `json:"tookMs"`
	Cached   bool   `json:"cached"`
	ByHook   bool   `json:"byHook"`
	Reported bool   `json:"reported"`
	// Fresh says why each command it ran was run rather than reused.
	Fresh []string `json:"fresh,omitempty"`
}

type explainDecision struct {
	Kind      string `json:"kind"`
	Block     bool   `json:"block"`
	Limit     string `json:"limit,omitempty"`
	Blocks    int    `json:"blocks"`
	MaxBlocks int    `json:"maxBlocks"`
	Error     string `json:"error,omitempty"`
}

func explainJSON(rep gate.Report, stderr []string) explainReport {
	out := explainReport{
		Hook: rep.Hook, Event: rep.Event.HookEventName, Tool: rep.Event.ToolName,
		Session: rep.Event.SessionID, Prompt: rep.Event.PromptID,
		Config: rep.ConfigPath, ProjectDir: rep.ProjectDir, StateDir: rep.StateDir,
		Dialect: string(rep.Dialect), Checkers: []explainChecker{}, Stderr: stderr,
		Answer: json.RawMessage(bytes.TrimSpace(rep.Answer)), Criteria: rep.Criteria,
		Decision: explainDecision{
			Kind: string(rep.Decision.Kind), Block: rep.Verdict.Block, Limit: rep.Decision.Limit,
			Blocks: rep.Decision.Blocks, MaxBlocks: rep.Decision.MaxBlocks, Error: errText(rep.Decision.Err),
		},
		Why:         rep.Why(),
		Consent:     consentLine(rep.Consent),
		ToldAlready: rep.ToldAlready,
	}
	if rep.ConfigErr != nil {
		out.ConfigError = rep.ConfigErr.Error()
	}
	for _, o := range rep.Checkers {
		out.Checkers = append(out.Checkers, explainChecker{
			Label: o.Label, Complete: o.Complete && o.Err == nil, Feedback: o.Feedback, Error: errText(o.Err),
			TookMS: o.Took.Milliseconds(), Cached: o.Cached, ByHook: o.ByHook, Reported: o.Reported,
			Fresh: o.Fresh,
		})
	}
	return out
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lines splits what the hook would print on stderr into its lines.
func lines(s string) []string {
	out := []string{}
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// consentLine says what a run found of consent, "" when it did not look
// (an ungated tool).
func consentLine(cs *gate.Consent) string {
	if cs == nil {
		return ""
	}
	var parts []string
	switch {
	case cs.RecordErr != nil:
		parts = append(parts, "the recorded consent cannot be used: "+cs.RecordErr.Error())
	case cs.Record == nil:
		parts = append(parts, "none given for "+cs.Project+" (closer allow): nothing of the project runs")
	case cs.Kept:
		allowed := "the embedded default"
		if cs.Record.Config != nil {
			allowed = cs.Record.Config.Path
		}
		parts = append(parts, "the config on disk is not the one allowed; the allowed one ("+allowed+") is checked")
	}
	if len(cs.NotRun) > 0 {
		var cmds []string
		for _, c := range cs.NotRun {
			cmds = append(cmds, c.String()+": "+cs.WhyNotRun(c))
		}
		parts = append(parts, "not run for want of consent: "+strings.Join(cmds, "; "))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("allowed by %s at %s", cs.Record.By, cs.Record.AllowedAt.Format(time.RFC3339))
	}
	return strings.Join(parts, "; ")
}

// stateDirFlag registers --state-dir, as the hooks take it, into dir.
func stateDirFlag(fs *flag.FlagSet, dir *string) {
	fs.StringVar(dir, "state-dir", "", "the hooks' state `dir`, as their --state-dir (default: $DONEGATE_STATE_DIR, %LOCALAPPDATA%\\donegate on Windows, $XDG_STATE_HOME/donegate, ~/.local/state/donegate)")
}
