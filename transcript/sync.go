package transcript

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// pollInterval is how often CaughtUp looks at the transcript again.
const pollInterval = 20 * time.Millisecond

// CaughtUp waits until the transcript at path holds the agent's last
// message, for at most maxWait or until ctx ends, and reports whether it
// does. Claude Code writes its transcript asynchronously: at a Stop hook
// the file can lack the last turns (seen with 2.1.330: the TodoWrite of
// the turn before and the final message appear while the hook runs), and
// a plan read from it then would be stale. The hook event's
// last_assistant_message tells what the file must end with.
func CaughtUp(ctx context.Context, path, lastMessage string, maxWait time.Duration) bool {
	want := strings.TrimSpace(lastMessage)
	if want == "" {
		return true // nothing to wait for
	}
	deadline := time.Now().Add(maxWait)
	for {
		if lastAssistantTextIs(path, want) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(pollInterval):
		}
	}
}

var assistantMark = []byte(`"assistant"`)

// lastAssistantTextIs reports whether the latest text the agent wrote in
// the transcript is want.
func lastAssistantTextIs(path, want string) bool {
	f, err := os.Open(path)
	if err != nil {
		return errors.Is(err, os.ErrNotExist) // no file: nothing to wait for
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return true // not ours to fix: the reader reports it
	}
	match := false
	_ = eachLineBackward(f, st.Size(), func(line []byte) bool {
		if !bytes.Contains(line, assistantMark) || gjson.GetBytes(line, "type").Str != "assistant" || !gjson.ValidBytes(line) {
			return true
		}
		var texts []string
		gjson.GetBytes(line, "message.content").ForEach(func(_, b gjson.Result) bool {
			if b.Get("type").Str == "text" {
				texts = append(texts, b.Get("text").Str)
			}
			return true
		})
		if len(texts) == 0 {
			return true // a tool call or thinking line: look further back
		}
		got := strings.TrimSpace(strings.Join(texts, "\n"))
		match = got == want || strings.HasSuffix(want, got) || strings.HasSuffix(got, want)
		return false
	})
	return match
}
