// Package hookio is the only package that knows the wire format of Claude
// Code hook events (JSON on stdin) and of the answers a hook prints (JSON on
// stdout). Everything else in donegate works on the typed Event and Verdict
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

// Event is one hook event. Fields absent from the input are empty.
type Event struct {
	// Host is the host that sent the event (see Host).
	Host                 Host
	HookEventName        string
	SessionID            string
	TranscriptPath       string
	Cwd                  string
	PromptID             string
	PermissionMode       string
	StopHookActive       bool
	LastAssistantMessage string

	// SubagentStop only.
	AgentID             string
	AgentType           string
	AgentTranscriptPath string

	// PreToolUse and PostToolUse only. ToolInput of StructuredOutput is the
	// agent's tentative final output.
	ToolName     string
	ToolUseID    string
	ToolInput    []byte // raw JSON, nil when absent
	ToolResponse []byte // raw JSON, nil when absent
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
// concerns it at all.
type Peeked struct {
	Event, Tool, Cwd string
}

// Peek reads a few fields of a raw event without validating or decoding
// the rest, so a hook can answer events it does not gate before doing any
// other work. Fields are empty when absent or when data is not an object.
// data should come from ReadAll, which bounds its nesting.
func Peek(data []byte) Peeked {
	r := gjson.GetManyBytes(data, "hook_event_name", "tool_name", "cwd")
	return Peeked{Event: r[0].Str, Tool: r[1].Str, Cwd: r[2].Str}
}

// stringFields maps each string field of the wire format to where it goes.
func (e *Event) stringFields() []struct {
	key string
	dst *string
} {
	return []struct {
		key string
		dst *string
	}{
		{"hook_event_name", &e.HookEventName},
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

// ParseEvent decodes one hook event. It rejects empty input, input nested
// deeper than MaxEventDepth, invalid JSON, anything but an object, a missing
// or empty hook_event_name and fields of the wrong type, each with an error
// that names the problem and wraps ErrBadEvent.
func ParseEvent(data []byte) (*Event, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, fmt.Errorf("%w: stdin is empty; expected one JSON object from Claude Code", ErrBadEvent)
	}
	// ReadAll checked already; ParseEvent checks again because data need
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
	e := &Event{Host: HostClaude}
	for _, f := range e.stringFields() {
		v := root.Get(f.key)
		if !v.Exists() || v.Type == gjson.Null {
			continue
		}
		if v.Type != gjson.String {
			return nil, fmt.Errorf("%w: field %s is a %s, expected a string", ErrBadEvent, f.key, kind(v))
		}
		*f.dst = v.Str
	}
	if e.HookEventName == "" {
		return nil, fmt.Errorf("%w: field hook_event_name is missing or empty", ErrBadEvent)
	}
	if v := root.Get("stop_hook_active"); v.Exists() && v.Type != gjson.Null {
		if !v.IsBool() {
			return nil, fmt.Errorf("%w: field stop_hook_active is a %s, expected a boolean", ErrBadEvent, kind(v))
		}
		e.StopHookActive = v.Bool()
	}
	if v := root.Get("tool_input"); v.Exists() {
		e.ToolInput = []byte(v.Raw)
	}
	if v := root.Get("tool_response"); v.Exists() {
		e.ToolResponse = []byte(v.Raw)
	}
	return e, nil
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
