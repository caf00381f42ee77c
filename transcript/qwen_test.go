package transcript

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestQwenPlan(t *testing.T) {
	runHostCases(t, "s.json", []hostCase{
		{name: "missing file is no plan"},
		{name: "recorded: open", fixture: "qwen/todos/open.json", want: "Write DONE.txt=in_progress,Report back=pending", found: true},
		{name: "recorded: done", fixture: "qwen/todos/done.json", want: "Write DONE.txt=completed,Report back=completed", found: true},
		{name: "symlink to a todo file is read", kind: "symlink", fixture: "qwen/todos/open.json", want: "Write DONE.txt=in_progress,Report back=pending", found: true},
		{name: "empty list", lines: []string{`{"planId":"p","todos":[]}`}, found: true},
		{name: "an item without content is named by its id", lines: []string{`{"todos":[{"id":"7","status":"pending"}]}`}, want: "todo 7=pending", found: true},
		{name: "not JSON", lines: []string{`{"todos":[`}, wantErr: "not valid JSON"},
		{name: "no todos array", lines: []string{`{"todos":"none"}`}, wantErr: "no todos array"},
		{name: "too deep", lines: []string{`{"todos":[],"x":` + strings.Repeat("[", MaxLineDepth) + strings.Repeat("]", MaxLineDepth) + `}`}, wantErr: "nested more than 512 levels deep"},
		{name: "too large", lines: []string{`{"todos":[],"x":"` + strings.Repeat("x", maxTodoFileBytes) + `"}`}, wantErr: "larger than 1 MiB"},
		{name: "directory", kind: "dir", wantErr: "not a regular file (a directory)"},
		{name: "FIFO is refused without blocking", kind: "fifo", wantErr: "not a regular file (a FIFO)"},
	}, QwenPlan)
}

// native is the absolute Unix path p as this system writes it: on
// Windows, on drive C: with backslashes; relative paths and "" as they are.
func native(p string) string {
	if runtime.GOOS != "windows" || !strings.HasPrefix(p, "/") {
		return filepath.FromSlash(p)
	}
	return `C:` + filepath.FromSlash(p)
}

func TestQwenDir(t *testing.T) {
	for _, tc := range []struct {
		name, transcript, home, want string
	}{
		{"the ancestor holding projects/", "/h/.qwen/projects/-home-user-proj/chats/s1.jsonl", "/other", "/h/.qwen"},
		{"a QWEN dir elsewhere", "/data/q/projects/p/chats/s1.jsonl", "/h", "/data/q"},
		{"the nearest projects/ counts", "/h/projects/x/.qwen/projects/p/chats/s.jsonl", "/h", "/h/projects/x/.qwen"},
		{"no projects/ in the path: home", "/tmp/t.jsonl", "/h", "/h/.qwen"},
		{"no transcript: home", "", "/h", "/h/.qwen"},
		{"nothing", "", "", ""},
		{"a relative path is not looked at", "projects/p/chats/s.jsonl", "/h", "/h/.qwen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, native(tc.want), QwenDir(native(tc.transcript), native(tc.home)))
		})
	}
	assert.Equal(t, native("/h/.qwen/todos/s1.json"), QwenTodoFile(native("/h/.qwen"), "s1"))
	for _, bad := range []string{"", "..", "a/b", `a\b`, "x\x00"} {
		assert.Empty(t, QwenTodoFile(native("/h/.qwen"), bad), bad)
	}
}
