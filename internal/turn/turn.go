// Package turn tells which turn of a session a stop belongs to, for a host
// whose events carry no turn id but whose session record shows one.
// donegate counts its blocks per session and turn (see package limit): a
// turn id that stays the same across the continuations of a turn lets a
// new prompt of the person start a fresh count without letting a
// continuation start one.
//
// It reads the host's session record through internal/regular, from its
// end and bounded (Window), and never fails a stop: whatever it cannot
// read is "no turn found", and the caller falls back to a coarser id.
package turn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
	"github.com/donegate/donegate/internal/regular"
)

// Window bounds how far from the end of a chat file the prompt's record is
// looked for: it stands before the turn's own records, which are a few
// KB each (a tool's output included, as Gemini CLI keeps it). A turn whose
// records outgrow it falls back to the prompt's text (see the gate).
const Window = 16 << 20

// MaxLine bounds one record: a person's prompt, with what was pasted in.
const MaxLine = 4 << 20

// chunk is how much is read at a time, searching backward.
const chunk = 256 << 10

// maxDepth bounds the nesting of a record parsed (gjson recurses per
// level).
const maxDepth = 512

// GeminiPrompt returns the id of the record in the Gemini CLI chat file at
// path that holds the person's prompt of the current turn: the last
// "type":"user" record whose content's first text is prompt, as the
// AfterAgent event's prompt field names it (measured with Gemini CLI
// 0.61.0: the same prompt on every AfterAgent of the turn, a deny's
// reason and a tool's result written as user records of their own, a new
// prompt — even of the same text — a new record). "" when there is none
// within Window, or no file.
//
// A path that is not a regular file is an error wrapping
// regular.ErrNotRegular.
func GeminiPrompt(path, prompt string) (string, error) {
	if prompt == "" || path == "" {
		return "", nil
	}
	f, err := regular.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("chat %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("chat %s: %w", path, err)
	}
	id, err := geminiPrompt(f, st.Size(), prompt)
	if err != nil {
		return "", fmt.Errorf("chat %s: %w", path, err)
	}
	return id, nil
}

// geminiPrompt is GeminiPrompt on the first size bytes of r.
func geminiPrompt(r io.ReaderAt, size int64, prompt string) (string, error) {
	// The prompt as Gemini CLI writes it (JSON.stringify): a text part.
	// Where Go escapes what JavaScript does not (U+2028, invalid UTF-8)
	// the marker is not found and the caller falls back.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(prompt); err != nil {
		return "", err
	}
	marker := append([]byte(`{"text":`), bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
	if len(marker) > MaxLine {
		return "", nil
	}
	low := max(0, size-Window)
	buf := make([]byte, max(chunk, 2*len(marker)))
	for hi := size; hi-low >= int64(len(marker)); {
		lo := max(low, hi-int64(len(buf)))
		part := buf[:hi-lo]
		if _, err := r.ReadAt(part, lo); err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		i := lastIndex(part, marker)
		if i < 0 {
			if lo == low {
				return "", nil
			}
			hi = lo + int64(len(marker)) - 1 // a marker may straddle two parts
			continue
		}
		at := lo + int64(i)
		line, err := lineAt(r, at, low, size)
		if err != nil {
			return "", err
		}
		if id := promptRecord(line, prompt); id != "" {
			return id, nil
		}
		hi = at + int64(len(marker)) - 1 // on, before this hit
	}
	return "", nil
}

// lineAt returns the line of r that holds offset at, within [low, size);
// nil when it is longer than MaxLine.
func lineAt(r io.ReaderAt, at, low, size int64) ([]byte, error) {
	start, end := at, at
	for start > low && at-start <= MaxLine {
		n := min(int64(4096), start-low)
		b := make([]byte, n)
		if _, err := r.ReadAt(b, start-n); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			start = start - n + int64(i) + 1
			break
		}
		start -= n
	}
	for end < size && end-start <= MaxLine {
		n := min(int64(4096), size-end)
		b := make([]byte, n)
		if _, err := r.ReadAt(b, end); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			end += int64(i)
			break
		}
		end += n
	}
	if end-start > MaxLine {
		return nil, nil
	}
	line := make([]byte, end-start)
	if _, err := r.ReadAt(line, start); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return line, nil
}

// promptRecord returns the id of the person's prompt record in line: the
// line itself, or the last such message of a {"$set":{"messages":[...]}}
// line (Gemini CLI writes the whole list again that way). A deny's reason
// is a user record too, whose displayContent may show the prompt: only
// content counts.
func promptRecord(line []byte, prompt string) string {
	if line == nil || !jsondepth.Within(line, maxDepth) || !gjson.ValidBytes(line) {
		return ""
	}
	rec := gjson.ParseBytes(line)
	if id := userPrompt(rec, prompt); id != "" {
		return id
	}
	msgs := rec.Get("$set.messages").Array()
	for i := len(msgs) - 1; i >= 0; i-- {
		if id := userPrompt(msgs[i], prompt); id != "" {
			return id
		}
	}
	return ""
}

// userPrompt returns rec's id when it is a user record whose content's
// first text is prompt.
func userPrompt(rec gjson.Result, prompt string) string {
	if rec.Get("type").Str != "user" || rec.Get("content.0.text").Str != prompt {
		return ""
	}
	return rec.Get("id").Str
}

// lastIndex is bytes.LastIndex by repeated bytes.Index: Go's LastIndex
// is Rabin-Karp, byte by byte (0.45 ms on a 300 KB chat file without the
// marker, measured), where Index runs vectorized (a tenth of that).
func lastIndex(b, marker []byte) int {
	last := -1
	for off := 0; ; {
		i := bytes.Index(b[off:], marker)
		if i < 0 {
			return last
		}
		last = off + i
		off = last + 1
	}
}
