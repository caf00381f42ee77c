package lastevent_test

import (
	"bytes"
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
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/internal/testsupport/linktest"
)

// keep keeps raw as session's last event in dir, as a hook does.
func keep(dir, session string, raw []byte) error { return keepIn(dir, session, raw, "") }

// keepIn is keep for a hook whose project dir is project.
func keepIn(dir, session string, raw []byte, project string) error {
	return state.Store{Dir: dir}.Update(session, func(s *state.Session) error {
		return lastevent.Keep(s, raw, time.Now(), lastevent.Found{Project: project})
	})
}

// The latest session of a project is the latest whose project dir is it,
// or holds it (a person in a subdirectory); a record without a project
// (an older version's) is placed by its event's cwd.
func TestLatestOfAProject(t *testing.T) {
	dir, root := t.TempDir(), t.TempDir()
	r1, r2 := filepath.Join(root, "r1"), filepath.Join(root, "r12")
	require.NoError(t, os.MkdirAll(filepath.Join(r1, "sub"), 0o755))
	require.NoError(t, os.MkdirAll(r2, 0o755))
	require.NoError(t, keepIn(dir, "s1", []byte(`{"session_id":"s1"}`), r1))
	require.NoError(t, keepIn(dir, "s2", []byte(`{"session_id":"s2"}`), r2))
	require.NoError(t, keep(dir, "s3", []byte(`{"session_id":"s3","cwd":"`+filepath.ToSlash(r2)+`"}`)))
	resolve := func(p string) string { return filepath.Clean(p) }
	for _, tt := range []struct{ in, want string }{
		{r1, "s1"}, {filepath.Join(r1, "sub"), "s1"}, {r2, "s3"},
	} {
		rec, err := lastevent.LatestWhere(dir, func(r lastevent.Record) bool { return r.InProject(tt.in, resolve) })
		require.NoError(t, err, tt.in)
		assert.Contains(t, string(rec.Raw), `"`+tt.want+`"`, tt.in)
	}
	rec, err := lastevent.Load(dir, "s1")
	require.NoError(t, err)
	assert.Equal(t, r1, rec.Project)
	_, err = lastevent.LatestWhere(dir, func(r lastevent.Record) bool { return r.InProject(root, resolve) })
	assert.ErrorIs(t, err, lastevent.ErrNone, "a dir that holds projects is none of them")
}

func TestKeepLoadLatest(t *testing.T) {
	dir := t.TempDir()
	_, err := lastevent.Latest(dir)
	require.ErrorIs(t, err, lastevent.ErrNone)
	_, err = lastevent.Latest(filepath.Join(dir, "none"))
	require.ErrorIs(t, err, lastevent.ErrNone)

	require.NoError(t, keep(dir, "s1", []byte(`{"session_id":"s1"}`)))
	require.NoError(t, keep(dir, "s2", []byte(`{"session_id":"s2"}`)))
	// s1 kept last: it is the latest, whatever the names' order.
	require.NoError(t, keep(dir, "s1", []byte(` {"session_id":"s1","n":2} `)))
	rec, err := lastevent.Latest(dir)
	require.NoError(t, err)
	assert.Equal(t, `{"session_id":"s1","n":2}`, string(rec.Raw))
	assert.Equal(t, filepath.Join(dir, state.FileName("s1")), rec.Path, "kept in the session's record")
	assert.WithinDuration(t, time.Now(), rec.At, time.Minute)
	st, err := os.Stat(rec.Path)
	require.NoError(t, err)
	if runtime.GOOS != "windows" { // no Unix modes there: the profile dir's ACL keeps it the user's
		assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the agent's words stay the user's")
	}

	rec, err = lastevent.Load(dir, "s2")
	require.NoError(t, err)
	assert.Equal(t, `{"session_id":"s2"}`, string(rec.Raw))
	_, err = lastevent.Load(dir, "nobody")
	assert.ErrorIs(t, err, lastevent.ErrNone)

	// The record of s2 rewritten later for its count, not for an event:
	// the latest event is still s1's.
	require.NoError(t, state.Store{Dir: dir}.Update("s2", func(s *state.Session) error { return s.Put("other", 1) }))
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(filepath.Join(dir, state.FileName("s2")), later, later))
	rec, err = lastevent.Latest(dir)
	require.NoError(t, err)
	assert.Equal(t, `{"session_id":"s1","n":2}`, string(rec.Raw), "ranked by when the event was kept")

	// A session seen only at its start keeps no event: passed over.
	require.NoError(t, state.Store{Dir: dir}.Update("s3", func(s *state.Session) error { return s.Put("session", 1) }))
	rec, err = lastevent.Latest(dir)
	require.NoError(t, err)
	assert.Equal(t, `{"session_id":"s1","n":2}`, string(rec.Raw))
	_, err = lastevent.Load(dir, "s3")
	assert.ErrorIs(t, err, lastevent.ErrNone)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 3, "one record per session, no other file")
}

// TestKeepCompact: an event sent with white space (pretty-printed, with
// line breaks) is kept on the record's one line and read back the same.
func TestKeepCompact(t *testing.T) {
	dir := t.TempDir()
	ev := "{\n  \"session_id\": \"s\",\n  \"last_assistant_message\": \"Done: a < b && c > d.\\nNext line\",\n  \"n\": [1, 2]\n}\n"
	require.NoError(t, keep(dir, "s", []byte(ev)))
	data, err := os.ReadFile(filepath.Join(dir, state.FileName("s")))
	require.NoError(t, err)
	assert.Equal(t, 1, bytes.Count(data, []byte("\n")), "one line: %s", data)
	rec, err := lastevent.Load(dir, "s")
	require.NoError(t, err)
	assert.JSONEq(t, ev, string(rec.Raw))
	// The record is read again and rewritten at every stop: the event
	// stays as it is.
	require.NoError(t, state.Store{Dir: dir}.Update("s", func(s *state.Session) error { return s.Put("other", 1) }))
	again, err := lastevent.Load(dir, "s")
	require.NoError(t, err)
	assert.Equal(t, string(rec.Raw), string(again.Raw))
}

// TestKeepBounded: a huge event keeps the fields explain needs and the
// start of the message, within MaxBytes.
func TestKeepBounded(t *testing.T) {
	dir := t.TempDir()
	ev, err := json.Marshal(map[string]any{
		"session_id": "s", "transcript_path": "/t.jsonl", "cwd": "/p", "hook_event_name": "Stop",
		"last_assistant_message": strings.Repeat("é", 1<<20),
		"tool_input":             map[string]string{"x": strings.Repeat("y", 1<<20)},
	})
	require.NoError(t, err)
	require.NoError(t, keep(dir, "s", ev))
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

// TestKeepBoundedKeepsEveryHost: each host's recorded stop event, grown
// past MaxBytes by one long field or several, is
// kept shrunk and still read as the host's, with the session, cwd and
// stop it had. (The host, not the agent, chooses an event's fields: what
// grows is the agent's text in a few of them.) A host added to hookio.Hosts without a recorded event here
// fails.
func TestKeepBoundedKeepsEveryHost(t *testing.T) {
	stops := map[hookio.Host]string{
		hookio.HostClaude:   "stop-plan-open.json",
		hookio.HostCodex:    "codex/stop.json",
		hookio.HostQwen:     "qwen/stop.json",
		hookio.HostGemini:   "gemini/afteragent-first.json",
		hookio.HostCopilot:  "copilot/agentstop-first.json",
		hookio.HostCursor:   "cursor/stop.json",
		hookio.HostVSCode:   "vscode/stop.json",
		hookio.HostOpenCode: "opencode/run-stop.json",
		hookio.HostKilo:     "kilo/run-stop.json",
		hookio.HostPi:       "pi/print-stop.json",
		hookio.HostDroid:    "droid/stop.json",
		hookio.HostCline:    "cline/pretooluse-submit_and_exit.json",
		hookio.HostAmp:      "amp/stop.json",
		hookio.HostQoder:    "qoder/stop.json",
		hookio.HostGoose:    "goose/stop.json",
	}
	grow := map[string]func(ev map[string]any){
		"a long field": func(ev map[string]any) { ev["zz_padding"] = strings.Repeat("x", 1<<20) },
		"long fields": func(ev map[string]any) {
			ev["tool_input"] = map[string]any{"content": strings.Repeat("y", 40<<10)}
			ev["tool_response"] = strings.Repeat("z", 50<<10)
		},
	}
	for _, host := range hookio.Hosts {
		file, ok := stops[host]
		require.True(t, ok, "no recorded stop event of %s here", host)
		raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "events", file))
		require.NoError(t, err)
		require.Equal(t, host, hookio.DetectHost(raw, nil), file)
		want, err := hookio.Parse(raw, host)
		require.NoError(t, err)
		for how, g := range grow {
			t.Run(string(host)+"/"+how, func(t *testing.T) {
				var ev map[string]any
				require.NoError(t, json.Unmarshal(raw, &ev))
				g(ev)
				big, err := json.Marshal(ev)
				require.NoError(t, err)
				require.Greater(t, len(big), lastevent.MaxBytes)
				dir := t.TempDir()
				require.NoError(t, keep(dir, "s", big))
				rec, err := lastevent.Load(dir, "s")
				require.NoError(t, err)
				assert.LessOrEqual(t, len(rec.Raw), lastevent.MaxBytes)
				require.Equal(t, host, hookio.DetectHost(rec.Raw, nil))
				got, err := hookio.Parse(rec.Raw, host)
				require.NoError(t, err)
				assert.Equal(t, want.SessionID, got.SessionID)
				assert.Equal(t, want.Cwd, got.Cwd)
				assert.Equal(t, want.TranscriptPath, got.TranscriptPath)
				assert.Equal(t, want.IsStop(), got.IsStop())
				assert.Equal(t, want.StopHookActive, got.StopHookActive)
			})
		}
	}
}

// TestKeepNeverWritesThroughALink: a link planted at a session's record
// is refused, as the record's every write refuses it (package state),
// its target untouched.
func TestKeepNeverWritesThroughALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "target")
	require.NoError(t, os.WriteFile(target, []byte("mine"), 0o644))
	linktest.Symlink(t, target, filepath.Join(dir, state.FileName("s")))
	require.Error(t, keep(dir, "s", []byte(`{"a":1}`)))
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "mine", string(got))
	_, err = lastevent.Load(dir, "s")
	require.Error(t, err)
}

// TestKeepWhileOthersReadAndWrite: hooks of one session keeping events
// of every length while explain reads: each read is one whole event,
// never a new one's start over an old one's tail.
func TestKeepWhileOthersReadAndWrite(t *testing.T) {
	dir := t.TempDir()
	events := map[string]bool{}
	var list []string
	for i := range 12 {
		ev := fmt.Sprintf(`{"session_id":"s","n":%d,"last_assistant_message":"%s"}`, i, strings.Repeat("x", i*i*40))
		events[ev] = true
		list = append(list, ev)
	}
	require.NoError(t, keep(dir, "s", []byte(list[0])))
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 150 {
				if err := keep(dir, "s", []byte(list[(i*7+w)%len(list)])); err != nil {
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

// TestLoadOfADamagedRecord: a record damaged (a hook killed between
// writing a shorter record and cutting the file to it, or anything but
// the hooks' JSON) keeps no event, as it keeps no count: it is never
// replayed as another event.
func TestLoadOfADamagedRecord(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, keep(dir, "s", []byte(`{"session_id":"s","last_assistant_message":"a long first answer"}`)))
	path := filepath.Join(dir, state.FileName("s"))
	require.NoError(t, os.WriteFile(path, []byte(`{"checkers":{"last_event":{"at":"2026-11-28T00:00:00Z","event":{"sess`), 0o600))
	_, err := lastevent.Load(dir, "s")
	require.ErrorIs(t, err, lastevent.ErrNone)
	require.NoError(t, os.WriteFile(path, []byte(`{"checkers":{"last_event":{"at":"x","event":"not an event"}}}`+"\n"), 0o600))
	_, err = lastevent.Load(dir, "s")
	require.ErrorContains(t, err, "not an event")
	require.NoError(t, keep(dir, "s", []byte(`{"session_id":"s","n":2}`)))
	rec, err := lastevent.Load(dir, "s")
	require.NoError(t, err)
	assert.Equal(t, `{"session_id":"s","n":2}`, string(rec.Raw), "the next stop's record is whole again")
}

// TestLegacyRecords: a state dir a version before 2026-11-28 wrote, each
// session's last event in a file of LegacyDir, is still read: a person
// who upgrades between a stop and closer explain --last loses nothing.
func TestLegacyRecords(t *testing.T) {
	dir := t.TempDir()
	legacy := filepath.Join(dir, lastevent.LegacyDir)
	require.NoError(t, os.MkdirAll(legacy, 0o700))
	old := filepath.Join(legacy, state.FileName("old"))
	require.NoError(t, os.WriteFile(old, []byte(`{"session_id":"old"}`), 0o600))
	past := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(old, past, past))

	rec, err := lastevent.Load(dir, "old")
	require.NoError(t, err)
	assert.Equal(t, `{"session_id":"old"}`, string(rec.Raw))
	assert.Equal(t, old, rec.Path)
	rec, err = lastevent.Latest(dir)
	require.NoError(t, err)
	assert.Equal(t, `{"session_id":"old"}`, string(rec.Raw))

	// A session kept since: its record's event, newer, wins; the legacy
	// file of a session is read only while its record keeps none.
	require.NoError(t, keep(dir, "new", []byte(`{"session_id":"new"}`)))
	rec, err = lastevent.Latest(dir)
	require.NoError(t, err)
	assert.Equal(t, `{"session_id":"new"}`, string(rec.Raw))
	require.NoError(t, keep(dir, "old", []byte(`{"session_id":"old","n":2}`)))
	rec, err = lastevent.Load(dir, "old")
	require.NoError(t, err)
	assert.Equal(t, `{"session_id":"old","n":2}`, string(rec.Raw))

	// A legacy file cut short by a hook killed while writing it says so;
	// the newest file of all, it does not hide the events kept.
	require.NoError(t, os.WriteFile(filepath.Join(legacy, state.FileName("torn")), []byte(`{"session_id":"s`), 0o600))
	_, err = lastevent.Load(dir, "torn")
	require.ErrorContains(t, err, "not a whole event (a hook stopped while writing it?)")
	rec, err = lastevent.Latest(dir)
	require.NoError(t, err)
	assert.Equal(t, `{"session_id":"old","n":2}`, string(rec.Raw))
	only := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(only, lastevent.LegacyDir), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(only, lastevent.LegacyDir, state.FileName("torn")), []byte(`{"session_id":"s`), 0o600))
	_, err = lastevent.Latest(only)
	require.ErrorContains(t, err, "not a whole event", "when it is all there is")
}

// BenchmarkKeep is what keeping the event costs a gated hook call on its
// own: the session's record read and rewritten in place under its lock
// (no fsync: a record lost in a crash costs only the explanation of that
// stop). In a stop, which reads the record anyway, the read is shared.
func BenchmarkKeep(b *testing.B) {
	dir := b.TempDir()
	ev := []byte(`{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/p","hook_event_name":"Stop","last_assistant_message":"` + strings.Repeat("x ", 1000) + `"}`)
	for i := 0; i < b.N; i++ {
		if err := keep(dir, "s", ev); err != nil {
			b.Fatal(err)
		}
	}
}
