package transcript

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
)

// Gemini CLI records a session as a chat JSONL file: a header line, then
// message records, each written again whole when it changes (the later
// copy of an id wins: a gemini message gets its toolCalls that way),
// {"$set": {...}} lines that update the session (one may hold the whole
// list of messages again) and {"$rewindTo": id} lines that drop the
// message id and every message after it. The plan is the latest
// write_todos call in a gemini message:
//
//	{"id":"...","timestamp":"...","type":"gemini","content":"","toolCalls":[{"id":"...","name":"write_todos","args":{"todos":[{"description":"Write DONE.txt","status":"in_progress"}]},"status":"success",...}],...}
//
// write_todos statuses are pending, in_progress, completed, cancelled and
// blocked. Open: pending, in_progress and blocked — a blocked step is
// work not done, and letting the agent stop on it would pass the task as
// done; donegate's max_blocks still bounds how long it is held, and the
// feedback asks it to finish the step or drop it from the plan. Closed:
// completed and cancelled — cancelling is how the agent drops a step it
// no longer needs (Gemini shows it struck out), the same thing donegate's
// feedback asks of an agent on every host ("update the plan to remove
// tasks that are no longer needed"). A cancelled item's Status is read as
// "completed": Item.Done keeps one meaning for every host.

var (
	writeTodosMark = []byte(`"write_todos"`)
	rewindMark     = []byte(`"$rewindTo"`)
)

// GeminiPlan returns the todos of the latest successful write_todos call
// in the Gemini CLI chat file at path. found is false when it has none,
// or does not exist: no plan is a normal state (Gemini 3 models have no
// write_todos). A call the tool did not run successfully (status other
// than "success") never became the list, and a call in a message a
// rewind dropped no longer counts: an earlier call does.
//
// Cost: as for LatestTodoWrite, the file is searched from its end and
// only lines naming write_todos (or a rewind) are copied.
//
// A path that is not a regular file is an error wrapping
// regular.ErrNotRegular.
func GeminiPlan(ctx context.Context, path string) (items []Item, found bool, err error) {
	f, err := open(path)
	if err != nil || f == nil { // f is nil for a file that does not exist
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("chat %s: %w", path, err)
	}
	r := within(ctx, f)
	items, found, err = geminiPlan(r, st.Size())
	if errors.Is(err, ErrChanged) {
		// Gemini CLI only appends; read a file that shrank once more.
		if st, err = f.Stat(); err == nil {
			items, found, err = geminiPlan(r, st.Size())
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("chat %s: %w", path, err)
	}
	return items, found, nil
}

// maxRewindID bounds the JSON-quoted id of a rewind that geminiPlan looks
// for: Gemini CLI's ids are a few dozen bytes, and the search holds two of
// its marker in memory.
const maxRewindID = 1 << 10

// geminiPlan is GeminiPlan on the first size bytes of r.
func geminiPlan(r io.ReaderAt, size int64) (items []Item, found bool, err error) {
	// dropped holds the ids of messages a rewind after the current
	// position removed; their earlier copies do not count either.
	dropped := map[string]bool{}
	buf := make([]byte, max(min(int64(blockSize), size), 64))
	marks := [][]byte{writeTodosMark, rewindMark}
	for end := size; end > 0; {
		line, start, ok, err := markedLineBefore(r, end, size, marks, buf)
		if err != nil || !ok {
			return nil, false, err
		}
		end = max(start-1, 0)
		if !gjson.ValidBytes(line) {
			continue
		}
		root := gjson.ParseBytes(line)
		if to := root.Get(`\$rewindTo`); to.Type == gjson.String {
			// Messages from to onwards are gone: go on from before the
			// latest copy of its record; none at all: the rewind dropped
			// every message.
			dropped[to.Str] = true
			mark := jsonString(to.Str)
			if len(mark) > maxRewindID {
				// No record can be found by it: as none at all.
				return nil, false, nil
			}
			p, _, err := lastIndex(r, start, [][]byte{append([]byte(`"id":`), mark...)}, buf)
			if err != nil || p < 0 {
				return nil, false, err
			}
			end = p
			continue
		}
		if id := root.Get("id"); id.Type == gjson.String {
			if dropped[id.Str] {
				continue
			}
			if items, found = geminiTodos(root); found {
				return items, true, nil
			}
			continue
		}
		// A $set line holding the whole list of messages again: its
		// latest call counts.
		msgs := root.Get(`\$set.messages`).Array()
		for i := len(msgs) - 1; i >= 0; i-- {
			if dropped[msgs[i].Get("id").Str] {
				continue
			}
			if items, found = geminiTodos(msgs[i]); found {
				return items, true, nil
			}
		}
	}
	return nil, false, nil
}

// geminiTodos returns the todos of the last successful write_todos call
// of the message msg, when it is a gemini message.
func geminiTodos(msg gjson.Result) (items []Item, found bool) {
	if msg.Get("type").Str != "gemini" {
		return nil, false
	}
	calls := msg.Get("toolCalls").Array()
	for i := len(calls) - 1; i >= 0; i-- {
		call := calls[i]
		todos := call.Get("args.todos")
		if call.Get("name").Str != "write_todos" || call.Get("status").Str != "success" || !todos.IsArray() {
			continue
		}
		todos.ForEach(func(_, t gjson.Result) bool {
			status := t.Get("status").String()
			if status == "cancelled" {
				status = "completed" // closed: see the package's Gemini notes
			}
			items = append(items, Item{Title: t.Get("description").String(), Status: status})
			return true
		})
		return items, true
	}
	return nil, false
}

// markedLineBefore returns the last line of r that holds one of markers
// and ends before end, with its offset; ok is false when there is none.
// size is r's size, for lines that run past end. Lines longer than
// MaxLineBytes or nested deeper than MaxLineDepth are passed over.
func markedLineBefore(r io.ReaderAt, end, size int64, markers [][]byte, buf []byte) (line []byte, start int64, ok bool, err error) {
	for end > 0 {
		p, n, err := lastIndex(r, end, markers, buf)
		if err != nil || p < 0 {
			return nil, 0, false, err
		}
		start, err := lineStart(r, p, buf)
		if err != nil {
			return nil, 0, false, err
		}
		stop, err := lineEnd(r, p+int64(n), size, buf)
		if err != nil {
			return nil, 0, false, err
		}
		end = max(start-1, 0)
		if stop-start > MaxLineBytes {
			continue
		}
		line := make([]byte, stop-start)
		if err := readFull(r, line, start); err != nil {
			return nil, 0, false, err
		}
		if !jsondepth.Within(line, MaxLineDepth) {
			continue
		}
		return line, start, true, nil
	}
	return nil, 0, false, nil
}
