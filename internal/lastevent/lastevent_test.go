package lastevent_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/lastevent"
	"github.com/donegate/donegate/internal/linktest"
)

func TestSaveLoadLatest(t *testing.T) {
	dir := t.TempDir()
	_, err := lastevent.Latest(dir)
	require.ErrorIs(t, err, lastevent.ErrNone)

	require.NoError(t, lastevent.Save(dir, "s1", []byte(`{"session_id":"s1"}`)))
	require.NoError(t, lastevent.Save(dir, "s2", []byte(`{"session_id":"s2"}`)))
	// s1 written last: it is the latest, whatever the names' order.
	require.NoError(t, lastevent.Save(dir, "s1", []byte(`{"session_id":"s1","n":2}`)))
	later := time.Now().Add(time.Second)
	rec, err := lastevent.Load(dir, "s1")
	require.NoError(t, err)
	require.NoError(t, os.Chtimes(rec.Path, later, later))

	rec, err = lastevent.Latest(dir)
	require.NoError(t, err)
	assert.JSONEq(t, `{"session_id":"s1","n":2}`, string(rec.Raw))
	st, err := os.Stat(rec.Path)
	require.NoError(t, err)
	if runtime.GOOS != "windows" { // no Unix modes there: the profile dir's ACL keeps it the user's
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the agent's words stay the user's")
	}

	rec, err = lastevent.Load(dir, "s2")
	require.NoError(t, err)
	assert.JSONEq(t, `{"session_id":"s2"}`, string(rec.Raw))
	_, err = lastevent.Load(dir, "nobody")
	assert.ErrorIs(t, err, lastevent.ErrNone)

	entries, err := os.ReadDir(filepath.Join(dir, lastevent.Dir))
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no temporary file left")
}

// TestSaveBounded: a huge event keeps the fields explain needs and the
// start of the message, within MaxBytes.
func TestSaveBounded(t *testing.T) {
	dir := t.TempDir()
	ev, err := json.Marshal(map[string]any{
		"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/p", "hook_event_name": "Stop",
		"last_assistant_message": strings.Repeat("é", 1<<20),
		"tool_input":             map[string]string{"x": strings.Repeat("y", 1<<20)},
	})
	require.NoError(t, err)
	require.NoError(t, lastevent.Save(dir, "s", ev))
	rec, err := lastevent.Load(dir, "s")
	require.NoError(t, err)
	assert.LessOrEqual(t, len(rec.Raw), lastevent.MaxBytes)
	var got map[string]any
	require.NoError(t, json.Unmarshal(rec.Raw, &got))
	assert.Equal(t, "/t.jsonl", got["transcript_path"])
	assert.Equal(t, "/p", got["cwd"])
	assert.Equal(t, "Stop", got["hook_event_name"])
	assert.Contains(t, got["last_assistant_message"], "[cut by donegate]")
	assert.NotContains(t, got, "tool_input")
}

// TestSaveBoundedKeepsTheHost: a huge event of another host than Claude
// Code is still told to be that host's, and read as one, once shrunk:
// explain --last replays it as the hook read it.
func TestSaveBoundedKeepsTheHost(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	tests := []struct {
		host  hookio.Host
		event map[string]any
	}{
		{hookio.HostCodex, map[string]any{"session_id": "s", "turn_id": "t", "model": "m", "hook_event_name": "Stop", "cwd": "/p", "last_assistant_message": huge}},
		{hookio.HostGemini, map[string]any{"session_id": "s", "hook_event_name": "AfterAgent", "cwd": "/p", "prompt_response": huge}},
		{hookio.HostCopilot, map[string]any{"sessionId": "s", "stopReason": "end_turn", "cwd": "/p", "stop_hook_active": false, "x": huge}},
		{hookio.HostCursor, map[string]any{"conversation_id": "s", "generation_id": "g", "hook_event_name": "stop", "workspace_roots": []string{"/p"}, "loop_count": 1, "x": huge}},
		{hookio.HostQwen, map[string]any{"session_id": "s", "hook_event_name": "Stop", "context_usage": 0.1, "context_limit": 1, "cwd": "/p", "last_assistant_message": huge}},
	}
	for _, tt := range tests {
		t.Run(string(tt.host), func(t *testing.T) {
			dir := t.TempDir()
			ev, err := json.Marshal(tt.event)
			require.NoError(t, err)
			require.NoError(t, lastevent.Save(dir, "s", ev))
			rec, err := lastevent.Load(dir, "s")
			require.NoError(t, err)
			assert.LessOrEqual(t, len(rec.Raw), lastevent.MaxBytes)
			require.Equal(t, tt.host, hookio.DetectHost(rec.Raw, nil))
			got, err := hookio.Parse(rec.Raw, tt.host)
			require.NoError(t, err)
			assert.Equal(t, "s", got.SessionID)
			assert.Equal(t, "/p", got.Cwd)
			assert.True(t, got.IsStop())
		})
	}
}

// TestSaveReplacesALink: a link planted at a record's name is replaced,
// its target untouched.
func TestSaveReplacesALink(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, lastevent.Save(dir, "s", []byte(`{}`)))
	rec, err := lastevent.Load(dir, "s")
	require.NoError(t, err)
	target := filepath.Join(t.TempDir(), "target")
	require.NoError(t, os.WriteFile(target, []byte("mine"), 0o644))
	require.NoError(t, os.Remove(rec.Path))
	linktest.Symlink(t, target, rec.Path)
	require.NoError(t, lastevent.Save(dir, "s", []byte(`{"a":1}`)))
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(got))
}

// TestSaveWhileOthersReadAndWrite: hooks of one session writing events
// of every length while explain reads: each read is one whole event,
// never a new one's start over an old one's tail.
func TestSaveWhileOthersReadAndWrite(t *testing.T) {
	dir := t.TempDir()
	events := map[string]bool{}
	var list []string
	for i := range 12 {
		ev := fmt.Sprintf(`{"session_id":"s","n":%d,"last_assistant_message":"%s"}`, i, strings.Repeat("x", i*i*40))
		events[ev] = true
		list = append(list, ev)
	}
	require.NoError(t, lastevent.Save(dir, "s", []byte(list[0])))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 150 {
				if err := lastevent.Save(dir, "s", []byte(list[(i*7+w)%len(list)])); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	reads := 0
	go func() { wg.Wait(); close(stop) }()
	for done := false; !done; {
		select {
		case <-stop:
			done = true
		default:
		}
		rec, err := lastevent.Load(dir, "s")
		require.NoError(t, err)
		require.True(t, events[string(rec.Raw)], "a torn record: %.80s...", rec.Raw)
		reads++
	}
	assert.Positive(t, reads)
}

// TestLoadRefusesATornRecord: a hook killed between writing a shorter
// event and cutting the file to it leaves the new event's start over the
// old one's tail: read says so rather than replaying it.
func TestLoadRefusesATornRecord(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, lastevent.Save(dir, "s", []byte(`{"session_id":"s","last_assistant_message":"a long first answer"}`)))
	rec, err := lastevent.Load(dir, "s")
	require.NoError(t, err)
	f, err := os.OpenFile(rec.Path, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte(`{"session_id":"s"}`), 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	_, err = lastevent.Load(dir, "s")
	require.ErrorContains(t, err, "not a whole event (a hook stopped while writing it?)")
	require.NoError(t, lastevent.Save(dir, "s", []byte(`{"session_id":"s","n":2}`)))
	rec, err = lastevent.Load(dir, "s")
	require.NoError(t, err)
	assert.JSONEq(t, `{"session_id":"s","n":2}`, string(rec.Raw), "the next stop's record is whole again")
}

// BenchmarkSave is what keeping the event adds to a gated hook call: one
// small file rewritten in place under its lock (no fsync: a record lost in
// a crash costs only the explanation of that stop).
func BenchmarkSave(b *testing.B) {
	dir := b.TempDir()
	ev := []byte(`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"Stop","last_assistant_message":"` + strings.Repeat("x", 2000) + `"}`)
	for i := 0; i < b.N; i++ {
		if err := lastevent.Save(dir, "s", ev); err != nil {
			b.Fatal(err)
		}
	}
}
