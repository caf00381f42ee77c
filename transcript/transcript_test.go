package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// returnsWithin fails the test, instead of hanging it, when fn has not
// returned after d: opening a FIFO the wrong way blocks for ever.
func returnsWithin(t *testing.T, d time.Duration, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still blocked after %v", d)
	}
}

// deepTodo is an agent's TodoWrite line that also holds a value nested
// levels deep (levels of '[', closed when closed is set).
func deepTodo(title string, levels int, closed bool) string {
	tail := ""
	if closed {
		tail = strings.Repeat("]", levels)
	}
	return `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[{"content":"` +
		title + `","status":"pending"}]}}]},"x":` + strings.Repeat("[", levels) + tail + `}`
}

// TestLatestTodoWrite covers the file around the backward reader, which
// FuzzLatestTodoWrite, reading from memory, does not.
func TestLatestTodoWrite(t *testing.T) {
	const (
		open   = `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[{"content":"Write tests","status":"pending"}]}}]}}`
		done   = `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[{"content":"Write tests","status":"completed"}]}}]}}`
		side   = `{"type":"assistant","isSidechain":true,"message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[{"content":"Subagent step","status":"pending"}]}}]}}`
		stale  = `{"type":"api-request-blob","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[{"content":"Old","status":"pending"}]}}]}}`
		noPlan = `{"type":"assistant","message":{"content":[{"type":"text","text":"Hello"}]}}`
	)
	for _, tc := range []struct {
		name    string
		lines   []string // nil: no file at all
		kind    string   // "dir" or "fifo": the path is one instead of a file
		opt     ReadOptions
		want    string // "title=status,..." of the items
		found   bool
		wantErr string
	}{
		{name: "missing file is no plan", found: false},
		{name: "empty file", lines: []string{}, found: false},
		{name: "no TodoWrite", lines: []string{noPlan, noPlan}, found: false},
		{name: "latest call wins", lines: []string{open, noPlan, done, noPlan}, want: "Write tests=completed", found: true},
		{name: "stale copy after the latest call is skipped", lines: []string{done, stale}, want: "Write tests=completed", found: true},
		{name: "whole last line without newline", lines: []string{done, open + "\x00"}, want: "Write tests=pending", found: true},
		{name: "last line cut short", lines: []string{done, open[:90] + "\x00"}, want: "Write tests=completed", found: true},
		{name: "sidechain counts in a subagent's own transcript", lines: []string{open, side}, want: "Subagent step=pending", found: true},
		{name: "sidechain skipped on request", lines: []string{open, side}, opt: ReadOptions{SkipSidechain: true}, want: "Write tests=pending", found: true},
		{name: "directory", kind: "dir", wantErr: "not a regular file (a directory)"},
		{name: "FIFO is refused without blocking", kind: "fifo", wantErr: "not a regular file (a FIFO)"},
		// The line's object is level 1, so n brackets in "x" reach level n+1.
		{name: "line six million levels deep is skipped", lines: []string{done, deepTodo("Deep", 6_000_000, false)}, want: "Write tests=completed", found: true},
		{name: "line one level past the bound is skipped", lines: []string{done, deepTodo("Deep", MaxLineDepth, true)}, want: "Write tests=completed", found: true},
		{name: "line at the bound is read", lines: []string{done, deepTodo("Deep", MaxLineDepth-1, true)}, want: "Deep=pending", found: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			switch {
			case tc.kind == "dir":
				require.NoError(t, os.Mkdir(path, 0o700))
			case tc.kind == "fifo":
				fifotest.Make(t, path)
			case tc.lines != nil:
				text := strings.Join(tc.lines, "\n")
				// A trailing NUL marks a last line with no newline after
				// it, as while Claude Code is still writing it.
				text, cut := strings.CutSuffix(text, "\x00")
				if !cut && text != "" {
					text += "\n"
				}
				if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var (
				items []Item
				found bool
				err   error
			)
			returnsWithin(t, time.Minute, func() { items, found, err = LatestTodoWrite(context.Background(), path, tc.opt) })
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Contains(t, err.Error(), path)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, it := range items {
				got = append(got, it.Title+"="+it.Status)
			}
			assert.Equal(t, tc.found, found)
			assert.Equal(t, tc.want, strings.Join(got, ","))
		})
	}
}

// TestEachLineBackwardSkipsDeepLines: the plain line reader, which the
// wait for a lagging transcript uses, never hands a too-deep line to a
// caller that would parse it.
func TestEachLineBackwardSkipsDeepLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		deep string
		want []string
	}{
		{"six million levels", strings.Repeat("[", 6_000_000), []string{"b", "a"}},
		{"one past the bound", strings.Repeat("[", MaxLineDepth+1) + strings.Repeat("]", MaxLineDepth+1), []string{"b", "a"}},
		{"at the bound", strings.Repeat("[", MaxLineDepth) + strings.Repeat("]", MaxLineDepth), []string{"b", strings.Repeat("[", MaxLineDepth) + strings.Repeat("]", MaxLineDepth), "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := "a\n" + tc.deep + "\nb\n"
			var got []string
			err := eachLineBackward(strings.NewReader(data), int64(len(data)), func(line []byte) bool {
				got = append(got, string(line))
				return true
			})
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestMarkedLineSearchTakesAnyMarker: a marker longer than half the
// buffer handed in (a tool_use_id is as long as the event makes it) is
// still found, and the search ends: a step no longer than the marker's
// overlap would never move back.
func TestMarkedLineSearchTakesAnyMarker(t *testing.T) {
	marker := []byte(`"` + strings.Repeat("x", 200) + `"`)
	data := "a\n{\"id\":" + string(marker) + "}\nb\n"
	var got []string
	returnsWithin(t, time.Minute, func() {
		err := eachMarkedLineIn(strings.NewReader(data), int64(len(data)), [][]byte{marker}, nil, make([]byte, 64), func(line []byte) bool {
			got = append(got, string(line))
			return true
		})
		require.NoError(t, err)
	})
	assert.Equal(t, []string{`{"id":` + string(marker) + `}`}, got)
}
