// Package transcript reads an agent's plan and what it said where each
// host keeps them: Claude Code's session transcript (JSONL: the latest
// TodoWrite call) or its Task tools' files under <claude dir>/tasks/<list
// id>/, Codex's rollout (update_plan), Qwen Code's chat and todos, Gemini
// CLI's chat file (write_todos), Copilot CLI's events and session.db. A
// host's reader is called from that host's spec in package hookio.
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
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
	"github.com/donegate/donegate/internal/regular"
)

// Item is one plan item.
type Item struct {
	Title  string
	Status string // pending, in_progress, completed; anything else is open
}

// Done reports whether the item is completed.
func (it Item) Done() bool { return it.Status == "completed" }

// blockSize is the most read per step from the end of the file.
//
// firstStep is the first read of a scan; each further read doubles, up to
// blockSize. What a hook looks for (a line's newline, the latest assistant
// message, a recent TodoWrite) is most often within the last few KiB, and
// for a process that lives ten milliseconds every page it copies or
// touches counts; a long scan still reaches full blocks within five reads.
//
// Both are variables so tests can make lines straddle many reads.
var (
	blockSize = 128 << 10
	firstStep = 8 << 10
)

// grow returns the next read size after step, at most limit.
func grow(step, limit int) int { return min(2*step, limit) }

// MaxLineBytes bounds one transcript line. Longer lines are skipped: the
// agent's own TodoWrite lines are small, and holding a giant line in memory
// would make a hook's footprint depend on the session.
const MaxLineBytes = 32 << 20

// MaxLineDepth bounds how deeply one transcript line nests. Deeper lines
// are skipped like longer ones: gjson recurses once per level, and a line
// of a few million '[' (inside MaxLineBytes) would overflow the stack and
// crash the hook with exit 2. The agent's own lines nest a few levels.
const MaxLineDepth = 512

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
// does not exist: no plan is a normal state. A path that is not a regular
// file (a FIFO, a directory, a device) is an error that wraps
// regular.ErrNotRegular: the check cannot run. It is refused without
// blocking, since opening a FIFO to read waits for a writer that may never
// come, and the host would kill the hook with nothing decided.
func LatestTodoWrite(ctx context.Context, path string, opt ReadOptions) (items []Item, found bool, err error) {
	f, err := open(path)
	if err != nil || f == nil { // f is nil for a file that does not exist
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("transcript %s: %w", path, err)
	}
	r := within(ctx, f)
	items, found, err = latestTodoWrite(r, st.Size(), opt)
	if errors.Is(err, ErrChanged) {
		// Claude Code only appends; a file that shrank was replaced or
		// truncated while we read it. Read it once more as it is now.
		if st, err = f.Stat(); err == nil {
			items, found, err = latestTodoWrite(r, st.Size(), opt)
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("transcript %s: %w", path, err)
	}
	return items, found, nil
}

// open opens the transcript at path for the readers above. A file that
// does not exist is no error and no file (nil, nil): a session that has
// not written one yet has said nothing. One that is not a regular file is
// an error that names it and wraps regular.ErrNotRegular, without
// blocking on a FIFO (see LatestTodoWrite).
func open(path string) (*os.File, error) {
	f, err := regular.Open(path)
	if err == nil {
		return f, nil
	}
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, regular.ErrNotRegular) && errors.As(err, &pe):
		return nil, fmt.Errorf("transcript %s: %w", path, pe.Err)
	}
	return nil, fmt.Errorf("transcript: %w", err)
}

// latestTodoWrite is LatestTodoWrite on the first size bytes of r.
func latestTodoWrite(r io.ReaderAt, size int64, opt ReadOptions) (items []Item, found bool, err error) {
	err = eachMarkedLineBackward(r, size, [][]byte{todoWriteMark}, otherType, func(line []byte) bool {
		if opt.SkipSidechain && bytes.Contains(line, sidechainMark) {
			return true
		}
		items, found = todoWriteItems(line)
		return !found
	})
	return items, found, err
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
// longer than MaxLineBytes or nested deeper than MaxLineDepth are skipped.
func eachLineBackward(r io.ReaderAt, size int64, fn func(line []byte) bool) error {
	buf := make([]byte, min(int64(blockSize), size))
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
		if len(line) == 0 || !jsondepth.Within(line, MaxLineDepth) {
			return true
		}
		return fn(line)
	}
	step := min(firstStep, len(buf))
	for pos := size; pos > 0; step = grow(step, len(buf)) {
		n := min(int64(step), pos)
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
			i := lastNewline(block[:end])
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

// eachMarkedLineBackward calls fn for every line of r (size bytes long)
// that contains one of markers, last line first, until fn returns false.
// Unlike eachLineBackward it copies only those lines: it searches the file
// for the markers and finds the boundaries of each line around a hit, so
// the cost of a huge transcript is one pass of bytes.Index over it. A line
// whose first headBytes bytes skip reports (an api-request-blob copy of a
// Claude transcript, say; nil skips none) is passed over after reading
// them; lines longer than MaxLineBytes or nested deeper than MaxLineDepth
// are skipped too.
func eachMarkedLineBackward(r io.ReaderAt, size int64, markers [][]byte, skip func(head []byte) bool, fn func(line []byte) bool) error {
	return eachMarkedLineIn(r, size, markers, skip, markBuf(size), fn)
}

// markBuf returns a buffer for eachMarkedLineIn on size bytes: a block,
// or the whole of a smaller file, and room for two of any marker and a
// line's head.
func markBuf(size int64) []byte {
	return make([]byte, max(min(int64(blockSize), size), 64, headBytes))
}

// eachMarkedLineIn is eachMarkedLineBackward reading through buf: a
// caller that searches one file for several things allocates one buffer.
// A buffer that cannot hold two of the longest marker (a tool_use_id is
// as long as the event makes it) is replaced by one that can: every step
// of the search must move back by more than a marker's overlap.
func eachMarkedLineIn(r io.ReaderAt, size int64, markers [][]byte, skip func(head []byte) bool, buf []byte, fn func(line []byte) bool) error {
	longest := 0
	for _, m := range markers {
		longest = max(longest, len(m))
	}
	if len(buf) < max(2*longest, headBytes) {
		buf = make([]byte, max(len(buf), 2*longest, headBytes))
	}
	for end := size; end > 0; {
		p, n, err := lastIndex(r, end, markers, buf)
		if err != nil || p < 0 {
			return err
		}
		start, err := lineStart(r, p, buf)
		if err != nil {
			return err
		}
		stop, err := lineEnd(r, p+int64(n), size, buf)
		if err != nil {
			return err
		}
		end = max(start-1, 0) // the next search ends before this line's newline
		if stop-start > MaxLineBytes {
			continue
		}
		if skip != nil {
			head := buf[:min(headBytes, stop-start)]
			if err := readFull(r, head, start); err != nil {
				return err
			}
			if skip(head) {
				continue
			}
		}
		line := make([]byte, stop-start)
		if err := readFull(r, line, start); err != nil {
			return err
		}
		if !jsondepth.Within(line, MaxLineDepth) {
			continue
		}
		if !fn(line) {
			return nil
		}
	}
	return nil
}

// headBytes is how much of a line's start a skip function of
// eachMarkedLineBackward is shown: enough for {"type":"assistant".
const headBytes = 32

var (
	typePrefix     = []byte(`{"type":"`)
	assistantValue = []byte(`assistant"`)
)

// lastIndex returns the offset of the last of markers in r[0:end], or -1,
// and the length of the marker found there.
func lastIndex(r io.ReaderAt, end int64, markers [][]byte, buf []byte) (int64, int, error) {
	longest := 0
	for _, m := range markers {
		longest = max(longest, len(m))
	}
	overlap := int64(longest - 1)
	// buf holds at least two of the longest marker, so every step moves
	// back; a longer marker (a rewind's id, see geminiPlan) gets a buffer
	// of its own. With a step shorter than the overlap each step moved
	// forward, until a read past the end took the file for shrunk.
	if len(buf) < 2*longest {
		buf = make([]byte, 2*longest)
	}
	step := min(max(firstStep, 2*longest), len(buf))
	for hi := end; hi > 0; step = grow(step, len(buf)) {
		lo := max(0, hi-int64(step))
		chunk := buf[:hi-lo]
		if err := readFull(r, chunk, lo); err != nil {
			return -1, 0, err
		}
		last, n := -1, 0
		for _, m := range markers {
			if i := lastIndexForward(chunk, m); i > last {
				last, n = i, len(m)
			}
		}
		if last >= 0 {
			return lo + int64(last), n, nil
		}
		if lo == 0 {
			break
		}
		hi = lo + overlap // a marker may straddle two chunks
	}
	return -1, 0, nil
}

// lastIndexForward is bytes.LastIndex(b, marker) found with bytes.Index,
// which is vectorized where LastIndex is not: about 6 times faster on
// transcript text, and a chunk holds few markers if any.
func lastIndexForward(b, marker []byte) int {
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

// lastNewline is bytes.LastIndexByte(b, '\n'), which is a plain loop, run
// only on the last 4 KiB window that holds a newline: the windows after
// it are skipped with the vectorized bytes.IndexByte. Transcript lines
// (a tool result, an api-request-blob) can run to megabytes, and a JSON
// line holds no newline but the one that ends it.
func lastNewline(b []byte) int {
	const window = 4 << 10
	for hi := len(b); hi > 0; {
		lo := max(0, hi-window)
		if bytes.IndexByte(b[lo:hi], '\n') >= 0 {
			return lo + bytes.LastIndexByte(b[lo:hi], '\n')
		}
		hi = lo
	}
	return -1
}

// lineStart returns the offset just after the last newline before p, or 0.
func lineStart(r io.ReaderAt, p int64, buf []byte) (int64, error) {
	step := min(firstStep, len(buf))
	for hi := p; hi > 0; step = grow(step, len(buf)) {
		lo := max(0, hi-int64(step))
		chunk := buf[:hi-lo]
		if err := readFull(r, chunk, lo); err != nil {
			return 0, err
		}
		if i := lastNewline(chunk); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		hi = lo
	}
	return 0, nil
}

// lineEnd returns the offset of the first newline at or after from, or size.
func lineEnd(r io.ReaderAt, from, size int64, buf []byte) (int64, error) {
	step := min(firstStep, len(buf))
	for lo := from; lo < size; step = grow(step, len(buf)) {
		hi := min(size, lo+int64(step))
		chunk := buf[:hi-lo]
		if err := readFull(r, chunk, lo); err != nil {
			return 0, err
		}
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			return lo + int64(i), nil
		}
		lo = hi
	}
	return size, nil
}

// readFull fills b from offset off; a short read means the file shrank.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n < len(b) {
		if err == nil || errors.Is(err, io.EOF) {
			return ErrChanged
		}
		return err
	}
	return nil
}
