package transcript_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/transcript"
)

const (
	feedbackLine = `{"type":"user","isMeta":true,"message":{"role":"user","content":"Stop hook feedback:\nKeep going"}}` + "\n"
	resultLine   = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}` + "\n"
	thinkLine    = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm"}]}}` + "\n"
	sideLine     = `{"isSidechain":true,"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"sub says"}]}}` + "\n"
	systemLine   = `{"type":"system","content":"Stop hook ran"}` + "\n"
	twoTexts     = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"one"},{"type":"text","text":"two"}]}}` + "\n"
)

func TestLastText(t *testing.T) {
	tests := []struct {
		name    string
		content string
		later   string // appended 40 ms after the call
		opt     transcript.ReadOptions
		want    string
		found   bool
	}{
		{"the latest text", oldLine + textLine + systemLine, "", transcript.ReadOptions{}, "I am done.", true},
		{"text blocks of one line are joined", twoTexts, "", transcript.ReadOptions{}, "one\ntwo", true},
		{"a tool call after the text: the text of the message", textLine + toolLine, "", transcript.ReadOptions{}, "I am done.", true},
		{"a block after the latest text: not written yet", textLine + feedbackLine, "", transcript.ReadOptions{}, "", false},
		{"... and then written", textLine + feedbackLine, oldLine, transcript.ReadOptions{}, "Working on it.", true},
		{"a tool result after the latest text", textLine + toolLine + resultLine, "", transcript.ReadOptions{}, "", false},
		{"thinking is passed over, back to a user line", resultLine + thinkLine, "", transcript.ReadOptions{}, "", false},
		{"... until its text comes", resultLine + thinkLine, oldLine, transcript.ReadOptions{}, "Working on it.", true},
		{"a blob copy does not count", feedbackLine + blobLine, "", transcript.ReadOptions{}, "", false},
		{"a subagent's line is skipped when asked", oldLine + sideLine, "", transcript.ReadOptions{SkipSidechain: true}, "Working on it.", true},
		{"... and read in its own transcript", oldLine + sideLine, "", transcript.ReadOptions{}, "sub says", true},
		{"a half-written last line", oldLine + feedbackLine + textLine[:30], "", transcript.ReadOptions{}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o600))
			if tt.later != "" {
				done := make(chan struct{})
				go func() {
					defer close(done)
					time.Sleep(40 * time.Millisecond)
					f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
					if err == nil {
						_, _ = f.WriteString(tt.later)
						f.Close()
					}
				}()
				t.Cleanup(func() { <-done })
			}
			// A line that is to come is waited for without a quiet
			// period, so that a loaded machine's late writer is seen.
			w := transcript.Wait{Max: time.Second, Quiet: 150 * time.Millisecond}
			if tt.later != "" {
				w = endless
			}
			text, found, err := transcript.LastText(context.Background(), path, tt.opt, w)
			require.NoError(t, err)
			assert.Equal(t, tt.found, found)
			assert.Equal(t, tt.want, text)
		})
	}
}

func TestLastTextOfNoTranscript(t *testing.T) {
	text, found, err := transcript.LastText(context.Background(), filepath.Join(t.TempDir(), "none.jsonl"), transcript.ReadOptions{}, short)
	require.NoError(t, err)
	assert.False(t, found)
	assert.Empty(t, text)
	_, _, err = transcript.LastText(context.Background(), t.TempDir(), transcript.ReadOptions{}, short)
	assert.ErrorContains(t, err, "not a regular file (a directory)")
}

func TestReadTexts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	read := func(from transcript.Position, opt transcript.ReadOptions) ([]string, transcript.Position, bool) {
		t.Helper()
		var got []string
		next, restarted, err := transcript.ReadTexts(context.Background(), path, from, opt, func(s string) { got = append(got, s) })
		require.NoError(t, err)
		return got, next, restarted
	}

	// No file: nothing read, the position kept.
	got, next, _ := read(transcript.Position{Offset: 7}, transcript.ReadOptions{})
	assert.Empty(t, got)
	assert.Equal(t, transcript.Position{Offset: 7}, next)

	first := userLine + oldLine + toolLine + blobLine + sideLine + resultLine
	require.NoError(t, os.WriteFile(path, []byte(first+textLine[:25]), 0o600))
	got, next, restarted := read(transcript.Position{}, transcript.ReadOptions{SkipSidechain: true})
	assert.Equal(t, []string{"Working on it."}, got, "the agent's text only: no tool call, blob copy or subagent line")
	assert.EqualValues(t, len(first), next.Offset, "the half-written last line is left for the next read")
	assert.False(t, restarted)

	// The line is finished, and more appended: only the new lines are read.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(textLine[25:] + twoTexts)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	got, next2, restarted := read(next, transcript.ReadOptions{SkipSidechain: true})
	assert.Equal(t, []string{"I am done.", "one\ntwo"}, got)
	assert.False(t, restarted)
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, st.Size(), next2.Offset)

	// A subagent's transcript: its lines count.
	got, _, _ = read(transcript.Position{}, transcript.ReadOptions{})
	assert.Equal(t, []string{"Working on it.", "sub says", "I am done.", "one\ntwo"}, got)

	// Replaced by a shorter file: read from the start.
	require.NoError(t, os.WriteFile(path, []byte(oldLine), 0o600))
	got, next, restarted = read(next2, transcript.ReadOptions{})
	assert.Equal(t, []string{"Working on it."}, got)
	assert.EqualValues(t, len(oldLine), next.Offset)
	assert.True(t, restarted)
}

// TestReadTextsGoesOnOnlyInTheFileRead: a position is gone on from only
// in the file it was taken in, with the same bytes before it; any other
// file at the path is read from its start. Until 2026-11-24 only a file
// shorter than the offset was: a longer file renamed over the transcript
// was read from the middle of a line.
func TestReadTextsGoesOnOnlyInTheFileRead(t *testing.T) {
	first := userLine + oldLine
	tests := []struct {
		name string
		// change makes the file at path what the second read sees.
		change        func(t *testing.T, path string)
		from          func(p transcript.Position) transcript.Position
		want          []string
		wantRestarted bool
	}{
		{
			name:   "appended to: only the new line",
			change: func(t *testing.T, path string) { appendTo(t, path, textLine) },
			want:   []string{"I am done."},
		},
		{
			name:   "nothing appended: nothing read",
			change: func(*testing.T, string) {},
		},
		{
			name:          "a longer file renamed over it",
			change:        func(t *testing.T, path string) { renameOver(t, path, textLine+userLine+oldLine) },
			want:          []string{"I am done.", "Working on it."},
			wantRestarted: true,
		},
		{
			name:          "rewritten in place, longer, other bytes before the offset",
			change:        func(t *testing.T, path string) { writeFile(t, path, userLine+textLine+oldLine) },
			want:          []string{"I am done.", "Working on it."},
			wantRestarted: true,
		},
		{
			// As when its inode is reused by a new file.
			name:          "the same file number, other bytes before the offset",
			change:        func(t *testing.T, path string) { appendTo(t, path, textLine) },
			from:          func(p transcript.Position) transcript.Position { p.Tail = "0000000000000000"; return p },
			want:          []string{"Working on it.", "I am done."},
			wantRestarted: true,
		},
		{
			name:          "cut below the size read, though not below the offset",
			change:        func(t *testing.T, path string) { require.NoError(t, os.Truncate(path, int64(len(first)))) },
			from:          func(p transcript.Position) transcript.Position { p.Size += 10; return p },
			want:          []string{"Working on it."},
			wantRestarted: true,
		},
		{
			name:          "a record with an offset alone (before 2026-11-24)",
			change:        func(t *testing.T, path string) { appendTo(t, path, textLine) },
			from:          func(p transcript.Position) transcript.Position { return transcript.Position{Offset: p.Offset} },
			want:          []string{"Working on it.", "I am done."},
			wantRestarted: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			writeFile(t, path, first)
			pos, restarted, err := transcript.ReadTexts(context.Background(), path, transcript.Position{}, transcript.ReadOptions{}, func(string) {})
			require.NoError(t, err)
			require.False(t, restarted)
			require.EqualValues(t, len(first), pos.Offset)
			if tt.from != nil {
				pos = tt.from(pos)
			}
			tt.change(t, path)
			var got []string
			next, restarted, err := transcript.ReadTexts(context.Background(), path, pos, transcript.ReadOptions{}, func(s string) { got = append(got, s) })
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.wantRestarted, restarted)
			st, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, st.Size(), next.Offset)
			assert.Equal(t, st.Size(), next.Size)
		})
	}
}

// TestReadTextsTailAcrossLongLines: the bytes kept before a position
// are the file's, whatever the lines before it (lines shorter than
// TailBytes, a line longer than the reader's buffer, a skipped one):
// the next read goes on from there.
func TestReadTextsTailAcrossLongLines(t *testing.T) {
	long := `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("y", 300<<10) + `"}]}}` + "\n"
	blob := `{"type":"api-request-blob","text":"` + strings.Repeat("z", 200<<10) + `"}` + "\n"
	for name, content := range map[string]string{
		"short lines":                        "{}\n{}\n" + "\n\n" + "{}\n",
		"a long line":                        userLine + long,
		"a long line, a short one after it":  long + "{}\n",
		"a skipped blob":                     oldLine + blob,
		"a skipped blob, a short line after": blob + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			writeFile(t, path, content)
			pos, _, err := transcript.ReadTexts(context.Background(), path, transcript.Position{}, transcript.ReadOptions{}, func(string) {})
			require.NoError(t, err)
			require.EqualValues(t, len(content), pos.Offset)
			appendTo(t, path, textLine)
			var got []string
			_, restarted, err := transcript.ReadTexts(context.Background(), path, pos, transcript.ReadOptions{}, func(s string) { got = append(got, s) })
			require.NoError(t, err)
			assert.False(t, restarted)
			assert.Equal(t, []string{"I am done."}, got)
		})
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
}

func appendTo(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(content)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// renameOver puts a new file with content at path, renamed over the old
// one.
func renameOver(t *testing.T, path, content string) {
	t.Helper()
	writeFile(t, path+".new", content)
	require.NoError(t, os.Rename(path+".new", path))
}

// TestReadTextsSkipsLongLines: a line longer than the reader's buffer is
// read whole; one longer than MaxLineBytes is skipped, and the offset
// still counts its bytes.
func TestReadTextsSkipsLongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.jsonl")
	big := func(n int) string {
		return `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("x", n) + `"}]}}` + "\n"
	}
	long, huge := big(200<<10), big(transcript.MaxLineBytes)
	content := long + huge + oldLine
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	var got []int
	next, _, err := transcript.ReadTexts(context.Background(), path, transcript.Position{}, transcript.ReadOptions{}, func(s string) { got = append(got, len(s)) })
	require.NoError(t, err)
	assert.Equal(t, []int{200 << 10, len("Working on it.")}, got)
	assert.EqualValues(t, len(content), next.Offset)
}
