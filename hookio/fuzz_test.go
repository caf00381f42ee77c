package hookio_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/donegate/donegate/hookio"
)

// seedEvents adds the recorded events under testdata/ to a fuzz corpus.
func seedEvents(f *testing.F) {
	files, _ := filepath.Glob("../testdata/events/*.json")
	hosts, _ := filepath.Glob("../testdata/events/*/*.json")
	for _, p := range append(files, hosts...) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"hook_event_name":"Stop","session_id":"s"}`))
	f.Add([]byte(`{"hook_event_name":"PreToolUse","tool_name":"StructuredOutput","tool_input":{"a":[1,2]}}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
}

// FuzzEvent: decoding never panics, and every event that decodes gets a
// well-formed answer — exactly one JSON object, in every dialect, blocked
// or not — whose reason is clean and bounded.
func FuzzEvent(f *testing.F) {
	seedEvents(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		hookio.Peek(data)
		ev, err := hookio.Parse(data, hookio.HostClaude)
		if err != nil {
			fuzzHosts(t, data)
			return
		}
		if ev.HookEventName == "" {
			t.Fatal("decoded an event without a name")
		}
		names := []string{hookio.EventStop, hookio.EventSubagentStop, hookio.EventPreToolUse, hookio.EventPostToolUse}
		for _, name := range names {
			for _, d := range []hookio.Dialect{hookio.DialectClaudeCode, hookio.DialectSDK} {
				for _, block := range []bool{false, true} {
					// The event's own text stands in for hostile feedback.
					v := hookio.Verdict{Block: block, Reason: ev.LastAssistantMessage + ev.SessionID, SystemMessage: ev.Cwd}
					var out bytes.Buffer
					if err := hookio.WriteAnswer(&out, name, d, v); err != nil {
						t.Fatal(err)
					}
					checkAnswer(t, out.Bytes())
				}
			}
		}
		fuzzHosts(t, data)
	})
}

// fuzzHosts: whichever host the event is read as, reading never panics,
// an event that decodes has a name, and every answer a host takes is one
// well-formed JSON object, clean and bounded; the rest are refused with
// an error and nothing written.
func fuzzHosts(t *testing.T, data []byte) {
	hookio.DetectHost(data, func(string) string { return "s" })
	if h := hookio.DetectHost(data, nil); !slices.Contains(hookio.Hosts, h) {
		t.Fatalf("detected %q, not a host", h)
	}
	for _, h := range hookio.Hosts {
		hookio.PeekHost(data, h)
		ev, err := hookio.Parse(data, h)
		if err != nil {
			continue
		}
		if ev.Host != h || ev.HookEventName == "" || ev.WireEventName == "" {
			t.Fatalf("%s: decoded an event without a host or a name: %+v", h, ev)
		}
		for _, name := range []string{hookio.EventStop, hookio.EventSubagentStop, hookio.EventPreToolUse, hookio.EventPostToolUse, hookio.EventSessionStart, hookio.EventUserPromptSubmit} {
			e := *ev
			e.HookEventName = name
			for _, v := range []hookio.Verdict{
				{Block: true, Reason: ev.LastAssistantMessage + ev.Prompt, SystemMessage: ev.Cwd},
				{SystemMessage: ev.SessionID},
				{Context: ev.Prompt + "x"},
			} {
				var out bytes.Buffer
				if err := hookio.WriteHostAnswer(&out, &e, hookio.DialectClaudeCode, v); err != nil {
					if out.Len() > 0 {
						t.Fatalf("%s %s: refused, yet wrote %q", h, name, out.Bytes())
					}
					continue
				}
				checkAnswer(t, out.Bytes())
			}
		}
	}
}

func checkAnswer(t *testing.T, out []byte) {
	t.Helper()
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.Count(out, []byte("\n")) != 1 {
		t.Fatalf("answer is not one line: %q", out)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("answer is not a JSON object: %v: %q", err, out)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value: %q", out)
	}
	for _, k := range []string{"reason", "systemMessage", "followup_message", "additional_context", "permissionDecisionReason"} {
		if s, ok := m[k].(string); ok {
			checkClean(t, s)
		}
	}
}

func checkClean(t *testing.T, s string) {
	t.Helper()
	if n := utf8.RuneCountInString(s); n > hookio.MaxFeedbackRunes {
		t.Fatalf("text of %d runes exceeds the bound", n)
	}
	if strings.ContainsAny(s, "\x1b\x00\r\x07") {
		t.Fatalf("text carries control characters: %q", s)
	}
}

// FuzzCleanText: cleaning is bounded, valid UTF-8, free of escapes, and
// idempotent.
func FuzzCleanText(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m\n\tok")
	f.Add("\x1b]0;title\x07x")
	// Large seeds make the fuzzer minimise for ages; the cut at the bound
	// is covered by unit tests.
	f.Add(strings.Repeat("é", 64))
	f.Add("\xff\xfe")
	f.Fuzz(func(t *testing.T, s string) {
		c := hookio.CleanText(s)
		if !utf8.ValidString(c) {
			t.Fatalf("invalid UTF-8: %q", c)
		}
		checkClean(t, c)
		if utf8.RuneCountInString(s) <= hookio.MaxFeedbackRunes-100 && hookio.CleanText(c) != c {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, c, hookio.CleanText(c))
		}
	})
}
