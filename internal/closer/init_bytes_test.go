package closer

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"
)

// TestInitKeepsTheFilesBytes: what init does not change comes back byte
// for byte: keys as they were escaped (issue 18: a lone surrogate or
// invalid UTF-8 in a root key was re-encoded, so the key changed), the
// file's own line ends (a CRLF file came back with mixed ones), and the
// white space around the top-level value.
func TestInitKeepsTheFilesBytes(t *testing.T) {
	for _, tt := range []struct {
		name, settings string
		keep           []string // byte strings the result must still hold
		crlf           bool     // every line end is "\r\n"
	}{
		{name: "a lone surrogate in a root key", settings: `{"\ud800x": 1, "model": "opus"}`, keep: []string{`"\ud800x": 1`}},
		{name: "an escaped key", settings: `{"\u00e9t\u00e9": true}`, keep: []string{`"\u00e9t\u00e9": true`}},
		{name: "invalid UTF-8 in a root key", settings: "{\"a\xffb\": 2}", keep: []string{"\"a\xffb\": 2"}},
		{name: "invalid UTF-8 in a key of hooks", settings: "{\"hooks\": {\"\xfe\": []}}", keep: []string{"\"\xfe\": []"}},
		{
			name:     "CRLF line ends",
			settings: "{\r\n  \"model\": \"opus\",\r\n  \"hooks\": {\r\n    \"Stop\": []\r\n  }\r\n}\r\n",
			keep:     []string{"{\r\n  \"model\": \"opus\",\r\n  \"hooks\": {\r\n    \"Stop\": [\r\n      {\r\n"},
			crlf:     true,
		},
		{name: "no final newline", settings: `{"model": "opus"}`, keep: []string{"{\n  \"model\": \"opus\",\n  \"hooks\": {"}},
		{name: "white space around the value", settings: "\n\n{}\n\n", keep: []string{"\n\n{\n  \"hooks\""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectWith(t, map[string]string{".claude/settings.json": tt.settings})
			code, _, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable")
			require.Equal(t, ExitComplete, code, errOut)
			got := mustRead(t, filepath.Join(dir, ".claude", "settings.json"))
			for _, k := range tt.keep {
				assert.Contains(t, string(got), k)
			}
			assert.True(t, gjson.GetBytes(got, "hooks.Stop.0.hooks.0.command").Exists(), "%s", got)
			if tt.crlf {
				assert.Equal(t, bytes.Count(got, []byte("\n")), bytes.Count(got, []byte("\r\n")), "no bare line feed in %q", got)
			}
			last := tt.settings[len(bytes.TrimRight([]byte(tt.settings), " \t\r\n")):]
			assert.Equal(t, last, string(got[len(bytes.TrimRight(got, " \t\r\n")):]), "the file ends as it did")
		})
	}
}

// TestInitRegisteredAlreadyMeansTheSameHook: an entry counts as ours
// only at our event, under a matcher that selects ours, of type
// "command". Issue 18: a PreToolUse entry with matcher "Bash" (then no
// tool of ours there), or a "prompt" entry, counted, and the gate was
// never registered.
func TestInitRegisteredAlreadyMeansTheSameHook(t *testing.T) {
	for _, tt := range []struct {
		name, settings string
		event, matcher string // the registration that must be added
	}{
		{"posttooluse-hook under matcher Glob", `{"hooks": {"PreToolUse": [{"matcher": "Glob", "hooks": [{"type": "command", "command": "posttooluse-hook"}]}]}}`, "PreToolUse", "StructuredOutput|Bash|Write|Edit|MultiEdit|NotebookEdit"},
		{"a prompt entry naming stop-hook", `{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "prompt": "x", "command": "stop-hook"}]}]}}`, "Stop", ""},
		{"an entry without a type", `{"hooks": {"Stop": [{"hooks": [{"command": "stop-hook"}]}]}}`, "Stop", ""},
		{"SessionStart only at startup", `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "stop-hook --criteria"}]}]}}`, "SessionStart", ""},
		{"a matcher that is not a string", `{"hooks": {"PostToolUse": [{"matcher": 1, "hooks": [{"type": "command", "command": "posttooluse-hook"}]}]}}`, "PostToolUse", "StructuredOutput|Bash"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := projectWith(t, map[string]string{".claude/settings.json": tt.settings})
			code, _, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable")
			require.Equal(t, ExitComplete, code, errOut)
			got := mustRead(t, filepath.Join(dir, ".claude", "settings.json"))
			groups := gjson.GetBytes(got, "hooks."+tt.event).Array()
			// Our groups at the event, one per command: PostToolUse has two
			// (StructuredOutput|Bash, the edit tools' stop-hook --start).
			commands := map[string]bool{}
			for _, reg := range registrations {
				if reg.event == tt.event {
					commands[regCommand(reg.program, reg.flags)] = true
				}
			}
			ours := len(commands)
			require.Len(t, groups, 1+ours, "the user's entry is kept, ours added: %s", got)
			added := groups[1]
			assert.Equal(t, tt.matcher, added.Get("matcher").Str, "%s", got)
			assert.Equal(t, "command", added.Get("hooks.0.type").Str, "%s", got)
		})
	}
	// And these count: a matcher that selects ours among others, and
	// "*".
	for _, settings := range []string{
		`{"hooks": {"PreToolUse": [{"matcher": "Glob|StructuredOutput|Bash|Write|Edit|MultiEdit|NotebookEdit", "hooks": [{"type": "command", "command": "posttooluse-hook"}]}]}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "posttooluse-hook"}]}]}}`,
		`{"hooks": {"PreToolUse": [{"matcher": "Struct.*|Bash|Write|.*Edit", "hooks": [{"type": "command", "command": "posttooluse-hook"}]}]}}`,
	} {
		dir := projectWith(t, map[string]string{".claude/settings.json": settings})
		code, _, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--portable")
		require.Equal(t, ExitComplete, code, errOut)
		got := mustRead(t, filepath.Join(dir, ".claude", "settings.json"))
		assert.Len(t, gjson.GetBytes(got, "hooks.PreToolUse").Array(), 1, "%s", got)
	}
}

func TestDoctorReadsARepeatedKeyAsClaudeCodeDoes(t *testing.T) {
	// The first "hooks" registers everything, the last (which Claude
	// Code keeps) nothing of donegate's. Issue 18: doctor merged them
	// and said ✓.
	s := newDoctorSetup(t)
	s.write(t, filepath.Join(s.proj, ".claude", "settings.json"),
		exampleSettings[:len(exampleSettings)-1]+`, "hooks": {"Notification": [{"hooks": [{"type": "command", "command": "date"}]}]}}`)
	code, out, _ := s.run(t)
	// None registered: unknown, as a --plugin-dir plugin may run them.
	assert.Equal(t, ExitComplete, code, out)
	assert.Contains(t, out, "? settings: not registered in any settings file or installed plugin")
	assert.NotContains(t, out, "✓ settings: stop-hook at Stop")
}
