package transcript

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsonw"
	"github.com/donegate/donegate/internal/regular"
)

// Claude Code writes its transcript asynchronously, so a hook can run
// before the file holds what the hook event is about (tens of
// milliseconds after the hook starts: docs/checkers.md has the figures),
// and a plan read from it then is one step stale. So a hook waits,
// boundedly, for the line that the event names.

// Wait bounds a wait for a lagging transcript.
type Wait struct {
	// Max is the hard bound on the whole wait.
	Max time.Duration
	// Quiet ends the wait early once the file has not changed (same size
	// and modification time) for this long: a writer that is still
	// catching up appends within tens of milliseconds, while a host that
	// never writes the awaited line (the recorded SubagentStop, whose
	// last_assistant_message is not in the subagent's transcript) would
	// otherwise cost every stop the whole of Max.
	Quiet time.Duration
	// awaitFile waits for a transcript that does not exist yet, as for
	// one that lags, instead of taking it for none.
	awaitFile bool
}

// DefaultWait is 3 s at most, and 300 ms of a file that does not change:
// several times the slowest catch-up measured, so a writer that is
// merely late is waited for, while a transcript that will never hold the
// line costs a stop 0.3 s instead of 3 s.
var DefaultWait = Wait{Max: 3 * time.Second, Quiet: 300 * time.Millisecond}

// ToolUseWait is DefaultWait with a quiet period of 1 s, for the gated
// call's own tool_use block (HoldsToolUse): the host writes it for every
// call it runs, so a file that stops changing is a writer descheduled,
// not a line that never comes (with 300 ms a loaded machine let an early
// StructuredOutput through: docs/checkers.md). The longer quiet costs
// only a call whose transcript never holds it.
var ToolUseWait = Wait{Max: 3 * time.Second, Quiet: time.Second}

// pollInterval is how often a wait looks at the transcript again.
const pollInterval = 20 * time.Millisecond

// CaughtUp waits until the latest text the agent wrote in the transcript
// at path is lastMessage (the event's last_assistant_message), within the
// bounds of w or until ctx ends, and reports whether it is. Texts are
// compared whole, white space around them trimmed: an earlier message
// that merely ends the same way, or an empty one, is not the last one.
// With no lastMessage, or no transcript, there is nothing to wait for.
func CaughtUp(ctx context.Context, path, lastMessage string, w Wait) bool {
	want := strings.TrimSpace(lastMessage)
	if want == "" {
		return true
	}
	return w.until(ctx, path, func(r io.ReaderAt, size int64) (bool, error) {
		return lastTextIs(r, size, want)
	})
}

// HoldsToolUse waits until the transcript at path holds the agent's
// tool_use block with id toolUseID (the event's tool_use_id), within the
// bounds of w or until ctx ends, and reports whether it does. Once it
// does, every line the agent wrote before the call, its latest TodoWrite
// included, is in the file too: Claude Code appends in order. Only the
// agent's own lines count, not the api-request-blob copies. With no id
// there is nothing to wait for. A transcript that does not exist yet is
// waited for as a lagging one: the real CLI had not created it when the
// hook started in 9 of 25 loaded runs, and the plan, read from nothing,
// let an early StructuredOutput through. One that stays missing for
// w.Quiet ends the wait.
func HoldsToolUse(ctx context.Context, path, toolUseID string, w Wait) bool {
	if toolUseID == "" {
		return true
	}
	marker := jsonString(toolUseID)
	w.awaitFile = true
	return w.until(ctx, path, func(r io.ReaderAt, size int64) (bool, error) {
		found := false
		err := eachMarkedLineBackward(r, size, [][]byte{marker}, otherType, func(line []byte) bool {
			found = holdsToolUse(line, toolUseID)
			return !found
		})
		return found, err
	})
}

// jsonString is s as a JSON string, quotes included, HTML characters
// unescaped, as JavaScript's JSON.stringify (Claude Code's writer) writes
// it.
func jsonString(s string) []byte { return jsonw.AppendString(nil, s, false) }

// holdsToolUse reports whether line is the agent's own (top-level type
// "assistant"), whole, and holds a tool_use block with id.
func holdsToolUse(line []byte, id string) bool {
	if gjson.GetBytes(line, "type").Str != "assistant" || !gjson.ValidBytes(line) {
		return false
	}
	found := false
	gjson.GetBytes(line, "message.content").ForEach(func(_, b gjson.Result) bool {
		found = b.Get("type").Str == "tool_use" && b.Get("id").Str == id
		return !found
	})
	return found
}

// probe looks at the first size bytes of a transcript. r starts at a line
// boundary; lines before it were looked at already and did not hold what
// is awaited.
type probe func(r io.ReaderAt, size int64) (bool, error)

// fileState is what tells a file that changed from one that did not.
type fileState struct {
	info os.FileInfo
	// missing: there was no file; two looks that both found none saw no
	// change.
	missing bool
}

func (a fileState) same(b fileState) bool {
	if a.missing || b.missing {
		return a.missing && b.missing
	}
	return a.info != nil && b.info != nil && os.SameFile(a.info, b.info) &&
		a.info.Size() == b.info.Size() && a.info.ModTime().Equal(b.info.ModTime())
}

// until polls the transcript at path until found says it holds what is
// awaited, ctx ends, w.Max has passed, or the file has not changed for
// w.Quiet. Each poll looks only at the lines appended since the previous
// one (Claude Code only appends), so a long wait on a huge transcript
// reads it once, not once a poll.
func (w Wait) until(ctx context.Context, path string, found probe) bool {
	start := time.Now()
	lastChange := start
	var prev fileState
	var from int64 // start of the first line not yet looked at
	for {
		cur, ok, done := w.look(path, &from, prev, found)
		if done {
			return ok
		}
		now := time.Now()
		if !cur.same(prev) {
			prev, lastChange = cur, now
		}
		if now.Sub(start) >= w.Max || now.Sub(lastChange) >= w.Quiet {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(min(pollInterval, w.Max-now.Sub(start))):
		}
	}
}

// look is one poll. done is true when the wait is over, with ok its
// answer: the transcript holds what is awaited, or cannot be read (its
// reader reports why; waiting will not help), or does not exist (no
// transcript, no plan: nothing to wait for).
func (w Wait) look(path string, from *int64, prev fileState, found probe) (cur fileState, ok, done bool) {
	f, err := regular.Open(path)
	if err != nil && w.awaitFile && errors.Is(err, fs.ErrNotExist) {
		return fileState{missing: true}, false, false
	}
	if err != nil {
		return fileState{}, true, true
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fileState{}, true, true
	}
	cur = fileState{info: info}
	size := info.Size()
	if prev.info == nil || !os.SameFile(prev.info, info) || size < *from {
		*from = 0 // a new or replaced file: look at all of it
	}
	r := io.NewSectionReader(f, *from, size-*from)
	hit, err := found(r, size-*from)
	if err != nil {
		if errors.Is(err, ErrChanged) {
			*from = 0 // rewritten while read: look at all of it next time
			return cur, false, false
		}
		return cur, true, true
	}
	if hit {
		return cur, true, true
	}
	// The next poll starts at the last line, which may be half-written.
	buf := make([]byte, max(min(int64(blockSize), size-*from), 1))
	if start, err := lineStart(r, size-*from, buf); err == nil {
		*from += start
	}
	return cur, false, false
}

// lastTextIs reports whether the latest text the agent wrote in the first
// size bytes of r is want.
func lastTextIs(r io.ReaderAt, size int64, want string) (bool, error) {
	match := false
	err := eachLineBackward(r, size, func(line []byte) bool {
		text, ok := lineText(line, ReadOptions{})
		if !ok {
			return true // not the agent's text (a tool call or thinking line): look further back
		}
		// Whole texts only: a suffix test took an earlier "done." for the
		// new "All done." and a white-space-only text for anything.
		got := strings.TrimSpace(text)
		match = got != "" && got == want
		return false
	})
	return match, err
}

var assistantMark = []byte(`"assistant"`)
