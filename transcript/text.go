package transcript

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
)

// What the agent says, as opposed to what it plans: the keyword and phase
// checkers read the agent's own text. Claude Code writes one transcript
// line per content block of a model message, so a message of text and a
// tool call is two "type":"assistant" lines, the text first; only text
// blocks are what the agent said (a tool's input, such as a file it
// writes, is not).

// lineText returns the text of line when it is the agent's own (top-level
// type "assistant", whole, and not a subagent's when opt says so): its
// text blocks joined by "\n". isText is false for a tool call or thinking
// line, which says nothing.
func lineText(line []byte, opt ReadOptions) (text string, isText bool) {
	if !bytes.Contains(line, assistantMark) || gjson.GetBytes(line, "type").Str != "assistant" || !gjson.ValidBytes(line) {
		return "", false
	}
	if opt.SkipSidechain && gjson.GetBytes(line, "isSidechain").Bool() {
		return "", false
	}
	var texts []string
	gjson.GetBytes(line, "message.content").ForEach(func(_, b gjson.Result) bool {
		if b.Get("type").Str == "text" {
			texts = append(texts, b.Get("text").Str)
		}
		return true
	})
	if len(texts) == 0 {
		return "", false
	}
	return strings.Join(texts, "\n"), true
}

var userMark = []byte(`"user"`)

// LastText returns what the agent said last in the transcript at path:
// the text of its latest message, for a stop whose event carries no
// last_assistant_message. found is false when there is none, the file
// does not exist, or it did not catch up within w.
//
// The transcript may be a turn behind at a stop (see CaughtUp), and then
// its latest text is an earlier message: one that held the keyword the
// agent has since taken back, say. So the text must come after the latest
// "user" line of the conversation (a prompt, a tool result, a Stop hook's
// feedback: the agent's answer to it is not written yet), and it waits
// for one within w. Tool call and thinking lines of the agent in between
// are passed over: at a gated tool call, what the agent said is the text
// it wrote before the call, and a message with no text says nothing.
//
// A path that is not a regular file is an error, as for LatestTodoWrite.
func LastText(ctx context.Context, path string, opt ReadOptions, w Wait) (text string, found bool, err error) {
	f, err := open(path)
	if err != nil || f == nil { // f is nil for a file that does not exist
		return "", false, err
	}
	f.Close()
	w.until(ctx, path, func(r io.ReaderAt, size int64) (bool, error) {
		// r starts where the previous poll found nothing: when it holds
		// no line of the conversation, nothing has changed.
		err := eachLineBackward(r, size, func(line []byte) bool {
			if !bytes.Contains(line, assistantMark) && !bytes.Contains(line, userMark) {
				return true
			}
			if opt.SkipSidechain && bytes.Contains(line, sidechainMark) {
				return true
			}
			switch gjson.GetBytes(line, "type").Str {
			case "assistant":
				text, found = lineText(line, opt)
				return !found
			case "user":
				return false
			}
			return true
		})
		return found, err
	})
	return text, found, nil
}

// ReadTexts calls fn with what the agent said in each of its text lines
// (see lineText) of the transcript at path, in order, from the position
// from to the last whole line, and returns the position just past that
// line: where the next call goes on. A hook that keeps the position reads
// each line of a transcript of hundreds of MB once, not at every stop. A
// last line without its newline is being written: it is left for the
// next call. The zero Position is the start of the file.
//
// A file that is not the one from was taken in, or was cut, or holds
// other bytes before from's offset (see Position) is read from the start,
// and restarted is true. A file that does not exist has nothing to read:
// next is from. Lines longer than MaxLineBytes or nested deeper than
// MaxLineDepth are skipped.
func ReadTexts(ctx context.Context, path string, from Position, opt ReadOptions, fn func(text string)) (next Position, restarted bool, err error) {
	f, err := open(path)
	if err != nil || f == nil { // f is nil for a file that does not exist
		return from, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return from, false, fmt.Errorf("transcript %s: %w", path, err)
	}
	size := st.Size()
	start := from.Offset
	r := within(ctx, f)
	tail, ok := from.resume(r, st)
	if !ok {
		start, tail, restarted = 0, make([]byte, 0, TailBytes), true
	}
	next.Dev, next.Ino = fileID(st)
	next.Size = size
	next.Offset, tail, err = readTexts(io.NewSectionReader(r, start, size-start), start, tail, opt, fn)
	h := tailHash(tail)
	next.Tail = string(h[:])
	if err != nil {
		return next, restarted, fmt.Errorf("transcript %s: %w", path, err)
	}
	return next, restarted, nil
}

// readTexts is ReadTexts on r, which starts at offset base of the file,
// after the bytes tail. It returns the offset past the last whole line
// and the TailBytes bytes before it.
func readTexts(r io.Reader, base int64, tail []byte, opt ReadOptions, fn func(string)) (int64, []byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	next := base
	var long []byte // a line longer than the reader's buffer, so far
	var read int64  // bytes of the current line before chunk
	var longTail []byte
	skipping := false
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if read == 0 && otherType(chunk) {
				// An api-request-blob copy, often of megabytes: no need
				// to hold it to know it does not count.
				skipping = true
			}
			read += int64(len(chunk))
			longTail = keepTail(longTail, chunk)
			if !skipping && len(long)+len(chunk) <= MaxLineBytes {
				long = append(long, chunk...)
			} else {
				skipping, long = true, nil
			}
			continue
		case errors.Is(err, io.EOF):
			// A half-written last line, or nothing: next stays at its start.
			return next, tail, nil
		case err != nil:
			return next, tail, err
		}
		n := read + int64(len(chunk))
		line := chunk
		if long != nil {
			line = append(long, chunk...)
		}
		if !skipping && len(line) <= MaxLineBytes && !otherType(line) && jsondepth.Within(line, MaxLineDepth) {
			if text, ok := lineText(line, opt); ok {
				fn(text)
			}
		}
		next += n
		if read > 0 {
			tail = keepTail(tail, longTail)
			longTail = longTail[:0]
		}
		tail = keepTail(tail, chunk)
		long, read, skipping = nil, 0, false
	}
}

// otherType reports whether line begins with a "type" that is not
// "assistant": the api-request-blob copies, which hold old assistant
// messages, are told apart at their first bytes.
func otherType(line []byte) bool {
	return bytes.HasPrefix(line, typePrefix) && !bytes.HasPrefix(line[len(typePrefix):], assistantValue)
}
