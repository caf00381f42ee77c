package hookio

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/donegate/donegate/internal/jsonw"
	"github.com/donegate/donegate/transcript"
)

// Dialect selects the answer shapes. Claude Code honours only its own
// shapes; the SDK shapes are for hosts of the Claude Agent SDK that read
// needsMoreTurns, and Claude Code ignores them (the agent just stops).
type Dialect string

// The dialects donegate can speak.
const (
	DialectClaudeCode Dialect = "claude-code"
	DialectSDK        Dialect = "sdk"
)

// ParseDialect accepts the names used in flags and config.
func ParseDialect(s string) (Dialect, error) {
	switch Dialect(s) {
	case DialectClaudeCode, DialectSDK:
		return Dialect(s), nil
	}
	return "", fmt.Errorf("unknown dialect %q (valid: %s, %s)", s, DialectClaudeCode, DialectSDK)
}

// MaxFeedbackRunes bounds the reason shown to the model: a test log of
// megabytes would drown the conversation and cost tokens on every turn.
const MaxFeedbackRunes = 8000

// Verdict is what a hook decided about one event.
type Verdict struct {
	// Block is true when work is open and the agent must go on.
	Block bool
	// Ask, with Block at a PreToolUse, asks the person to confirm the
	// tool call instead of denying it (Claude Code's "ask": a prompt
	// showing Reason in an interactive session, a denial in claude -p).
	Ask bool
	// Reason is the feedback for the model; used only when Block is set.
	Reason string
	// SystemMessage is shown to the person, never to the model.
	SystemMessage string
	// Context is told to the model as additional context; only a
	// SessionStart or UserPromptSubmit answer carries it (Claude Code adds
	// it to the model's context as "<event> hook additional context: ...").
	Context string
}

type hookSpecific struct {
	HookEventName string `json:"hookEventName"`
	// Decision and Reason hold a VS Code agent at Stop.
	Decision                 string `json:"decision,omitempty"`
	Reason                   string `json:"reason,omitempty"`
	PermissionDecision       string `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string `json:"additionalContext,omitempty"`
}

// answer holds every field any dialect uses; the field order here is the
// order on the wire, which keeps golden files stable.
type answer struct {
	NeedsMoreTurns     bool          `json:"needsMoreTurns,omitempty"`
	Decision           string        `json:"decision,omitempty"`
	Reason             string        `json:"reason,omitempty"`
	HookSpecificOutput *hookSpecific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string        `json:"systemMessage,omitempty"`
}

// WriteAnswer writes exactly one JSON object answering an event named
// eventName. Stop answers keep to top-level decision/reason/systemMessage:
// Claude Code before 2.1.163 drops a Stop answer that carries
// hookSpecificOutput.
func WriteAnswer(w io.Writer, eventName string, d Dialect, v Verdict) error {
	return writeAnswer(w, eventName, d, v, false)
}

// writeAnswer is WriteAnswer; stopContext holds the agent at a stop with
// additionalContext rather than a block (see TakesStopContext).
func writeAnswer(w io.Writer, eventName string, d Dialect, v Verdict, stopContext bool) error {
	a := answer{SystemMessage: CleanText(v.SystemMessage)}
	if v.Block {
		reason := CleanText(v.Reason)
		switch eventName {
		case EventStop, EventSubagentStop:
			switch {
			case stopContext:
				// Naming the event: a SubagentStop answer that names Stop
				// is refused as the wrong event, and the subagent let go.
				a.HookSpecificOutput = &hookSpecific{HookEventName: eventName, AdditionalContext: reason}
			case d == DialectSDK:
				a.NeedsMoreTurns, a.Decision, a.Reason = true, "continue", reason
			default:
				a.Decision, a.Reason = "block", reason
			}
		case EventPreToolUse:
			// Only a deny stops Claude Code from accepting the tool call,
			// StructuredOutput included; SDK hosts honour it the same way.
			a.HookSpecificOutput = &hookSpecific{
				HookEventName:            EventPreToolUse,
				PermissionDecision:       "deny",
				PermissionDecisionReason: reason,
			}
			if v.Ask {
				a.HookSpecificOutput.PermissionDecision = "ask"
			}
		case EventPostToolUse:
			a.HookSpecificOutput = &hookSpecific{HookEventName: EventPostToolUse, AdditionalContext: reason}
			if d != DialectSDK {
				a.Decision, a.Reason = "block", reason
			}
		default:
			return fmt.Errorf("cannot block a %q event", eventName)
		}
	}
	if v.Context != "" {
		switch eventName {
		case EventSessionStart, EventUserPromptSubmit:
			a.HookSpecificOutput = &hookSpecific{HookEventName: eventName, AdditionalContext: CleanText(v.Context)}
		default:
			return fmt.Errorf("cannot give context to the model in a %q answer", eventName)
		}
	}
	return encode(w, a)
}

// encode writes a as the one JSON object of an answer, as a host reads
// it: HTML characters unescaped, ended by a newline. Written by hand
// (appendJSON), not by encoding/json: see package jsonw.
func encode(w io.Writer, a interface{ appendJSON([]byte) []byte }) error {
	if _, err := w.Write(append(a.appendJSON(nil), '\n')); err != nil {
		return fmt.Errorf("write answer: %w", err)
	}
	return nil
}

// appendJSON writes a as encoding/json would, its fields in their order
// (TestAnswersAsEncodingJSON).
func (a answer) appendJSON(b []byte) []byte {
	o := jsonw.NewObject(b, false)
	o.BoolOmitEmpty("needsMoreTurns", a.NeedsMoreTurns)
	o.StringOmitEmpty("decision", a.Decision)
	o.StringOmitEmpty("reason", a.Reason)
	a.HookSpecificOutput.appendTo(o)
	o.StringOmitEmpty("systemMessage", a.SystemMessage)
	return o.End()
}

// appendJSON writes a as encoding/json would (TestAnswersAsEncodingJSON).
func (a hostAnswer) appendJSON(b []byte) []byte {
	o := jsonw.NewObject(b, false)
	o.StringOmitEmpty("decision", a.Decision)
	o.StringOmitEmpty("reason", a.Reason)
	o.StringOmitEmpty("permissionDecision", a.PermissionDecision)
	o.StringOmitEmpty("permissionDecisionReason", a.PermissionDecisionReason)
	o.StringOmitEmpty("followup_message", a.FollowupMessage)
	o.StringOmitEmpty("additional_context", a.AdditionalContext)
	o.StringOmitEmpty("permission", a.Permission)
	o.StringOmitEmpty("user_message", a.UserMessage)
	o.StringOmitEmpty("agent_message", a.AgentMessage)
	a.HookSpecificOutput.appendTo(o)
	o.StringOmitEmpty("systemMessage", a.SystemMessage)
	return o.End()
}

// appendTo adds h to o as the field hookSpecificOutput, unless it is nil.
func (h *hookSpecific) appendTo(o *jsonw.Object) {
	if h == nil {
		return
	}
	_ = o.Object("hookSpecificOutput", func(in *jsonw.Object) error {
		in.String("hookEventName", h.HookEventName)
		in.StringOmitEmpty("decision", h.Decision)
		in.StringOmitEmpty("reason", h.Reason)
		in.StringOmitEmpty("permissionDecision", h.PermissionDecision)
		in.StringOmitEmpty("permissionDecisionReason", h.PermissionDecisionReason)
		in.StringOmitEmpty("additionalContext", h.AdditionalContext)
		return nil
	})
}

// CleanText makes text safe to show: terminal escape sequences and other
// control characters (but newlines and tabs) are removed, invalid UTF-8 is
// replaced, and text over MaxFeedbackRunes is cut in the middle (see cut).
func CleanText(s string) string {
	s = StripANSI(s)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return r
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return -1
		}
		return r
	}, s)
	return Cut(s, MaxFeedbackRunes)
}

// Cut returns s if it has at most limit runes, else s cut to limit runes:
// its head (a quarter of the room) and its tail, with a note between them
// saying how much is left out. Feedback opens with what failed and what to
// do, and a test log ends with what matters most: the FAIL line and the
// summary. Keeping only the head dropped them, and keeping only the tail
// (closer's text output once kept the last 15 lines) dropped a failing
// assertion under five `npm notice` lines. The cuts fall on line ends when
// one is near, else on rune boundaries.
func Cut(s string, limit int) string {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	const note = "\n[donegate: feedback cut, %s characters not shown here]\n"
	// The note says at most n characters were cut: reserve that much room.
	room := max(limit-utf8.RuneCountInString(fmt.Sprintf(note, thousands(n))), 2)
	headEnd := runeOffset(s, min(limit/4, room/2))
	tailStart := len(s)
	for range room - utf8.RuneCountInString(s[:headEnd]) {
		_, size := utf8.DecodeLastRuneInString(s[:tailStart])
		tailStart -= size
	}
	head, tail := s[:headEnd], s[tailStart:]
	// Prefer whole lines when that costs at most half of either part.
	if i := strings.LastIndexByte(head, '\n'); i >= len(head)/2 {
		head = head[:i]
	}
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
		tail = tail[i+1:]
	}
	shown := utf8.RuneCountInString(head) + utf8.RuneCountInString(tail)
	return head + fmt.Sprintf(note, thousands(n-shown)) + tail
}

// runeOffset returns the byte offset of the i-th rune of s.
func runeOffset(s string, i int) int {
	for pos := range s {
		if i == 0 {
			return pos
		}
		i--
	}
	return len(s)
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// StripANSI removes ANSI/VT escape sequences (CSI, OSC and two-byte
// escapes), as test runners print colours and cursor moves.
func StripANSI(s string) string {
	if !strings.ContainsRune(s, 0x1b) && !strings.ContainsRune(s, 0x9b) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 0x1b {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case '[': // CSI: parameters and intermediates, then a final byte 0x40-0x7e
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
		case ']', 'P', '_', '^': // OSC, DCS, APC, PM: up to BEL or ST
			j := i + 2
			for j < len(s) {
				if s[j] == 0x07 {
					break
				}
				if s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\' {
					j++
					break
				}
				j++
			}
			i = j
		case '(', ')', '*', '+': // character set designation: ESC ( B
			i += 2
		default: // two-byte escape such as ESC c
			i++
		}
	}
	return b.String()
}

// hostAnswer holds the fields of the answers of the hosts that do not
// speak Claude Code's shapes; the field order is the order on the wire.
type hostAnswer struct {
	Decision                 string        `json:"decision,omitempty"`
	Reason                   string        `json:"reason,omitempty"`
	PermissionDecision       string        `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string        `json:"permissionDecisionReason,omitempty"`
	FollowupMessage          string        `json:"followup_message,omitempty"`
	AdditionalContext        string        `json:"additional_context,omitempty"`
	Permission               string        `json:"permission,omitempty"`
	UserMessage              string        `json:"user_message,omitempty"`
	AgentMessage             string        `json:"agent_message,omitempty"`
	HookSpecificOutput       *hookSpecific `json:"hookSpecificOutput,omitempty"`
	SystemMessage            string        `json:"systemMessage,omitempty"`
}

// defaultReason stands in for an empty reason where a host refuses a
// block without one (Codex: "reason" must be non-empty).
const defaultReason = "donegate: the work is not done yet; keep going until it is."

// SettleAnswer reads what the answer to ev in the shape ev.Host honours
// depends on and the event does not carry, waiting for the host to write
// it as wait allows (the zero Wait reads what is there); WriteHostAnswer
// after it writes that answer, and reads nothing itself. Only a Claude
// Code hold has such a thing: the CLI's version, in its transcript,
// which lags the event (see transcript.AwaitClientVersion).
func SettleAnswer(ctx context.Context, ev *Event, d Dialect, v Verdict, wait transcript.Wait) {
	if spec := ev.Host.spec(); spec.settle != nil {
		spec.settle(ctx, ev, d, v, wait)
	}
}

// WriteHostAnswer writes exactly one JSON object answering ev, in the
// shape ev.Host honours (each host's file says which: claude.go,
// codex.go, ...). An answer the host cannot take is an error naming what
// to register instead, and nothing is written.
func WriteHostAnswer(w io.Writer, ev *Event, d Dialect, v Verdict) error {
	spec := ev.Host.spec()
	if v.Ask && spec.cannotAsk {
		v.Ask, v.Reason = false, noAsk(v.Reason)
	}
	if spec.write != nil {
		return spec.write(w, ev, d, v)
	}
	reason := CleanText(v.Reason)
	if v.Block && reason == "" {
		reason = defaultReason
	}
	a, err := spec.shape(ev, v, reason, CleanText(v.Context))
	if err != nil {
		return err
	}
	if spec.showsSystemMessage {
		a.SystemMessage = CleanText(v.SystemMessage)
	}
	return encode(w, a)
}

// writeClaudeShaped answers in Claude Code's shapes whatever the dialect
// (Qwen Code reads no other; a config's "sdk" dialect, meant for an
// Agent SDK host, must not reach it, or its agent is let go on an answer
// it ignores), with a block never without a reason where nonEmpty
// (Codex refuses an empty one).
func writeClaudeShaped(nonEmpty bool) func(io.Writer, *Event, Dialect, Verdict) error {
	return func(w io.Writer, ev *Event, _ Dialect, v Verdict) error {
		if nonEmpty && v.Block && CleanText(v.Reason) == "" {
			v.Reason = defaultReason
		}
		return WriteAnswer(w, ev.HookEventName, DialectClaudeCode, v)
	}
}

// noAsk words the reason of a call the guard would ask the person about
// ("...: the person confirms it."), denied on a host that cannot ask.
func noAsk(reason string) string {
	return strings.TrimSuffix(reason, ": the person confirms it.") +
		": the person confirms such a call, and this host cannot ask them here, so donegate refuses it; the person can make the change themselves."
}

// cannotBlock and cannotTell are the errors of an answer a host's event
// cannot take.
func cannotBlock(ev *Event) error {
	return fmt.Errorf("cannot block a %q event", ev.WireEventName)
}

func cannotTell(ev *Event) error {
	return fmt.Errorf("cannot give context to the model in a %q answer", ev.WireEventName)
}

// stopContextSince is the first Claude Code that keeps a Stop or
// SubagentStop going on hookSpecificOutput.additionalContext (before it,
// an answer carrying hookSpecificOutput at Stop was dropped whole).
var stopContextSince = [3]int{2, 1, 163}

// TakesStopContext reports whether Claude Code version v (from its
// transcript; "" when unknown) is held at a stop by additionalContext.
// Measured on 2.1.331 and 2.1.332: the turn goes on, the model reads
// "Stop hook additional context: R", the next Stop has stop_hook_active
// true, and the person sees "Stop hook says: R" in grey, where a block
// shows as "Stop hook reported a problem"; both count to the CLI's cap.
func TakesStopContext(v string) bool {
	got, ok := parseVersion(v)
	if !ok {
		return false
	}
	for i := range got {
		if got[i] != stopContextSince[i] {
			return got[i] > stopContextSince[i]
		}
	}
	return true
}

// parseVersion reads "MAJOR.MINOR.PATCH" (anything after a patch's digits
// ignored).
func parseVersion(v string) ([3]int, bool) {
	var out [3]int
	parts := strings.SplitN(v, ".", 3)
	if len(parts) != 3 {
		return out, false
	}
	for i, p := range parts {
		n := 0
		digits := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
			digits++
			if n > 1<<20 {
				return out, false
			}
		}
		if digits == 0 {
			return out, false
		}
		out[i] = n
	}
	return out, true
}
