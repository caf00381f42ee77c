package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
		dir     bool     // the path is a directory
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
		{name: "directory", dir: true, wantErr: "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			switch {
			case tc.dir:
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
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
			items, found, err := LatestTodoWrite(path, tc.opt)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), path) {
					t.Fatalf("err = %v, want one naming %s and saying %q", err, path, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				got = append(got, it.Title+"="+it.Status)
			}
			if found != tc.found || strings.Join(got, ",") != tc.want {
				t.Errorf("got %v %q, want %v %q", found, strings.Join(got, ","), tc.found, tc.want)
			}
		})
	}
}
