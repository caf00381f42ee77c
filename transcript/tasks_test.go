package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadTasks: every task file that is not a readable, sane task is an
// open item naming the file, never a done one, and never a hang.
func TestReadTasks(t *testing.T) {
	const done = `{"id":"1","subject":"Write tests","status":"completed"}`
	// deep is a done task whose "x" nests levels deep; the object is
	// level 1, so n brackets reach level n+1.
	deep := func(n int, closed bool) string {
		tail := "}"
		if closed {
			tail = strings.Repeat("]", n) + "}"
		}
		return `{"subject":"Deep","status":"completed","x":` + strings.Repeat("[", n) + tail
	}
	tests := []struct {
		name    string
		content string // written to 2.json
		fifo    bool   // 2.json is a FIFO instead
		want    string // "title=status" of 2.json's item; "" when it has none
	}{
		{name: "done task", content: `{"subject":"Ship","status":"completed"}`, want: "Ship=completed"},
		{name: "deleted task does not count", content: `{"subject":"Gone","status":"deleted"}`},
		{name: "malformed", content: `{"subject":`, want: "task file 2.json (not a JSON object)=unreadable"},
		{name: "FIFO is an open item, without blocking", fifo: true, want: "task file 2.json (unreadable: not a regular file (a FIFO))=unreadable"},
		{name: "a million levels deep, unclosed", content: deep(1_000_000, false), want: "task file 2.json (nested more than 512 levels deep)=unreadable"},
		{name: "one level past the bound", content: deep(MaxLineDepth, true), want: "task file 2.json (nested more than 512 levels deep)=unreadable"},
		{name: "at the bound", content: deep(MaxLineDepth-1, true), want: "Deep=completed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "1.json"), []byte(done), 0o600))
			p := filepath.Join(dir, "2.json")
			if tt.fifo {
				fifotest.Make(t, p)
			} else {
				require.NoError(t, os.WriteFile(p, []byte(tt.content), 0o600))
			}
			var (
				items []Item
				found bool
				err   error
			)
			returnsWithin(t, time.Minute, func() { items, found, err = ReadTasks(dir) })
			require.NoError(t, err)
			require.True(t, found)
			var got []string
			for _, it := range items {
				got = append(got, it.Title+"="+it.Status)
			}
			want := []string{"Write tests=completed"}
			if tt.want != "" {
				want = append(want, tt.want)
			}
			assert.Equal(t, want, got)
			for _, it := range items[1:] {
				if strings.HasPrefix(it.Title, "task file ") {
					assert.False(t, it.Done(), "a broken task file must never count as done")
				}
			}
		})
	}
}

// TestReadTasksDirIsFIFO: a FIFO where the task list's directory should be
// is an error (the plan cannot be read), returned at once.
func TestReadTasksDirIsFIFO(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "list")
	fifotest.Make(t, dir)
	var err error
	returnsWithin(t, time.Minute, func() { _, _, err = ReadTasks(dir) })
	require.Error(t, err)
	assert.Contains(t, err.Error(), dir)
}
