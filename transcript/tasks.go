package transcript

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsondepth"
	"github.com/donegate/donegate/internal/regular"
)

// maxTaskFileBytes bounds one task file; real ones are a few hundred bytes.
const maxTaskFileBytes = 1 << 20

// SafeID reports whether id can name a directory under the tasks folder:
// ids come from hook input, and a path separator or ".." in one must never
// lead a read outside it.
func SafeID(id string) bool {
	return id != "" && id != "." && id != ".." && len(id) <= 255 &&
		!strings.ContainsAny(id, `/\`+"\x00")
}

// TaskDir returns <claudeDir>/tasks/<listID>, or "" when listID is unsafe.
func TaskDir(claudeDir, listID string) string {
	if claudeDir == "" || !SafeID(listID) {
		return ""
	}
	return filepath.Join(claudeDir, "tasks", listID)
}

// ReadTasks returns the items of the Task tools' list in dir, ordered by
// task id. found is false when the directory is missing or holds no task.
// A task file that cannot be read or parsed becomes an open item that says
// so: it must never count as done, and must not hide the other tasks. So
// does one that is not a regular file (a FIFO is refused without blocking:
// opening it to read would wait for a writer) or that nests deeper than
// MaxLineDepth (gjson recurses per level: half a million levels fit in the
// 1 MiB bound, cost 0.4 s and 120 MB of stack, and made the whole array
// the item's title).
func ReadTasks(dir string) (items []Item, found bool, err error) {
	return readTaskDir(context.Background(), dir, claudeTasks)
}

// taskFiles says how a host's task files name a task's title and status:
// Claude Code's Task tools write {"subject", "status"} (deleted: gone),
// Gemini CLI's task tracker {"title", "status"} (see GeminiTracker).
type taskFiles struct {
	title, status string
	// statusOf maps the file's status to an Item's; false drops the task.
	statusOf func(string) (string, bool)
	noun     string // what a task is called in an item's title
}

var claudeTasks = taskFiles{title: "subject", status: "status", noun: "task", statusOf: func(s string) (string, bool) {
	return s, s != "deleted"
}}

// readTaskDir reads the task files of dir as ReadTasks says, stopping
// with ctx's error when it ends first.
func readTaskDir(ctx context.Context, dir string, files taskFiles) (items []Item, found bool, err error) {
	if dir == "" {
		return nil, false, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("task list: %w", err)
	}
	type task struct {
		order string
		num   int
		item  Item
	}
	var tasks []task
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		id := strings.TrimSuffix(name, ".json")
		num, numErr := strconv.Atoi(id)
		if numErr != nil {
			num = -1
		}
		it, ok := readTask(filepath.Join(dir, name), files)
		if !ok {
			continue // deleted
		}
		tasks = append(tasks, task{order: id, num: num, item: it})
	}
	sort.SliceStable(tasks, func(i, j int) bool {
		a, b := tasks[i], tasks[j]
		if (a.num >= 0) != (b.num >= 0) {
			return a.num >= 0
		}
		if a.num != b.num {
			return a.num < b.num
		}
		return a.order < b.order
	})
	for _, t := range tasks {
		items = append(items, t.item)
	}
	return items, len(items) > 0, nil
}

// readTask reads one task file. ok is false for a task marked deleted.
func readTask(path string, files taskFiles) (it Item, ok bool) {
	name := filepath.Base(path)
	broken := func(why string) (Item, bool) {
		return Item{Title: fmt.Sprintf("%s file %s (%s)", files.noun, name, why), Status: "unreadable"}, true
	}
	f, err := regular.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Item{}, false // removed between listing and reading
		}
		return broken("unreadable: " + reason(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTaskFileBytes+1))
	if err != nil {
		return broken("unreadable: " + reason(err))
	}
	if len(data) > maxTaskFileBytes {
		return broken("larger than 1 MiB")
	}
	if !jsondepth.Within(data, MaxLineDepth) {
		return broken(fmt.Sprintf("nested more than %d levels deep", MaxLineDepth))
	}
	if !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject() {
		return broken("not a JSON object")
	}
	r := gjson.GetManyBytes(data, files.title, files.status)
	status, kept := files.statusOf(r[1].String())
	if !kept {
		return Item{}, false
	}
	title := r[0].String()
	if title == "" {
		title = files.noun + " " + strings.TrimSuffix(name, ".json")
	}
	return Item{Title: title, Status: status}, true
}

// reason drops the path from a *PathError: the caller names the file.
func reason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
