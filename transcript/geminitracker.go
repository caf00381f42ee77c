package transcript

import (
	"context"
	"path/filepath"
)

// Gemini CLI's task tracker (its tracker_* tools, on with
// "experimental": {"taskTracker": true}; measured with 0.61.0) keeps one
// file per task, <project temp dir>/<session id>/tracker/<id>.json, beside
// the session's chat file in <project temp dir>/chats/:
//
//	{"id":"3fa2c1","title":"Write DONE.txt","description":"...","type":"task",
//	 "status":"in_progress","dependencies":[]}
//
// statuses open, in_progress, blocked and closed.

// GeminiTrackerDir returns the tracker dir of the Gemini session whose chat
// file is transcriptPath, or "" when the path is not a chat file under a
// chats/ dir, or the session id could lead a read outside that dir.
func GeminiTrackerDir(transcriptPath, sessionID string) string {
	if !filepath.IsAbs(transcriptPath) || !SafeID(sessionID) {
		return ""
	}
	chats := filepath.Dir(filepath.Clean(transcriptPath))
	if filepath.Base(chats) != "chats" {
		return ""
	}
	return filepath.Join(filepath.Dir(chats), sessionID, "tracker")
}

var geminiTracker = taskFiles{title: "title", status: "status", noun: "tracker task", statusOf: func(s string) (string, bool) {
	if s == "closed" {
		return "completed", true
	}
	return s, true
}}

// GeminiTracker returns the tasks of the Gemini task tracker dir, ordered
// by id, read as ReadTasks reads Claude Code's (an unreadable file is an
// open item that says so); a closed task is completed. found is false when
// there is no dir or no task in it.
func GeminiTracker(ctx context.Context, dir string) (items []Item, found bool, err error) {
	return readTaskDir(ctx, dir, geminiTracker)
}
