package hookio

import (
	"context"
	"fmt"
	"github.com/donegate/donegate/internal/paths"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/transcript"
)

// Host is the agent host whose hook sent an event: it decides how the
// event is read and how the answer is written. Everything past hookio
// sees one normalised Event whatever the host, and asks Host only for
// what lives in the host's own files (where the plan is kept, say).
type Host string

// The hosts donegate answers. The Claude Agent SDK runs Claude Code and
// sends its events unchanged: it is HostClaude.
const (
	HostClaude  Host = "claude"
	HostCodex   Host = "codex"
	HostQwen    Host = "qwen"
	HostGemini  Host = "gemini"
	HostCopilot Host = "copilot"
	HostCursor  Host = "cursor"
	// HostVSCode is GitHub Copilot's agent in VS Code, which runs the
	// hooks of .claude/settings.json and .github/hooks/*.json with events
	// of its own shape (from its docs: no VS Code runs here).
	HostVSCode Host = "vscode"
	// HostOpenCode is OpenCode, through donegate's OpenCode plugin (see
	// readOpenCode): it has no hooks of its own that could hold an agent.
	HostOpenCode Host = "opencode"
	// HostKilo is the Kilo CLI, an OpenCode fork, through the same plugin
	// (see kilo.go).
	HostKilo Host = "kilo"
	// HostPi is pi, through donegate's extension for pi (see pi.go).
	HostPi Host = "pi"
	// HostDroid is Factory Droid (see droid.go).
	HostDroid Host = "droid"
	// HostCline is the Cline CLI, through donegate's Cline hook (see
	// cline.go).
	HostCline Host = "cline"
	// HostQoder is the Qoder CLI, by contract (see qoder.go).
	HostQoder Host = "qoder"
	// HostGoose is Goose, by contract (see goose.go).
	HostGoose Host = "goose"
	// HostAmp is Amp, through donegate's plugin for Amp (see amp.go).
	HostAmp Host = "amp"
)

// Hosts lists every host, in the order docs and errors name them.
var Hosts = []Host{HostClaude, HostCodex, HostQwen, HostGemini, HostCopilot, HostCursor, HostVSCode, HostOpenCode, HostKilo, HostPi, HostDroid, HostCline, HostQoder, HostGoose, HostAmp}

// ParseHost accepts a host's name as flags and closer take it.
func ParseHost(s string) (Host, error) {
	for _, h := range Hosts {
		if string(h) == s {
			return h, nil
		}
	}
	names := make([]string, len(Hosts))
	for i, h := range Hosts {
		names[i] = string(h)
	}
	return "", fmt.Errorf("unknown host %q (valid: %s)", s, strings.Join(names, ", "))
}

// Title is the host's name as its users know it, for messages.
func (h Host) Title() string {
	if s, ok := hostSpecs[h]; ok {
		return s.title
	}
	return string(h)
}

// EventNames are the names a host gives the events each donegate hook
// answers, for the messages that say where to register it.
type EventNames struct {
	Stop     string // stop-hook's
	Criteria string // stop-hook --criteria's
	Tool     string // posttooluse-hook's
}

// ShellTool is the host's shell tool whose passing runs its PostToolUse
// tells (see Event.ShellRunPassed); "" where the host's tool results do
// not say how a command ended.
func (h Host) ShellTool() string { return h.spec().shellTool }

// AgentShellMarker reports which host's agent shell an environment
// (getenv) belongs to, and the marker found ("CLAUDECODE=1"): a process
// the agent runs through its shell tool inherits it. A marker proves
// nothing of the person: a command the person runs through the host's
// own shell escape (Claude Code's !cmd) carries it too.
func AgentShellMarker(getenv func(string) string) (Host, string, bool) {
	for _, h := range Hosts {
		for _, m := range h.spec().shellMarkers {
			name, value, exact := strings.Cut(m, "=")
			if v := getenv(name); v != "" && (!exact || v == value) {
				return h, name + "=" + v, true
			}
		}
	}
	return "", "", false
}

// EditedPaths name the files the event's edit tool call writes (at
// PreToolUse) or wrote (at PostToolUse), as its input gives them
// (absolute, or relative to the event's cwd): one, or for a patch tool
// (Codex's apply_patch) each file it adds, updates, deletes or moves to;
// nil for another event or tool, or a host whose edit tools are not read.
func (e *Event) EditedPaths() []string {
	if e == nil || (e.HookEventName != EventPreToolUse && e.HookEventName != EventPostToolUse) || e.Host.spec().editedPaths == nil {
		return nil
	}
	return e.Host.spec().editedPaths(e)
}

// GuardedTool reports whether the guard reads calls of tool: the host's
// shell tool and its edit tools, where it GuardsTools.
func (h Host) GuardedTool(tool string) bool {
	s := h.spec()
	return s.guardsTools && tool != "" && (tool == s.shellTool || slices.Contains(s.editTools, tool))
}

// SettingsFiles are the host's settings files that an agent's edit could
// loosen its gate through — where its hooks are registered, and where an
// "env" reaches them — in the project (project is its dir) and the
// user's; the guard asks the person before such an edit.
func (h Host) SettingsFiles(project string, getenv paths.Getenv, transcriptPath string) (inProject, user []string) {
	if f := h.spec().settingsFiles; f != nil {
		return f(project, getenv, transcriptPath)
	}
	return nil, nil
}

// PluginDirs are the dirs whose every file the host loads as a plugin of
// code that runs inside it, beside donegate's own (OpenCode's and Kilo's
// plugin dirs), in the project (project is its dir) and the user's: the
// guard asks the person before a file there is written, since such a
// plugin could change what donegate's sees or runs.
func (h Host) PluginDirs(project string, getenv paths.Getenv) []string {
	if f := h.spec().pluginDirs; f != nil {
		return f(project, getenv)
	}
	return nil
}

// inputString is an editedPaths that reads the string field of a tool's
// input that names the file it writes.
func inputString(field string) func(e *Event) []string {
	return func(e *Event) []string { return nonEmpty(gjson.GetBytes(e.ToolInput, field).Str) }
}

// nonEmpty is p alone, or nil for "".
func nonEmpty(p string) []string {
	if p == "" {
		return nil
	}
	return []string{p}
}

// GuardedTools are the tools the guard reads calls of, the shell tool
// first: a PreToolUse matcher's alternatives.
func (h Host) GuardedTools() []string {
	s := h.spec()
	if !s.guardsTools {
		return nil
	}
	return append([]string{s.shellTool}, s.editTools...)
}

// EditTools are the host's tools that write files; nil where they are
// not read.
func (h Host) EditTools() []string { return h.spec().editTools }

// GuardsTools reports whether the host lets posttooluse-hook refuse, at
// PreToolUse, a call of the agent's shell or edit tools (see gate's
// guard): its deny stops the call, and its tools' inputs are read.
func (h Host) GuardsTools() bool { return h.spec().guardsTools }

// PromptMidTurn reports whether a message the person types while the
// agent works reaches stop-hook --criteria at once, with the running
// turn's id: the person's way to release a held turn there (see gate's
// ReleasePhrase).
func (h Host) PromptMidTurn() bool { return h.spec().promptMidTurn }

// ProjectEnvFiles are the settings files of a project, relative to its
// dir, whose "env" object some host puts in its hooks' environment (Claude
// Code's .claude/settings.json and .claude/settings.local.json, which VS
// Code's agent loads too): a variable set there is the project's, and so
// the agent's, not the person's.
func ProjectEnvFiles() []string {
	var out []string
	for _, h := range Hosts {
		for _, f := range h.spec().projectEnvFiles {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// TurnTelemetryKey is the attribute under which the host's own
// OpenTelemetry export names the turn that Event.PromptID names
// ("prompt.id" for Claude Code, whose hook prompt_id is its telemetry's
// prompt.id), so that a decision exported beside it joins its turn; ""
// where none is known.
func (h Host) TurnTelemetryKey() string { return h.spec().turnTelemetryKey }

// HidesOTEL reports whether the host removes OpenTelemetry's OTEL_*
// variables from its hooks' environment (measured with the real client),
// so that the hooks export only to an endpoint donegate's own settings
// name.
func (h Host) HidesOTEL() bool { return h.spec().hidesOTEL }

// EventNames are the host's names of the events each hook answers.
func (h Host) EventNames() EventNames { return h.spec().names }

// hostSpec is what one host's file (claude.go, codex.go, ...) says of
// it: everything hookio does differently for that host. DetectHost,
// which tells the hosts apart, is the one place that names them all.
type hostSpec struct {
	title string
	// sessions: see Host.RecordedSessions; nil where donegate reads no
	// record of the host's sessions.
	sessions *sessionRecords
	names    EventNames
	// shellTool: see Host.ShellTool; shellCommand reads what a call of
	// it runs (see Event.ShellCommand), nil for its input's "command".
	shellTool    string
	shellCommand func(e *Event) string
	// roles are the entries of Entries the host registers in its hook
	// files (see Host.Entries); nil where it has none (a plugin host,
	// or one that runs another host's). wireNames are its names of
	// Claude Code's events, where they differ; joinsGuard: one guard
	// entry matches its shell and edit tools together; noMatchers: its
	// entries match no tools (every tool call runs a tool entry).
	roles      []Role
	wireNames  map[string]string
	joinsGuard bool
	noMatchers bool
	// editTools are the host's tools that write files, and editedPaths
	// names the file a call of one writes (see Event.EditedPath); nil
	// where the host's edit tools are not read.
	editTools   []string
	editedPaths func(e *Event) []string
	// guardsTools: a PreToolUse deny (and "ask") stops the call, and its
	// shell and edit tools are read (see Host.GuardsTools).
	guardsTools bool
	// cannotAsk: the host does not honour a PreToolUse "ask" (it runs the
	// call, or waits for ever), so what the guard would ask is denied,
	// saying why (see noAsk).
	cannotAsk bool
	// pluginDirs: see Host.PluginDirs; nil for a host with no plugins of
	// code.
	pluginDirs func(project string, getenv paths.Getenv) []string
	// settingsFiles: see Host.SettingsFiles; nil where the guard does
	// not read the host's edits.
	settingsFiles func(project string, getenv paths.Getenv, transcriptPath string) (inProject, user []string)
	// turnTelemetryKey: see Host.TurnTelemetryKey; hidesOTEL: see
	// Host.HidesOTEL.
	turnTelemetryKey string
	hidesOTEL        bool
	// promptMidTurn: a message the person types while the agent works
	// fires the host's prompt event at once, with the running turn's id
	// (see Host.PromptMidTurn).
	promptMidTurn bool
	// projectEnvFiles are the project's settings files, relative to its
	// dir, whose "env" object the host puts in its hooks' environment:
	// files the agent can write (see ProjectEnvFiles).
	projectEnvFiles []string
	// shellMarkers are the variables that the host sets in the
	// environment of its agent's shell tool (and of what it runs),
	// measured with the real client (see AgentShellMarker): NAME=VALUE,
	// or NAME alone for one set to any value.
	shellMarkers []string
	// peekEvent names the top-level field that names the event, where
	// tool_name and cwd are top-level too: Peek reads three fields and
	// decodes nothing. "": Peek decodes the event.
	peekEvent string
	read      func(e *Event, root gjson.Result) error
	// write answers an event; where it is nil, shape says what the
	// answer holds (reason: the verdict's, never empty; context: the
	// verdict's, cleaned), and the person sees the verdict's
	// systemMessage where showsSystemMessage.
	write func(w io.Writer, ev *Event, d Dialect, v Verdict) error
	// settle reads, waiting for a lagging transcript as wait allows, what
	// write's answer depends on and the event does not carry (see
	// SettleAnswer).
	settle             func(ctx context.Context, ev *Event, d Dialect, v Verdict, wait transcript.Wait)
	shape              func(ev *Event, v Verdict, reason, context string) (hostAnswer, error)
	showsSystemMessage bool

	// planTool: see Host.PlanTool.
	planTool string
	// finalOutput: see Event.FinalOutput; nil: the host hands in no
	// structured output at a stop.
	finalOutput func(e *Event) []byte
	// plan reads the agent's plan (see Event.ReadPlan): noPlan where
	// donegate cannot read it. noPlanNote says, where no plan was found, why none
	// is an ordinary state there ("" for the host's usual words).
	plan       func(ctx context.Context, e *Event, q PlanQuery) (Plan, error)
	noPlanNote string

	// turn names the turn of a stop whose event names none (see
	// Event.Turn), and held keeps at a hold what turn needs later; nil
	// where the host names its turns, or nothing tells them.
	turn func(e *Event, m Memo) (string, error)
	held func(e *Event, m Memo, reason string)
	// stopKey names one stop of a host that runs several donegate
	// entries for it (see Event.StopKey); nil: every run is its own stop.
	stopKey func(e *Event) string

	// afterPersonsPrompt, where the host does not say it by
	// stop_hook_active (see Event.AfterPersonsPrompt); resumesTurn: a
	// UserPromptSubmit that is the host going on with a turn (see
	// Event.ResumesTurn); subagentsOwnStop: a SubagentStop the host
	// ignores a block of (see Event.SubagentsOwnStop); shellRunPassed:
	// whether its shell tool's result says the command ran to the end
	// and passed, nil where its results are not read (see
	// Event.ShellRunPassed).
	afterPersonsPrompt func(e *Event) (person, known bool)
	resumesTurn        func(e *Event) bool
	subagentsOwnStop   func(e *Event) bool
	shellRunPassed     func(resp gjson.Result) bool

	// What the decision needs to know of the host (see the Host methods
	// of the same names).
	hookDeadline          time.Duration
	transcriptHasTexts    bool
	runsHooksInBackground bool
	promptTakesNoContext  bool
	turnFromStart         bool
}

// FinalOutput returns the structured output the agent hands in at its
// stop, where its host hands one in then (Codex: see codex.go); nil
// otherwise, and for any other event. A host's gated tool call carries
// its output in ToolInput instead.
func (e *Event) FinalOutput() []byte {
	if e == nil || e.HookEventName != EventStop {
		return nil
	}
	if final := e.Host.spec().finalOutput; final != nil {
		return final(e)
	}
	return nil
}

// Turn names the turn of a stop whose event names none (PromptID ""),
// where its host's own records tell it (Gemini CLI: the chat record of
// the turn's prompt), with what m kept of the session's holds (see
// KeepHeld); "" where nothing tells it, and the blocks are counted per
// session. An error says why it could not be told; the id may still be
// what m kept.
func (e *Event) Turn(m Memo) (string, error) {
	if !e.IsStop() || e.PromptID != "" {
		return e.PromptID, nil
	}
	if turn := e.Host.spec().turn; turn != nil {
		return turn(e, m)
	}
	return "", nil
}

// KeepHeld records in m, at a hold of a stop, what a later Turn needs to
// tell the turn again (the reason given, which some hosts send back as
// if the person wrote it); nothing for a host that names its turns.
func (e *Event) KeepHeld(m Memo, reason string) {
	if held := e.Host.spec().held; held != nil && e.IsStop() && e.PromptID != "" {
		held(e, m, reason)
	}
}

// StopKey names this very stop where the host runs every matching hook
// entry of a stop at once (Cursor: those of .cursor/hooks.json and of
// .claude/settings.json, each with the same payload), so that one run
// answers it and the others stand aside; "" where each run is a stop of
// its own.
func (e *Event) StopKey() string {
	if key := e.Host.spec().stopKey; key != nil && e.IsStop() {
		return key(e)
	}
	return ""
}

// NoPlanNote says why the host's agent may have no plan, where a plan
// tool call is not the whole story (Copilot: its sql tool serves other
// tables too); "" where the host's plan tool says it.
func (h Host) NoPlanNote() string { return h.spec().noPlanNote }

// PlanTool is the tool the host's agent keeps its plan with, as the
// feedback names it ("update the plan with update_plan"); "" for Claude
// Code, whose agents know theirs (TodoWrite or the Task tools), and for a
// host whose plan donegate does not read.
func (h Host) PlanTool() string { return h.spec().planTool }

// HookDeadline is how long the host waits for a hook's answer whatever
// the entry's timeout; 0 where it waits for the timeout (or none is
// known). A stop's checks must end well before it.
func (h Host) HookDeadline() time.Duration { return h.spec().hookDeadline }

// TranscriptHasTexts reports whether the event's transcript is one whose
// texts package transcript reads (Claude Code's JSONL: LastText,
// CaughtUp): a checker may read what the agent said there, wait for it to
// catch up, and find what it said between stops. Other hosts' transcripts
// are theirs (a Codex rollout, a Gemini chat file): what the agent said
// comes from the event alone (last_assistant_message, into which hookio
// maps Gemini's prompt_response, say).
func (h Host) TranscriptHasTexts() bool { return h.spec().transcriptHasTexts }

// RunsHooksInBackground reports whether the host runs an entry marked
// "async" in the background, its tool call going on meanwhile (stop-hook
// --start starts checks only there).
func (h Host) RunsHooksInBackground() bool { return h.spec().runsHooksInBackground }

// PromptTakesNoContext reports whether the host runs stop-hook --criteria
// at a prompt whose answer cannot add context: the entry is another
// host's (Claude Code's, from .claude/settings.json), and the criteria
// were told at session start.
func (h Host) PromptTakesNoContext() bool { return h.spec().promptTakesNoContext }

// TurnFromStart reports whether the host sends no turn id and says
// instead which stop is the first of a turn (see Event.TurnStart).
func (h Host) TurnFromStart() bool { return h.spec().turnFromStart }

// hostSpecs are the hosts' specs, each from its host's file.
var hostSpecs = map[Host]*hostSpec{
	HostClaude:   &claudeSpec,
	HostCodex:    &codexSpec,
	HostQwen:     &qwenSpec,
	HostGemini:   &geminiSpec,
	HostCopilot:  &copilotSpec,
	HostCursor:   &cursorSpec,
	HostVSCode:   &vscodeSpec,
	HostOpenCode: &openCodeSpec,
	HostKilo:     &kiloSpec,
	HostPi:       &piSpec,
	HostDroid:    &droidSpec,
	HostCline:    &clineSpec,
	HostQoder:    &qoderSpec,
	HostGoose:    &gooseSpec,
	HostAmp:      &ampSpec,
}

// spec is h's spec; an unknown host (none, "") is read and answered as
// Claude Code, as an event of no other host is.
func (h Host) spec() *hostSpec {
	if s, ok := hostSpecs[h]; ok {
		return s
	}
	return &claudeSpec
}

// detectKeys are the top-level keys DetectHost looks at.
type detectKeys struct {
	eventName, sessionID, transcript                                 string
	hasEventName, turnID, model, camelSession, cursor, qwenStopStats bool
	camelEventName, openCode, kilo, pi, droidStop, cline, goose, amp bool
}

// see notes the top-level field key of value v where DetectHost reads
// it, and reports whether it does. The first of duplicate keys counts, as
// it does for gjson's Get, which ParseEvent reads with.
func (k *detectKeys) see(key string, v gjson.Result) bool {
	switch key {
	case "hook_event_name":
		if !k.hasEventName {
			k.hasEventName, k.eventName = true, v.Str
		}
	case "session_id":
		if k.sessionID == "" {
			k.sessionID = v.Str
		}
	case "transcript_path":
		if k.transcript == "" {
			k.transcript = v.Str
		}
	case "turn_id":
		k.turnID = true
	case "model":
		k.model = true
	case "sessionId":
		k.camelSession = true
	case "hookEventName":
		k.camelEventName = true
	case "conversation_id", "generation_id", "cursor_version":
		k.cursor = true
	case "context_limit":
		k.qwenStopStats = true
	case openCodeKey:
		k.openCode = true
	case kiloKey:
		k.kilo = true
	case piKey:
		k.pi = true
	case droidStopKey:
		k.droidStop = true
	case clineKey:
		k.cline = true
	case gooseKey:
		k.goose = true
	case ampKey:
		k.amp = true
	default:
		return false
	}
	return true
}

// DetectionKey reports whether DetectHost reads the top-level field key:
// a copy of an event that keeps these fields is told as the event's host
// (package lastevent, which shrinks a long event).
func DetectionKey(key string) bool {
	var k detectKeys
	return k.see(key, gjson.Result{})
}

// DetectHost names the host that sent the raw event, from its fields and,
// where the fields leave it open, the hook's environment (getenv may be
// nil: no environment). An event that is none of the others' is Claude
// Code's, read exactly as it always was:
//
//   - Cursor: conversation_id, generation_id or cursor_version, which no
//     other host sends (its events name themselves in camelCase, and
//     Cursor also runs .claude/settings.json hooks with these payloads);
//
//   - VS Code: a camelCase sessionId and hookEventName (its docs'
//     common fields), no hook_event_name;
//
//   - Copilot CLI: a camelCase sessionId, and neither hook_event_name nor
//     hookEventName;
//
//   - Gemini CLI: its own event names (AfterAgent, BeforeAgent, ...), or a
//     SessionStart/SessionEnd whose session is $GEMINI_SESSION_ID or
//     whose transcript is a Gemini chat (under .gemini/tmp);
//
//   - Codex CLI: turn_id and model (Claude Code sends no turn_id), or
//     model with a rollout transcript (rollout-*.jsonl) or one under
//     $CODEX_HOME. CODEX_HOME alone decides nothing: a user's shell may
//     export it while Claude Code runs;
//
//   - Qwen Code: a transcript under a .qwen dir, or a Stop carrying the
//     context_usage and context_limit that only Qwen adds.
//
//   - OpenCode: opencode_version, which donegate's OpenCode plugin sends
//     and no host does; Kilo CLI: kilo_version, which the same plugin
//     sends there; pi: pi_version, which donegate's extension for pi
//     sends; Amp: amp_executor, which donegate's plugin for Amp sends.
//
//   - Factory Droid: a transcript under a .factory/sessions dir (every
//     event of its carries one), or a Stop with tool_execution_count.
//
//   - Cline CLI: clineVersion, which only its events carry.
//
//   - Qoder CLI (by contract): a transcript under a .qoder dir.
//
//   - Goose (by contract): "event" and session_id, and no
//     hook_event_name.
//
// Invalid JSON is Claude Code's: ParseEvent reports it as it always has.
func DetectHost(raw []byte, getenv func(string) string) Host {
	var k detectKeys
	root := gjson.ParseBytes(raw)
	if !root.IsObject() {
		return HostClaude
	}
	// One pass over the top-level keys: on a recorded Stop event of
	// 1.2 KB it costs about as much as one gjson Get.
	root.ForEach(func(key, v gjson.Result) bool {
		k.see(key.Str, v)
		return true
	})
	switch {
	case k.openCode:
		return HostOpenCode
	case k.kilo:
		return HostKilo
	case k.pi:
		return HostPi
	case k.cline:
		return HostCline
	case k.amp:
		return HostAmp
	case k.cursor:
		return HostCursor
	case k.camelSession && k.camelEventName && !k.hasEventName:
		return HostVSCode
	case !k.hasEventName:
		switch {
		case k.camelSession:
			return HostCopilot
		case k.goose && k.sessionID != "":
			return HostGoose
		}
		return HostClaude
	case geminiEvents[k.eventName]:
		return HostGemini
	case k.turnID && k.model:
		return HostCodex
	case k.model && codexRollout(k.transcript, getenv):
		return HostCodex
	case underDir(k.transcript, ".qwen"):
		return HostQwen
	case underDir(k.transcript, ".factory/sessions") || k.droidStop:
		return HostDroid
	case underDir(k.transcript, ".qoder"):
		return HostQoder
	case k.qwenStopStats && (k.eventName == EventStop || k.eventName == EventSubagentStop):
		return HostQwen
	case (k.eventName == EventSessionStart || k.eventName == "SessionEnd") && geminiSession(k.sessionID, k.transcript, getenv):
		return HostGemini
	}
	return HostClaude
}

// underDir reports whether path has a directory element named dir.
func underDir(path, dir string) bool {
	return strings.Contains(path, "/"+dir+"/")
}
