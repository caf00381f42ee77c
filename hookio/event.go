// Package hookio is the only package that knows the wire format of hook
// events (JSON on stdin) and of the answers a hook prints (JSON on
// stdout), for every agent host donegate answers (see Host). Everything else in donegate works on the typed Event and Verdict
// values defined here and never touches the raw bytes.
//
// It must not decide anything: which checks run and whether work is open is
// the caller's business. It only decodes strictly and encodes exactly one
// answer object in the shape that the chosen dialect's host honours.
package hookio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
)

// MaxEventBytes bounds how much of stdin is read. Real events are a few KB;
// the bound keeps a runaway writer from making a hook use unbounded memory.
const MaxEventBytes = 16 << 20

// MaxEventDepth bounds how deeply an event's JSON nests. gjson recurses
// once per level, and about six million levels of '[' (well inside
// MaxEventBytes) overflow the goroutine stack: Go then dies with exit 2 and
// a trace, which Claude Code would feed to the model as a reason to keep
// going. Real events nest a few levels, tool inputs a few dozen at most.
const MaxEventDepth = 512

// Hook event names as Claude Code sends them in hook_event_name.
const (
	EventStop         = "Stop"
	EventSubagentStop = "SubagentStop"
	EventPreToolUse   = "PreToolUse"
	EventPostToolUse  = "PostToolUse"
	// SessionStart (with "source": startup, resume, clear or compact) and
	// UserPromptSubmit (with the "prompt") are answered only with context
	// for the model: stop-hook --criteria tells the agent up front what
	// will be checked. Neither carries anything the answer depends on.
	EventSessionStart     = "SessionStart"
	EventUserPromptSubmit = "UserPromptSubmit"
)

// ErrBadEvent is wrapped by every error about malformed input, so callers
// can tell "the host sent us garbage" from their own failures.
var ErrBadEvent = errors.New("bad hook event")

// Event is one hook event, normalised: whatever the host, the fields
// mean what Claude Code's do. Fields absent from the input are empty.
type Event struct {
	// Host is the host that sent the event (see Host).
	Host Host
	// HookEventName is Claude Code's name of what happened (Stop,
	// SubagentStop, SessionStart, UserPromptSubmit, PreToolUse,
	// PostToolUse) whatever the host called it; an event with no such
	// counterpart keeps the host's name. WireEventName is the host's own
	// name, which the answer is written for.
	HookEventName string
	WireEventName string
	SessionID     string
	// TranscriptPath is the host's record of the session: Claude Code's
	// and Qwen's transcript, Codex's rollout, Gemini's chat file,
	// Copilot's events.jsonl, Cursor's transcript.
	TranscriptPath string
	// Cwd is the event's working dir (Cursor: its first workspace root).
	Cwd string
	// PromptID names the turn that donegate's block count is kept per:
	// stable across the continuations of one turn, new at each prompt
	// of the person. Claude Code's prompt_id, Codex's turn_id; "" where
	// the host sends no such id (the count is then the session's, see
	// package limit).
	PromptID string
	// TurnID is the host's own turn id where it sends one (Codex).
	TurnID string
	// Model is the model the host names in the event (Codex, Cursor).
	Model                string
	PermissionMode       string
	StopHookActive       bool
	LastAssistantMessage string
	// SchemaTold: the hook that kept this event found that its host ran
	// with an output schema (Codex's --output-schema, told from the
	// hook's parent), so that closer explain, replaying it elsewhere,
	// reads its final message as the hook did (see FinalOutput).
	SchemaTold bool
	// Prompt is the person's prompt where the host sends it with the
	// event (Claude Code's UserPromptSubmit, Gemini's AfterAgent and
	// BeforeAgent, Copilot's and Cursor's prompt events, Qwen's
	// submitted_prompt).
	Prompt string

	// Cursor only: the generation (one run of the agent loop) and how
	// many follow-ups Cursor has sent in this loop so far. A stop with
	// LoopCount 0 is the first of a turn the person started.
	GenerationID string
	LoopCount    int

	// ClientVersion is the version of the host's client that sent the
	// event, where the caller found it (Claude Code's transcript lines
	// carry it): which answers it takes depends on it.
	ClientVersion string

	// BackgroundRunning names the agent's own background work still
	// running at a stop (Claude Code's background_tasks whose status is
	// running or pending: a run_in_background shell, a background
	// subagent), each by its description, else its command, else its id.
	// The host wakes the agent when such a task ends and the stop comes
	// again.
	BackgroundRunning []string

	// Todos is the agent's plan where the host sends it with the event
	// (OpenCode's todo list); nil when it sent none.
	Todos []Todo

	// Unchecked, when set, says why this stop is answered {}, unchecked
	// and uncounted: Cursor runs its stop hook when the person aborted
	// the agent or it failed too, and a follow-up then would start it
	// again.
	Unchecked string

	// SubagentStop only.
	AgentID             string
	AgentType           string
	AgentTranscriptPath string
	// ParentAgentID is, on Copilot CLI, the agent that started the
	// subagent an event comes from (parentAgentId).
	ParentAgentID string

	// PreToolUse and PostToolUse only. ToolInput of StructuredOutput is the
	// agent's tentative final output.
	ToolName     string
	ToolUseID    string
	ToolInput    []byte // raw JSON, nil when absent
	ToolResponse []byte // raw JSON, nil when absent
}

// TurnStart reports whether the host says this stop is the first of a
// turn the person started, before any continuation: Cursor's loop_count
// 0; Copilot CLI's stop_hook_active false (measured with 1.0.102: false
// at the first stop of a prompt, true at every stop after a block, tool
// calls or not). Hosts with a turn id (PromptID) need not say it.
func (e *Event) TurnStart() bool {
	if !e.IsStop() || !e.Host.TurnFromStart() {
		return false
	}
	person, _ := e.AfterPersonsPrompt()
	return person
}

// AfterPersonsPrompt reports whether the stop is the first since a
// prompt of the person rather than one a hook's block continued, and
// whether the host says so at all: Cursor's loop_count 0;
// stop_hook_active false on Claude Code, the Agent SDK, Codex, Qwen Code
// and Copilot CLI (true at every stop after a block). Gemini CLI says
// nothing to go by: its stop_hook_active returns to false after a tool.
func (e *Event) AfterPersonsPrompt() (person, known bool) {
	if f := e.Host.spec().afterPersonsPrompt; f != nil {
		return f(e)
	}
	return !e.StopHookActive, true
}

// ResumesTurn reports whether a UserPromptSubmit is the host going on
// with a turn rather than a prompt of the person. Qwen Code 0.24.4 sends
// UserPromptSubmit before every model request of a turn, with the turn's
// prompt_id: with prompt "" after a tool's result, with a Stop hook's
// reason after a block; only the person's prompt carries submitted_prompt
// (recorded: testdata/events/qwen/userpromptsubmit*.json).
func (e *Event) ResumesTurn() bool {
	f := e.Host.spec().resumesTurn
	return f != nil && e.HookEventName == EventUserPromptSubmit && f(e)
}

// SubagentsOwnStop reports whether the event is the agentStop Copilot CLI
// runs for a subagent that ends, before the subagentStop it runs for the
// same end (measured with 1.0.102): Copilot ignores a block answered to
// it, and continues the subagent on a block answered to subagentStop.
func (e *Event) SubagentsOwnStop() bool {
	f := e.Host.spec().subagentsOwnStop
	return f != nil && e.HookEventName == EventSubagentStop && f(e)
}

// IsStop reports whether the event is a Stop or SubagentStop event.
func (e *Event) IsStop() bool {
	return e.HookEventName == EventStop || e.HookEventName == EventSubagentStop
}

// ReadAll reads at most MaxEventBytes from r. Reading more is an error rather
// than a silent truncation: half an event must never be decoded as a whole one.
// Input nested deeper than MaxEventDepth is refused here, where the bytes
// come in, so that nothing the hooks do with them (Peek as well as
// ParseEvent) can overflow the stack.
func ReadAll(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxEventBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if len(data) > MaxEventBytes {
		return nil, fmt.Errorf("%w: stdin holds more than %d MiB; a hook event is a single small JSON object", ErrBadEvent, MaxEventBytes>>20)
	}
	if err := checkDepth(data); err != nil {
		return nil, err
	}
	return data, nil
}

// checkDepth refuses data nested deeper than MaxEventDepth.
func checkDepth(data []byte) error {
	if !jsondepth.Within(data, MaxEventDepth) {
		return fmt.Errorf("%w: stdin nests arrays or objects more than %d levels deep; a hook event is a single small JSON object", ErrBadEvent, MaxEventDepth)
	}
	return nil
}

// Peeked holds the few fields a hook needs to decide whether an event
// concerns it at all, normalised as Event's are.
type Peeked struct {
	Event, Tool, Cwd string
}

// Peek reads a few fields of a raw event without validating or decoding
// the rest, so a hook can answer events it does not gate before doing any
// other work. Fields are empty when absent or when data is not an object.
// The host is detected without the environment (see DetectHost); data
// should come from ReadAll, which bounds its nesting.
func Peek(data []byte) Peeked {
	return PeekHost(data, DetectHost(data, nil))
}

// PeekHost is Peek for an event known to come from host.
func PeekHost(data []byte, host Host) Peeked {
	if name := host.spec().peekEvent; name != "" {
		// The event's name and Claude Code's tool_name and cwd at the
		// top level: three fields, nothing decoded (VS Code runs the
		// tool hook before every tool call, whatever the matcher).
		r := gjson.GetManyBytes(data, name, "tool_name", "cwd")
		return Peeked{Event: r[0].Str, Tool: r[1].Str, Cwd: r[2].Str}
	}
	// The other hosts name events and fields their own way: decode.
	e, err := Parse(data, host)
	if err != nil {
		return Peeked{}
	}
	return Peeked{Event: e.HookEventName, Tool: e.ToolName, Cwd: e.Cwd}
}

// field is a string field of a host's wire format and where it goes.
type field struct {
	key string
	dst *string
}

// ParseEvent decodes one hook event from whichever host DetectHost names
// without the environment; see Parse.
func ParseEvent(data []byte) (*Event, error) {
	return Parse(data, DetectHost(data, nil))
}

// Parse decodes one hook event sent by host into the normalised Event.
// It rejects empty input, input nested deeper than MaxEventDepth, invalid
// JSON, anything but an object, an event that does not say what happened
// (a missing or empty hook_event_name; on Copilot CLI, which sends none,
// no field that tells) and fields of the wrong type, each with an error
// that names the problem and wraps ErrBadEvent. A Claude Code event is
// read as it always was.
func Parse(data []byte, host Host) (*Event, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: stdin is empty; expected one JSON object from %s", ErrBadEvent, host.Title())
	}
	// ReadAll checked already; Parse checks again because data need
	// not come from ReadAll, and with few brackets the check is one
	// vectorized count (tens of nanoseconds on a recorded event).
	if err := checkDepth(trimmed); err != nil {
		return nil, err
	}
	if !gjson.ValidBytes(trimmed) {
		return nil, fmt.Errorf("%w: stdin is not valid JSON (starts %q)", ErrBadEvent, preview(trimmed))
	}
	root := gjson.ParseBytes(trimmed)
	if !root.IsObject() {
		return nil, fmt.Errorf("%w: stdin is a JSON %s, expected an object", ErrBadEvent, kind(root))
	}
	e := &Event{Host: host}
	if err := host.spec().read(e, root); err != nil {
		return nil, err
	}
	return e, nil
}

// nameEvent sets HookEventName from WireEventName, the host's name for
// the event, through names (the host's names to Claude Code's; one not
// among them is taken as it is), and refuses an event without a name.
func (e *Event) nameEvent(names map[string]string) error {
	if e.WireEventName == "" {
		return fmt.Errorf("%w: field hook_event_name is missing or empty", ErrBadEvent)
	}
	e.HookEventName = e.WireEventName
	if n, ok := names[e.WireEventName]; ok {
		e.HookEventName = n
	}
	return nil
}

// readToolAndStop reads the fields every host but Copilot CLI sends
// under Claude Code's names: stop_hook_active and tool_input, and the
// tool's result into ToolResponse from response (its name differs).
func (e *Event) readToolAndStop(root gjson.Result, response string) error {
	if err := readBool(root, "stop_hook_active", &e.StopHookActive); err != nil {
		return err
	}
	if v := root.Get("tool_input"); v.Exists() {
		e.ToolInput = []byte(v.Raw)
	}
	if v := root.Get(response); v.Exists() {
		e.ToolResponse = []byte(v.Raw)
	}
	return nil
}

// readStrings decodes the string fields of root into their places; null
// is absent.
func readStrings(root gjson.Result, fields []field) error {
	for _, f := range fields {
		v := root.Get(f.key)
		if !v.Exists() || v.Type == gjson.Null {
			continue
		}
		if v.Type != gjson.String {
			return fmt.Errorf("%w: field %s is a %s, expected a string", ErrBadEvent, f.key, kind(v))
		}
		*f.dst = v.Str
	}
	return nil
}

// readBool decodes the boolean field key of root into dst; null is absent.
func readBool(root gjson.Result, key string, dst *bool) error {
	v := root.Get(key)
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	if !v.IsBool() {
		return fmt.Errorf("%w: field %s is a %s, expected a boolean", ErrBadEvent, key, kind(v))
	}
	*dst = v.Bool()
	return nil
}

func kind(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "object"
	case v.IsArray():
		return "array"
	case v.IsBool():
		return "boolean"
	}
	switch v.Type {
	case gjson.Number:
		return "number"
	case gjson.String:
		return "string"
	case gjson.Null:
		return "null"
	}
	return "value"
}

func preview(b []byte) string {
	const n = 40
	if len(b) > n {
		b = b[:n]
	}
	return string(bytes.ToValidUTF8(b, []byte("?")))
}

// ShellRunPassed returns the command of a run of the agent's shell tool
// that the host says exited 0, in the foreground, uninterrupted, in the
// session's cwd, and whether the event is one. What each host's shell
// tool result holds (measured, recorded in testdata/events):
//
//   - Claude Code (2.1.331) sends PostToolUse for a Bash call only when
//     it exited 0 — tool_response {stdout, stderr, interrupted, isImage,
//     noOutputExpected}, no exit status — and PostToolUseFailure
//     ("error": "Exit code 3 ...") otherwise; a run_in_background call
//     returns at once, before the command ends, so it says nothing.
//   - Qwen Code (0.24.4) sends PostToolUse for a run_shell_command call
//     that exited 0, its tool_response.llmContent saying "Exit Code: 0"
//     and "Signal: (none)", and PostToolUseFailure otherwise; a call with
//     is_background or a directory of its own says nothing here.
//   - Codex CLI (0.169.0) sends PostToolUse for every Bash call, with the
//     output alone as tool_response: no exit status.
//   - Gemini CLI (0.61.0) sends AfterTool for every run_shell_command,
//     and Copilot CLI (1.0.102) postToolUse with resultType "success" for
//     a command that exited 3: the exit status is only in text written
//     for the model ("Exit Code: 3", "completed with exit code 3").
//
// So only Claude Code's and Qwen Code's runs are read; the other hosts'
// stops run the check.
// ShellCommand is the command a call of the host's shell tool runs (at
// PreToolUse: will run), "" for another tool or event.
func (e *Event) ShellCommand() string {
	tool := e.Host.ShellTool()
	if tool == "" || e.ToolName != tool || (e.HookEventName != EventPreToolUse && e.HookEventName != EventPostToolUse) {
		return ""
	}
	if f := e.Host.spec().shellCommand; f != nil {
		return f(e)
	}
	return gjson.GetBytes(e.ToolInput, "command").Str
}

func (e *Event) ShellRunPassed() (string, bool) {
	tool := e.Host.ShellTool()
	if tool == "" || e.HookEventName != EventPostToolUse || e.ToolName != tool {
		return "", false
	}
	in := gjson.ParseBytes(e.ToolInput)
	command := in.Get("command")
	if command.Type != gjson.String || strings.TrimSpace(command.Str) == "" ||
		in.Get("run_in_background").Bool() || in.Get("is_background").Bool() || in.Get("directory").Exists() {
		return "", false
	}
	resp := gjson.ParseBytes(e.ToolResponse)
	if !resp.IsObject() {
		return "", false
	}
	// A host whose shell tool's results are not read (Codex's: its
	// tool is named for the guard) has no shellRunPassed.
	if f := e.Host.spec().shellRunPassed; f == nil || !f(resp) {
		return "", false
	}
	return command.Str, true
}
