// Package transcript reads an agent's plan where Claude Code keeps it: the
// latest TodoWrite call in a session transcript (JSONL), or the Task tools'
// files under <claude dir>/tasks/<list id>/.
//
// Transcripts grow to hundreds of MB, so the reader walks the file
// backwards in blocks and stops at the first (that is, latest) TodoWrite
// call made by the agent itself; it never loads the whole file. Lines of
// other types — api-request-blob lines in particular, which hold stale
// copies of old assistant messages — never count.
//
// The package only reads; it never writes or locks anything.
package transcript

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tidwall/gjson"
)

// Item is one plan item.
type Item struct {
	Title  string
	Status string // pending, in_progress, completed; anything else is open
}

// Done reports whether the item is completed.
func (it Item) Done() bool { return it.Status == "completed" }

// blockSize is how much is read per step from the end of the file; a
// variable so tests can make lines straddle many blocks.
var blockSize = 128 << 10

// MaxLineBytes bounds one transcript line. Longer lines are skipped: the
// agent's own TodoWrite lines are small, and holding a giant line in memory
// would make a hook's footprint depend on the session.
const MaxLineBytes = 32 << 20

// ReadOptions tune LatestTodoWrite.
type ReadOptions struct {
	// SkipSidechain ignores lines with "isSidechain":true. Set it for a
	// main-session transcript of versions that mixed subagent lines into
	// it; leave it unset for a subagent's own transcript, where every line
	// is a sidechain line.
	SkipSidechain bool
}

// ErrChanged is returned when the transcript shrank while being read.
var ErrChanged = errors.New("transcript changed while being read")

var (
	todoWriteMark = []byte(`"TodoWrite"`)
	sidechainMark = []byte(`"isSidechain":true`)
)

// LatestTodoWrite returns the todos of the latest TodoWrite call the agent
// made in the transcript at path. found is false when the file has none, or
// does not exist: no plan is a normal state.
func LatestTodoWrite(path string, opt ReadOptions) (items []Item, found bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("transcript %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, false, fmt.Errorf("transcript %s: not a regular file", path)
	}
	read := func(size int64) error {
		items, found = nil, false
		return eachLineBackward(f, size, func(line []byte) bool {
			if !bytes.Contains(line, todoWriteMark) {
				return true
			}
			if opt.SkipSidechain && bytes.Contains(line, sidechainMark) {
				return true
			}
			items, found = todoWriteItems(line)
			return !found
		})
	}
	err = read(st.Size())
	if errors.Is(err, ErrChanged) {
		// Claude Code only appends; a file that shrank was replaced or
		// truncated while we read it. Read it once more as it is now.
		if st, err = f.Stat(); err == nil {
			err = read(st.Size())
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("transcript %s: %w", path, err)
	}
	return items, found, nil
}

// todoWriteItems extracts the last valid TodoWrite call from one line, if
// the line is the agent's own (top-level type "assistant") and whole.
func todoWriteItems(line []byte) ([]Item, bool) {
	if gjson.GetBytes(line, "type").Str != "assistant" || !gjson.ValidBytes(line) {
		return nil, false
	}
	var items []Item
	found := false
	gjson.GetBytes(line, "message.content").ForEach(func(_, block gjson.Result) bool {
		if block.Get("type").Str != "tool_use" || block.Get("name").Str != "TodoWrite" {
			return true
		}
		todos := block.Get("input.todos")
		if !todos.IsArray() {
			// The tool rejects such a call, so it never became the plan.
			return true
		}
		var call []Item
		todos.ForEach(func(_, t gjson.Result) bool {
			// Both {content,status,activeForm} and the older
			// {content,status,priority,id} shapes carry content and status.
			call = append(call, Item{Title: t.Get("content").String(), Status: t.Get("status").String()})
			return true
		})
		items, found = call, true
		return true
	})
	return items, found
}

// eachLineBackward calls fn for every line of r (size bytes long), last
// line first, until fn returns false. A line without its trailing newline
// (a half-written last line) is passed too; callers validate JSON. Lines
// longer than MaxLineBytes are skipped.
func eachLineBackward(r io.ReaderAt, size int64, fn func(line []byte) bool) error {
	buf := make([]byte, blockSize)
	// pieces holds the part of the current line read so far, in reverse
	// order: the line's start lies in data not yet read.
	var pieces [][]byte
	pieceLen := 0
	skipping := false // the current line is over MaxLineBytes
	emit := func(head []byte) bool {
		if skipping {
			skipping = false
			pieces, pieceLen = pieces[:0], 0
			return true
		}
		line := head
		if len(pieces) > 0 {
			line = make([]byte, 0, len(head)+pieceLen)
			line = append(line, head...)
			for i := len(pieces) - 1; i >= 0; i-- {
				line = append(line, pieces[i]...)
			}
			pieces, pieceLen = pieces[:0], 0
		}
		if len(line) == 0 {
			return true
		}
		return fn(line)
	}
	for pos := size; pos > 0; {
		n := int64(len(buf))
		if pos < n {
			n = pos
		}
		pos -= n
		block := buf[:n]
		m, err := r.ReadAt(block, pos)
		if m < len(block) {
			if err == nil || errors.Is(err, io.EOF) {
				// The file shrank under us (truncated or rewritten in
				// place): what was read no longer lines up.
				return ErrChanged
			}
			return err
		}
		end := len(block)
		for {
			i := bytes.LastIndexByte(block[:end], '\n')
			if i < 0 {
				break
			}
			if !emit(block[i+1 : end]) {
				return nil
			}
			end = i
		}
		// block[:end] is the tail of a line that starts earlier.
		if skipping || end == 0 {
			continue
		}
		if pieceLen+end > MaxLineBytes {
			skipping = true
			pieces, pieceLen = pieces[:0], 0
			continue
		}
		pieces = append(pieces, bytes.Clone(block[:end]))
		pieceLen += end
	}
	emit(nil)
	return nil
}
