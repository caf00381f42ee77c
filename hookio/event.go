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
	"strconv"
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
	// Prompt is the person's prompt where the host sends it with the
	// event (Gemini's AfterAgent and BeforeAgent, Copilot's and Cursor's
	// prompt events, Qwen's submitted_prompt).
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
	if !e.IsStop() || e.Host != HostCursor && e.Host != HostCopilot {
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
	switch e.Host {
	case HostCursor:
		return e.LoopCount == 0, true
	case HostGemini:
		return false, false
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
	return e.Host == HostQwen && e.HookEventName == EventUserPromptSubmit && e.Prompt == ""
}

// SubagentsOwnStop reports whether the event is the agentStop Copilot CLI
// runs for a subagent that ends, before the subagentStop it runs for the
// same end (measured with 1.0.102): Copilot ignores a block answered to
// it, and continues the subagent on a block answered to subagentStop.
func (e *Event) SubagentsOwnStop() bool {
	return e.Host == HostCopilot && e.WireEventName == copilotAgentStop && e.HookEventName == EventSubagentStop
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
	switch host {
	case HostClaude, HostCodex, HostQwen:
		r := gjson.GetManyBytes(data, "hook_event_name", "tool_name", "cwd")
		return Peeked{Event: r[0].Str, Tool: r[1].Str, Cwd: r[2].Str}
	case HostVSCode:
		// Before every tool call, whatever the matcher: the fast path.
		r := gjson.GetManyBytes(data, "hookEventName", "tool_name", "cwd")
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

// claudeFields are the string fields of Claude Code's wire format, which
// Codex and Qwen Code share.
func (e *Event) claudeFields() []field {
	return []field{
		{"hook_event_name", &e.WireEventName},
		{"session_id", &e.SessionID},
		{"transcript_path", &e.TranscriptPath},
		{"cwd", &e.Cwd},
		{"prompt_id", &e.PromptID},
		{"permission_mode", &e.PermissionMode},
		{"last_assistant_message", &e.LastAssistantMessage},
		{"agent_id", &e.AgentID},
		{"agent_type", &e.AgentType},
		{"agent_transcript_path", &e.AgentTranscriptPath},
		{"tool_name", &e.ToolName},
		{"tool_use_id", &e.ToolUseID},
	}
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
	var err error
	switch host {
	case HostGemini:
		err = e.readGemini(root)
	case HostCopilot:
		err = e.readCopilot(root)
	case HostCursor:
		err = e.readCursor(root)
	case HostVSCode:
		err = e.readVSCode(root)
	case HostOpenCode:
		err = e.readOpenCode(root)
	default:
		err = e.readClaude(root)
	}
	if err != nil {
		return nil, err
	}
	return e, nil
}

// readClaude reads Claude Code's wire format, and Codex's and Qwen's,
// which are Claude Code's with a few fields more.
func (e *Event) readClaude(root gjson.Result) error {
	fields := e.claudeFields()
	if e.Host == HostCodex {
		fields = append(fields, field{"turn_id", &e.TurnID}, field{"model", &e.Model})
	}
	if err := readStrings(root, fields); err != nil {
		return err
	}
	if err := e.nameEvent(nil); err != nil {
		return err
	}
	if e.Host == HostCodex && e.PromptID == "" {
		// Codex keeps its turn_id across the continuations of a turn
		// (measured with 0.169.0): the turn donegate counts per.
		e.PromptID = e.TurnID
	}
	e.BackgroundRunning = runningTasks(root.Get("background_tasks"))
	if e.Host == HostQwen {
		// Only the person's own prompt carries submitted_prompt: see
		// ResumesTurn.
		if err := readStrings(root, []field{{"submitted_prompt", &e.Prompt}}); err != nil {
			return err
		}
	}
	return e.readToolAndStop(root, "tool_response")
}

// runningTasks names the tasks of Claude Code's background_tasks that
// have not ended (measured with 2.1.332: a run_in_background shell is
// "running" while the agent waits for it, and gone from the list at the
// stop after it ended). Anything that is not such a list is none.
func runningTasks(tasks gjson.Result) []string {
	if !tasks.IsArray() {
		return nil
	}
	var out []string
	tasks.ForEach(func(_, t gjson.Result) bool {
		switch t.Get("status").Str {
		case "running", "pending":
		default:
			return true
		}
		name := t.Get("description").Str
		for _, k := range []string{"command", "id"} {
			if name == "" {
				name = t.Get(k).Str
			}
		}
		if name == "" {
			name = "a background task"
		}
		if typ := t.Get("type").Str; typ != "" {
			name = typ + " " + strconv.Quote(name)
		}
		out = append(out, name)
		return len(out) < 20
	})
	return out
}

// geminiNames maps Gemini CLI's event names to Claude Code's.
var geminiNames = map[string]string{
	"AfterAgent":   EventStop,
	"BeforeAgent":  EventUserPromptSubmit,
	"SessionStart": EventSessionStart,
	"BeforeTool":   EventPreToolUse,
	"AfterTool":    EventPostToolUse,
}

// readGemini reads Gemini CLI's wire format: Claude Code's field names,
// its own event names, the turn's text in prompt_response (cumulative
// over the turn).
func (e *Event) readGemini(root gjson.Result) error {
	err := readStrings(root, []field{
		{"hook_event_name", &e.WireEventName},
		{"session_id", &e.SessionID},
		{"transcript_path", &e.TranscriptPath},
		{"cwd", &e.Cwd},
		{"prompt", &e.Prompt},
		{"prompt_response", &e.LastAssistantMessage},
		{"tool_name", &e.ToolName},
	})
	if err != nil {
		return err
	}
	if err := e.nameEvent(geminiNames); err != nil {
		return err
	}
	return e.readToolAndStop(root, "tool_response")
}

// Copilot CLI's event names, which its events do not carry.
const (
	copilotAgentStop    = "agentStop"
	copilotSubagentStop = "subagentStop"
	copilotSessionStart = "sessionStart"
	copilotPrompt       = "userPromptSubmitted"
	copilotPreToolUse   = "preToolUse"
	copilotPostToolUse  = "postToolUse"
)

// copilotAgentKeys are the fields that name the subagent in a Copilot
// subagentStop event (any one of them makes a stop a subagent's). The
// real client (1.0.102) sends agentId, unique to the subagent's run, and
// agentName, its type ("general-purpose"), which two subagents share.
var copilotAgentKeys = []string{"agentId", "agentName", "subagentName"}

// readCopilot reads Copilot CLI's wire format: camelCase fields, no event
// name (the event is told by the fields it has), stop_hook_active in
// snake case. Measured with 1.0.102: a subagentStop carries the
// subagent's agentId, agentType, agentName and its last message in
// response, under the parent's sessionId; the subagent's own agentStop
// carries agentId and parentAgentId under the subagent's id as sessionId.
func (e *Event) readCopilot(root gjson.Result) error {
	var stopReason, source string
	err := readStrings(root, []field{
		{"sessionId", &e.SessionID},
		{"transcriptPath", &e.TranscriptPath},
		{"cwd", &e.Cwd},
		{"prompt", &e.Prompt},
		{"toolName", &e.ToolName},
		{"stopReason", &stopReason},
		{"source", &source},
		{"parentAgentId", &e.ParentAgentID},
		{"agentType", &e.AgentType},
		{"response", &e.LastAssistantMessage},
	})
	if err != nil {
		return err
	}
	for _, k := range copilotAgentKeys {
		if err := readStrings(root, []field{{k, &e.AgentID}}); err != nil {
			return err
		}
		if e.AgentID != "" {
			break
		}
	}
	if err := readBool(root, "stop_hook_active", &e.StopHookActive); err != nil {
		return err
	}
	switch {
	case e.ToolName != "" && root.Get("toolResult").Exists():
		e.WireEventName, e.HookEventName = copilotPostToolUse, EventPostToolUse
		e.ToolResponse = []byte(root.Get("toolResult").Raw)
	case e.ToolName != "":
		e.WireEventName, e.HookEventName = copilotPreToolUse, EventPreToolUse
	case stopReason != "" || root.Get("stop_hook_active").Exists():
		e.WireEventName, e.HookEventName = copilotAgentStop, EventStop
		switch {
		case e.AgentID != "" && e.AgentID == e.SessionID:
			// The subagent's own agentStop, named by its agentId as
			// sessionId; Copilot runs the parent's subagentStop next.
			e.HookEventName = EventSubagentStop
		case e.AgentID != "":
			e.WireEventName, e.HookEventName = copilotSubagentStop, EventSubagentStop
		}
	case root.Get("prompt").Exists():
		e.WireEventName, e.HookEventName = copilotPrompt, EventUserPromptSubmit
	case source != "" || root.Get("initialPrompt").Exists():
		e.WireEventName, e.HookEventName = copilotSessionStart, EventSessionStart
	default:
		return fmt.Errorf("%w: a Copilot CLI event (camelCase, no hook_event_name) without stopReason, toolName, prompt or source: cannot tell which event it is", ErrBadEvent)
	}
	if v := root.Get("toolArgs"); v.Exists() {
		// Copilot passes a tool's arguments as a JSON string.
		e.ToolInput = []byte(v.Raw)
		if v.Type == gjson.String && gjson.Valid(v.Str) {
			e.ToolInput = []byte(v.Str)
		}
	}
	return nil
}

// readVSCode reads the events of GitHub Copilot's agent in VS Code, from
// its docs ("Agent hooks in Visual Studio Code", hooks reference): the
// common fields timestamp, cwd, sessionId, hookEventName (Claude Code's
// event names) and transcript_path, then each event's own in snake case
// as Claude Code names them (stop_hook_active, agent_id, agent_type,
// tool_name, tool_input, tool_use_id, tool_response, prompt, source).
// Its tools are its own (replace_string_in_file, run_in_terminal, ...),
// and it sends no turn id: a stop's count is the session's.
func (e *Event) readVSCode(root gjson.Result) error {
	err := readStrings(root, []field{
		{"hookEventName", &e.WireEventName},
		{"sessionId", &e.SessionID},
		{"transcript_path", &e.TranscriptPath},
		{"cwd", &e.Cwd},
		{"prompt", &e.Prompt},
		{"agent_id", &e.AgentID},
		{"agent_type", &e.AgentType},
		{"tool_name", &e.ToolName},
		{"tool_use_id", &e.ToolUseID},
	})
	if err != nil {
		return err
	}
	if err := e.nameEvent(nil); err != nil {
		return err
	}
	return e.readToolAndStop(root, "tool_response")
}

// cursorNames maps Cursor's event names to Claude Code's. Cursor runs the
// hooks of .claude/settings.json too, mapping Claude Code's names to its
// own: those are taken as they are.
var cursorNames = map[string]string{
	"stop":               EventStop,
	"subagentStop":       EventSubagentStop,
	"sessionStart":       EventSessionStart,
	"beforeSubmitPrompt": EventUserPromptSubmit,
	"preToolUse":         EventPreToolUse,
	"postToolUse":        EventPostToolUse,
}

// readCursor reads Cursor's wire format (from its docs: no client ran
// here): conversation_id for the session, generation_id, loop_count,
// workspace_roots instead of cwd.
func (e *Event) readCursor(root gjson.Result) error {
	var status string
	err := readStrings(root, []field{
		{"hook_event_name", &e.WireEventName},
		{"status", &status},
		{"conversation_id", &e.SessionID},
		{"generation_id", &e.GenerationID},
		{"transcript_path", &e.TranscriptPath},
		{"cwd", &e.Cwd},
		{"model", &e.Model},
		{"prompt", &e.Prompt},
		{"tool_name", &e.ToolName},
	})
	if err != nil {
		return err
	}
	if err := e.nameEvent(cursorNames); err != nil {
		return err
	}
	if e.IsStop() && status != "" && status != "completed" {
		e.Unchecked = fmt.Sprintf("Cursor's %s with status %q: the agent did not finish its turn (the person stopped it, or it failed), and a follow-up would start it again", e.WireEventName, status)
	}
	if e.SessionID == "" {
		if err := readStrings(root, []field{{"session_id", &e.SessionID}}); err != nil {
			return err
		}
	}
	if v := root.Get("workspace_roots"); v.Exists() && v.Type != gjson.Null {
		if !v.IsArray() {
			return fmt.Errorf("%w: field workspace_roots is a %s, expected an array of strings", ErrBadEvent, kind(v))
		}
		roots := v.Array()
		for i, r := range roots {
			if r.Type != gjson.String {
				return fmt.Errorf("%w: field workspace_roots[%d] is a %s, expected a string", ErrBadEvent, i, kind(r))
			}
		}
		if e.Cwd == "" && len(roots) > 0 {
			e.Cwd = roots[0].Str
		}
	}
	if v := root.Get("loop_count"); v.Exists() && v.Type != gjson.Null {
		if v.Type != gjson.Number || v.Num < 0 || v.Num != float64(int(v.Num)) {
			return fmt.Errorf("%w: field loop_count is %s, expected a whole number of 0 or more", ErrBadEvent, preview([]byte(v.Raw)))
		}
		e.LoopCount = int(v.Num)
	}
	return e.readToolAndStop(root, "tool_output")
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
	switch e.Host {
	case HostClaude:
		if resp.Get("interrupted").Bool() || resp.Get("backgroundTaskId").Exists() {
			return "", false
		}
	case HostQwen:
		// PostToolUse already says it passed; the host's own status
		// lines must agree.
		status := "\n" + resp.Get("llmContent").Str + "\n"
		if !strings.Contains(status, "\nExit Code: 0\n") || !strings.Contains(status, "\nSignal: (none)\n") {
			return "", false
		}
	}
	return command.Str, true
}

// ClaudeShellTool is Claude Code's shell tool.
const ClaudeShellTool = "Bash"
