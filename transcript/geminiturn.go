package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"
)

// What identifies a Gemini CLI turn. Inside the CLI a turn is a
// prompt_id, but no hook is given it (not in the event, not in the
// environment; measured with 0.61.0), stop_hook_active is false again
// after a continuation that ran a tool, and a prompt of the same text
// later in the session (typed again, or after --resume) comes with the
// same session_id and prompt. The chat file tells them apart: each prompt
// of the person is a user record of its own, and the AfterAgent event's
// prompt is that record's text on every stop of the turn. A deny's reason
// is written as a user record of the reason's text, a tool's result as one
// of functionResponse parts, so neither starts another turn
// (testdata/events/gemini/chat-write-todos.jsonl).

// geminiUserMark is in every user record, whatever the order of its
// keys or the kind of its first part (an image's inlineData before the
// text). A search for the record of text alone (`"type":"user",
// "content":[{"text":`) would miss a prompt whose record has another
// shape, and an older record of the same text would give the new prompt
// its spent count. Tool results are user records
// too, most of a long turn's lines: functionResponseMark passes over them
// before they are parsed.
var (
	geminiUserMark       = []byte(`"type":"user"`)
	functionResponseMark = []byte(`[{"functionResponse"`)
)

// hookContextTag begins the part a BeforeAgent hook's additionalContext
// adds after the prompt's own parts in its record (the event's prompt is
// the request from before it was added).
const hookContextTag = "<hook_context>"

// GeminiTurn returns the id of the record of the prompt that started the
// current turn, in the Gemini CLI chat file at path: the latest user
// record whose text is prompt. It returns "" when there is none (an empty
// prompt, a file that does not exist or holds no such record). A deny's
// reason is written as a user record too: where the prompt is a reason's
// text, the caller must tell the records apart (see gate's geminiTurn).
//
// Cost: the file is searched from its end for user records, and the
// search stops at the turn's own, so it reads what the turn wrote.
//
// A path that is not a regular file is an error wrapping
// regular.ErrNotRegular.
func GeminiTurn(path, prompt string) (string, error) {
	if prompt == "" {
		return "", nil
	}
	f, err := open(path)
	if err != nil || f == nil { // f is nil for a file that does not exist
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("chat %s: %w", path, err)
	}
	id, err := geminiTurnTail(f, st.Size(), prompt)
	if errors.Is(err, ErrChanged) {
		// Gemini CLI only appends; read a file that shrank once more.
		if st, err = f.Stat(); err == nil {
			id, err = geminiTurnTail(f, st.Size(), prompt)
		}
	}
	if err != nil {
		return "", fmt.Errorf("chat %s: %w", path, err)
	}
	return id, nil
}

// GeminiTurnWindow bounds how far from the end of the chat file the
// prompt's record is looked for. Where none is found every stop searches
// the whole window: 10 ms for 8 MiB on a loaded machine, where searching
// a whole 256 MiB file would cost every stop of a long session a second.
// A turn whose records outgrow it (many tools, long outputs) is counted
// per session: fewer blocks at worst, never more.
const GeminiTurnWindow = 8 << 20

// geminiTurnTail is geminiTurn on the last GeminiTurnWindow of the first
// size bytes of r; a line cut at the window's start is not JSON and is
// passed over.
func geminiTurnTail(r io.ReaderAt, size int64, prompt string) (string, error) {
	off := max(0, size-GeminiTurnWindow)
	return geminiTurn(io.NewSectionReader(r, off, size-off), size-off, prompt)
}

// geminiTurn is GeminiTurn on the first size bytes of r.
func geminiTurn(r io.ReaderAt, size int64, prompt string) (id string, err error) {
	err = eachMarkedLineBackward(r, size, [][]byte{geminiUserMark}, nil, func(line []byte) bool {
		if bytes.Contains(line, functionResponseMark) && !bytes.Contains(line, []byte(`"$set"`)) || !gjson.ValidBytes(line) {
			return true
		}
		root := gjson.ParseBytes(line)
		// A $set line may hold the list of messages again: its latest
		// matching record counts.
		msgs := []gjson.Result{root}
		if set := root.Get(`\$set.messages`); set.IsArray() {
			msgs = set.Array()
		}
		for i := len(msgs) - 1; i >= 0; i-- {
			if rec := msgs[i].Get("id"); rec.Type == gjson.String && isPromptRecord(msgs[i], prompt) {
				id = rec.Str
				return false
			}
		}
		return true
	})
	return id, err
}

// isPromptRecord reports whether msg is a user record of prompt: the text
// of its content's parts, joined as the CLI joins them for the event, is
// prompt, or prompt followed by a BeforeAgent hook's context.
func isPromptRecord(msg gjson.Result, prompt string) bool {
	if msg.Get("type").Str != "user" {
		return false
	}
	rest, ok := strings.CutPrefix(recordText(msg), prompt)
	return ok && (rest == "" || strings.HasPrefix(rest, hookContextTag))
}

// recordText is the text of a record's content's parts, joined as the
// CLI joins them for the event.
func recordText(msg gjson.Result) string {
	var text strings.Builder
	msg.Get("content").ForEach(func(_, part gjson.Result) bool {
		text.WriteString(part.Get("text").Str)
		return true
	})
	return text.String()
}
