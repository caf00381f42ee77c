package transcript

import (
	"bytes"
	"context"
	"io"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/regular"
)

// versionTail bounds how much of a transcript's end ClientVersion reads:
// every line Claude Code writes carries its version, so the last lines do.
const versionTail = 64 << 10

// ClientVersion returns the version of the Claude Code that writes the
// transcript at path ("2.1.331"), from its latest line that names one
// among the last 64 KiB; "" when none does or the file cannot be read.
func ClientVersion(path string) string {
	if path == "" {
		return ""
	}
	f, err := regular.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	var version string
	read := 0
	_ = eachLineBackward(f, info.Size(), func(line []byte) bool {
		read += len(line) + 1
		version = lineVersion(line)
		return version == "" && read < versionTail
	})
	return version
}

// AwaitClientVersion is ClientVersion for a transcript that may lag the
// event: while the file at path holds none of the conversation's lines
// (it does not exist yet, or holds only lines that are not messages), it
// waits for one as w allows, then reads the version. Read at once, the
// first hold of a session on a loaded machine found no version, and took
// the answer's older form (e2e TestAgentSDKNeverFinishingAgentIsLetGo-
// AfterMaxBlocks/callback, once in a CI run). A transcript whose messages
// carry no version is not waited on.
func AwaitClientVersion(ctx context.Context, path string, w Wait) string {
	if v := ClientVersion(path); v != "" || path == "" || w.Max <= 0 {
		return v
	}
	w.awaitFile = true
	if !w.until(ctx, path, holdsConversation) {
		return ""
	}
	return ClientVersion(path)
}

// holdsConversation reports whether the last versionTail bytes of the
// first size bytes of r hold a line of the conversation (a user or
// assistant message: Claude Code writes its version on each) or one that
// names a version.
func holdsConversation(r io.ReaderAt, size int64) (bool, error) {
	found, read := false, 0
	err := eachLineBackward(r, size, func(line []byte) bool {
		read += len(line) + 1
		switch gjson.GetBytes(line, "type").Str {
		case "user", "assistant":
			found = true
		default:
			found = lineVersion(line) != ""
		}
		return !found && read < versionTail
	})
	return found, err
}

// lineVersion is the version a transcript line names, or "".
func lineVersion(line []byte) string {
	if !bytes.Contains(line, []byte(`"version"`)) {
		return ""
	}
	return gjson.GetBytes(line, "version").Str
}
