package transcript

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
	"github.com/donegate/donegate/internal/regular"
)

// Qwen Code keeps the agent's todo list (its todo_write tool, off unless
// tools.todoWrite.enabled) in <qwen dir>/todos/<session id>.json, rewritten
// whole at each call:
//
//	{"planId":"...","todos":[{"id":"1","content":"Write DONE.txt","status":"in_progress"}]}
//
// statuses pending, in_progress and completed. Its transcripts are under
// <qwen dir>/projects/<sanitized cwd>/chats/<session id>.jsonl.

// maxTodoFileBytes bounds a Qwen todo file: a list of a hundred items is
// some kilobytes.
const maxTodoFileBytes = 1 << 20

// QwenDir returns the Qwen Code dir a session's files are under: the
// ancestor of transcriptPath that holds its projects/ dir, else
// home/.qwen ("" when home is "" too). It only looks at the path, and
// only at an absolute one: a relative path would name a dir under the
// hook's cwd, the repository, which must not be able to supply the plan.
func QwenDir(transcriptPath, home string) string {
	if filepath.IsAbs(transcriptPath) {
		dir := filepath.Dir(filepath.Clean(transcriptPath))
		for {
			parent := filepath.Dir(dir)
			if filepath.Base(dir) == "projects" && parent != dir {
				return parent
			}
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".qwen")
}

// QwenTodoFile returns <qwenDir>/todos/<sessionID>.json, or "" when the
// session id could lead a read outside that dir (see SafeID).
func QwenTodoFile(qwenDir, sessionID string) string {
	if qwenDir == "" || !SafeID(sessionID) {
		return ""
	}
	return filepath.Join(qwenDir, "todos", sessionID+".json")
}

// QwenPlan returns the todos of the Qwen Code todo file at path. found is
// false when there is no file: no plan is a normal state. A file that
// cannot be read as a todo list (not a regular file, over 1 MiB, nested
// deeper than MaxLineDepth, not JSON, no todos array) is an error that
// names it: the check cannot run, and the list must not count as done.
func QwenPlan(path string) (items []Item, found bool, err error) {
	if path == "" {
		return nil, false, nil
	}
	f, err := regular.Open(path)
	if err != nil {
		var pe *fs.PathError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, false, nil
		case errors.Is(err, regular.ErrNotRegular) && errors.As(err, &pe):
			return nil, false, fmt.Errorf("todo file %s: %w", path, pe.Err)
		}
		return nil, false, fmt.Errorf("todo file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTodoFileBytes+1))
	if err != nil {
		return nil, false, fmt.Errorf("todo file %s: %w", path, err)
	}
	switch {
	case len(data) > maxTodoFileBytes:
		return nil, false, fmt.Errorf("todo file %s: larger than %d MiB", path, maxTodoFileBytes>>20)
	case !jsondepth.Within(data, MaxLineDepth):
		return nil, false, fmt.Errorf("todo file %s: nested more than %d levels deep", path, MaxLineDepth)
	case !gjson.ValidBytes(data):
		return nil, false, fmt.Errorf("todo file %s: not valid JSON", path)
	}
	todos := gjson.GetBytes(data, "todos")
	if !todos.IsArray() {
		return nil, false, fmt.Errorf("todo file %s: no todos array", path)
	}
	todos.ForEach(func(_, t gjson.Result) bool {
		title := t.Get("content").String()
		if strings.TrimSpace(title) == "" {
			title = "todo " + t.Get("id").String()
		}
		items = append(items, Item{Title: title, Status: t.Get("status").String()})
		return true
	})
	return items, true, nil
}
