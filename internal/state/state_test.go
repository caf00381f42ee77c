package state

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/filelock"
	"github.com/donegate/donegate/internal/limit"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
)

func bump(t *testing.T, s Store, session, prompt, gate string) int {
	t.Helper()
	var n int
	require.NoError(t, s.Update(session, func(sess *Session) error {
		c := sess.Counters[gate]
		if c == nil || c.PromptID != prompt {
			c = &limit.Counter{PromptID: prompt, FirstBlock: time.Now()}
			sess.Counters[gate] = c
		}
		c.Blocks++
		n = c.Blocks
		return nil
	}))
	return n
}

func TestUpdateCountsPerSessionAndPrompt(t *testing.T) {
	s := Store{Dir: filepath.Join(t.TempDir(), "state")} // created on first use
	assert.Equal(t, 1, bump(t, s, "s1", "p1", "stop"))
	assert.Equal(t, 2, bump(t, s, "s1", "p1", "stop"))
	assert.Equal(t, 1, bump(t, s, "s1", "p1", "subagent:a"), "gates count apart")
	assert.Equal(t, 1, bump(t, s, "s2", "p1", "stop"), "sessions count apart")
	assert.Equal(t, 1, bump(t, s, "s1", "p2", "stop"), "a count carries its prompt")
	assert.Equal(t, 2, bump(t, s, "s1", "p1", "subagent:a"), "another gate's prompt leaves it alone")
}

// A record written before each count carried its prompt id: the counts
// keep counting for that prompt.
func TestLegacyRecordKeepsItsCounts(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	legacy := `{"prompt_id":"p1","counters":{"stop":{"blocks":2,"first_block":"2026-11-22T10:00:00Z"},"subagent:a":{"blocks":1,"first_block":"2026-11-22T10:00:01Z","exhausted":true}}}` + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, FileName("s")), []byte(legacy), 0o600))
	var got map[string]limit.Counter
	require.NoError(t, s.Update("s", func(sess *Session) error {
		got = map[string]limit.Counter{}
		for k, c := range sess.Counters {
			got[k] = *c
		}
		return nil
	}))
	first := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	assert.Equal(t, map[string]limit.Counter{
		"stop":       {PromptID: "p1", Blocks: 2, FirstBlock: first, Touched: first},
		"subagent:a": {PromptID: "p1", Blocks: 1, FirstBlock: first.Add(time.Second), Touched: first.Add(time.Second), Exhausted: true},
	}, got)
	data, err := os.ReadFile(filepath.Join(s.Dir, FileName("s")))
	require.NoError(t, err)
	assert.NotContains(t, string(data), `{"prompt_id":"p1","counters"`, "the record is rewritten in the new form")
}

func TestConcurrentUpdatesAreExact(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bump(t, s, "s", "p", "stop")
		}()
	}
	wg.Wait()
	assert.Equal(t, 51, bump(t, s, "s", "p", "stop"))
}

func TestFileNameNeverCarriesTheID(t *testing.T) {
	for _, id := range []string{"../../etc/passwd", "a/b", "..", "", "x\x00y", strings.Repeat("z", 10000)} {
		name := FileName(id)
		assert.Regexp(t, `^[0-9a-f]{32}\.json$`, name, "id %q", id)
	}
	assert.NotEqual(t, FileName("a"), FileName("b"))
	assert.Equal(t, FileName("a"), FileName("a"))
}

func TestDamagedStateStartsOver(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	bump(t, s, "s", "p", "stop")
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, FileName("s")), []byte(`{"prompt_id":"p","coun`), 0o600))
	assert.Equal(t, 1, bump(t, s, "s", "p", "stop"))
}

func TestUpdateLeavesNoTemporaryFiles(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	for i := 0; i < 5; i++ {
		bump(t, s, "s", "p", "stop")
	}
	entries, err := os.ReadDir(s.Dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{FileName("s")}, names)
}

// TestInterruptedWriteKeepsTheCount: a hook killed after writing a shorter
// record but before cutting the file leaves the tail of the longer one;
// the reader takes the first line and the count goes on.
func TestInterruptedWriteKeepsTheCount(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	bump(t, s, "s", "p", "stop")
	bump(t, s, "s", "p", "stop")
	path := filepath.Join(s.Dir, FileName("s"))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(data, `"counters":{"stop":{"blocks":99}}}`+"\n"...), 0o600))
	assert.Equal(t, 3, bump(t, s, "s", "p", "stop"))
}

// TestRecordIsOneLine: however the record shrinks or grows, the file
// holds exactly one line of JSON.
func TestRecordIsOneLine(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	path := filepath.Join(s.Dir, FileName("s"))
	for _, step := range []struct{ prompt, gate string }{
		{"p", "stop"}, {"p", "subagent:a-long-agent-id"}, {"p", "subagent:b"}, {"p2", "stop"}, {"p2", "stop"},
	} {
		bump(t, s, "s", step.prompt, step.gate)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, 1, strings.Count(string(data), "\n"), "%q", data)
		require.True(t, strings.HasSuffix(string(data), "}\n"), "%q", data)
	}
	assert.Equal(t, 3, bump(t, s, "s", "p2", "stop"))
}

func TestBusyLockGivesUp(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	bump(t, s, "s", "p", "stop")
	holder, err := os.OpenFile(filepath.Join(s.Dir, FileName("s")), os.O_RDWR, 0)
	require.NoError(t, err)
	defer holder.Close()
	locked, err := filelock.TryLock(holder)
	require.NoError(t, err)
	require.True(t, locked)

	old := LockWait
	LockWait = 100 * time.Millisecond
	defer func() { LockWait = old }()
	err = s.Update("s", func(*Session) error { t.Fatal("fn ran without the lock"); return nil })
	require.ErrorIs(t, err, ErrLockBusy)
	assert.Contains(t, err.Error(), FileName("s"))
}

func TestUnwritableDirIsAnError(t *testing.T) {
	if os.Geteuid() == 0 || runtime.GOOS == "windows" {
		// root writes through permissions; use a path under a file instead.
		f := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(f, nil, 0o600))
		err := Store{Dir: filepath.Join(f, "state")}.Update("s", func(*Session) error { return nil })
		require.ErrorContains(t, err, "state dir")
		return
	}
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o500))
	err := Store{Dir: dir}.Update("s", func(*Session) error { return nil })
	require.ErrorContains(t, err, "state lock")
}

// TestUnchangedRecordIsNotRewritten: an update that changes nothing (a
// finished stop clearing a count that is not there) writes nothing.
func TestUnchangedRecordIsNotRewritten(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	bump(t, s, "s", "p", "stop")
	path := filepath.Join(s.Dir, FileName("s"))
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(path, past, past))
	require.NoError(t, s.Update("s", func(sess *Session) error {
		delete(sess.Counters, "subagent:absent")
		return nil
	}))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.True(t, st.ModTime().Equal(past), "mtime %v, want %v", st.ModTime(), past)
	assert.Equal(t, 2, bump(t, s, "s", "p", "stop"), "a changed record is still written")
}

// TestStateFileNotRegular: a state file that is a symbolic link is never
// followed (the record would overwrite its target) and one that is a FIFO
// never blocks; both are errors, on which the hook fails open.
func TestStateFileNotRegular(t *testing.T) {
	tests := []struct {
		name    string
		plant   func(t *testing.T, path, target string)
		wantErr string
	}{
		{"symlink to a file", func(t *testing.T, path, target string) {
			linktest.Symlink(t, target, path)
		}, "is a symbolic link, which is not followed"},
		{"dangling symlink", func(t *testing.T, path, target string) {
			require.NoError(t, os.Remove(target))
			linktest.Symlink(t, target, path)
		}, "is a symbolic link, which is not followed"},
		{"FIFO", func(t *testing.T, path, _ string) {
			fifotest.Make(t, path)
		}, "not a regular file (a FIFO)"},
		{"directory", func(t *testing.T, path, _ string) {
			require.NoError(t, os.Mkdir(path, 0o700))
		}, "a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Store{Dir: t.TempDir()}
			target := filepath.Join(t.TempDir(), "precious")
			require.NoError(t, os.WriteFile(target, []byte("keep me"), 0o600))
			path := filepath.Join(s.Dir, FileName("s"))
			tt.plant(t, path, target)

			done := make(chan error, 1)
			go func() {
				done <- s.Update("s", func(sess *Session) error {
					sess.Counters["stop"] = &limit.Counter{Blocks: 1}
					return nil
				})
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute): // a blocked open never ends
				t.Fatal("Update blocked")
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), FileName("s"))
			if data, rerr := os.ReadFile(target); rerr == nil {
				assert.Equal(t, "keep me", string(data), "the link's target is untouched")
			} else {
				assert.ErrorIs(t, rerr, os.ErrNotExist, "a dangling link's target is not created")
			}
		})
	}
}

// Peek sees what Update would hand fn and writes nothing: no dir, no file,
// no change to one that exists; a link or a FIFO is refused as by Update.
func TestPeekReadsWithoutWriting(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(t *testing.T, s Store)
		wantBlocks int
		wantErr    string
	}{
		{"no dir", func(t *testing.T, s Store) {}, 0, ""},
		{"a count", func(t *testing.T, s Store) {
			bump(t, s, "s", "p", "stop")
			bump(t, s, "s", "p", "stop")
		}, 2, ""},
		{"damaged record", func(t *testing.T, s Store) {
			require.NoError(t, os.MkdirAll(s.Dir, 0o700))
			require.NoError(t, os.WriteFile(filepath.Join(s.Dir, FileName("s")), []byte("{not json\n"), 0o600))
		}, 0, ""},
		{"symlink", func(t *testing.T, s Store) {
			require.NoError(t, os.MkdirAll(s.Dir, 0o700))
			linktest.Symlink(t, filepath.Join(t.TempDir(), "x"), filepath.Join(s.Dir, FileName("s")))
		}, 0, "is a symbolic link, which is not followed"},
		{"FIFO", func(t *testing.T, s Store) {
			require.NoError(t, os.MkdirAll(s.Dir, 0o700))
			fifotest.Make(t, filepath.Join(s.Dir, FileName("s")))
		}, 0, "not a regular file (a FIFO)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Store{Dir: filepath.Join(t.TempDir(), "state")}
			tt.setup(t, s)
			before := snapshot(t, s.Dir)
			sess, err := s.Peek("s")
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
			} else {
				require.NoError(t, err)
				require.NotNil(t, sess.Counters, "ready for a count as Update's is")
				blocks := 0
				if c := sess.Counters["stop"]; c != nil {
					blocks = c.Blocks
				}
				assert.Equal(t, tt.wantBlocks, blocks)
				sess.Counters["stop"] = &limit.Counter{Blocks: 9} // a copy: not stored
			}
			assert.Equal(t, before, snapshot(t, s.Dir))
		})
	}
}

// snapshot maps every entry under dir to its mode and content; nil when
// dir does not exist.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	m := map[string]string{}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		st, err := os.Lstat(p)
		require.NoError(t, err)
		content := ""
		if st.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			content = string(data)
		}
		m[e.Name()] = st.Mode().String() + " " + content
	}
	return m
}

// TestReadOnlyUpdateWritesNothing: a read-only store hands fn the stored
// state and keeps nothing fn does, creating no dir or file.
func TestReadOnlyUpdateWritesNothing(t *testing.T) {
	s := Store{Dir: t.TempDir()}
	bump(t, s, "s", "p", "stop")
	path := filepath.Join(s.Dir, FileName("s"))
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	ro := Store{Dir: s.Dir, ReadOnly: true}
	require.NoError(t, ro.Update("s", func(sess *Session) error {
		assert.Equal(t, 1, sess.Counters["stop"].Blocks, "the stored count")
		sess.Counters["stop"].Blocks = 99
		return nil
	}))
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))

	empty := Store{Dir: filepath.Join(t.TempDir(), "none"), ReadOnly: true}
	require.NoError(t, empty.Update("s", func(sess *Session) error {
		assert.Empty(t, sess.Counters)
		return nil
	}))
	assert.NoDirExists(t, empty.Dir)
}

// TestCheckerRecordsAreKeptWithTheCounts: a checker type's record lives
// in the session's record beside the counts, under its type's name, and
// a count's update keeps it.
func TestCheckerRecordsAreKeptWithTheCounts(t *testing.T) {
	type record struct {
		Reached string `json:"reached"`
		Offset  int64  `json:"offset"`
	}
	s := Store{Dir: t.TempDir()}
	want := record{Reached: "review", Offset: 4096}
	require.NoError(t, s.Update("s", func(sess *Session) error {
		return sess.Put("phase", want)
	}))
	bump(t, s, "s", "p", "stop")
	sess, err := s.Peek("s")
	require.NoError(t, err)
	var got record
	require.True(t, sess.Get("phase", &got))
	assert.Equal(t, want, got)
	assert.False(t, sess.Get("git-commits", &got), "a type with no record")
	assert.Equal(t, 1, sess.Counters["stop"].Blocks)
	data, err := os.ReadFile(filepath.Join(s.Dir, FileName("s")))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"checkers":{"phase":{"reached":"review","offset":4096}}`)
}

// TestOldRecordsAreMoved: a record written before 2026-11-24 kept
// git-commits' baselines and the phase in fields of its own. Read by a
// hook upgraded mid-session, they are the types' records, unchanged, and
// the next write keeps them there (and the counts) and drops the old
// fields; a record of the new kind wins over an old field.
func TestOldRecordsAreMoved(t *testing.T) {
	const (
		phase     = `{"reached":"review","transcript":"/p/s.jsonl","offset":4096,"dev":2049,"ino":77,"size":5000,"tail":"00ff"}`
		baselines = `[{"prompt":"p1","tree":"/r","commit":"aaa","last":"bbb"}]`
	)
	tests := []struct {
		name string
		old  string
		want map[string]string
	}{
		{"both", `{"counters":{"stop":{"blocks":2,"prompt_id":"p"}},"baselines":` + baselines + `,"phase":` + phase + `}`,
			map[string]string{"git-commits": baselines, "phase": phase}},
		{"phase alone", `{"counters":{},"phase":` + phase + `}`, map[string]string{"phase": phase}},
		{"null", `{"counters":{},"phase":null}`, map[string]string{}},
		{"the new record wins", `{"counters":{},"checkers":{"phase":{"reached":"complete"}},"phase":` + phase + `}`,
			map[string]string{"phase": `{"reached":"complete"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Store{Dir: t.TempDir()}
			path := filepath.Join(s.Dir, FileName("s"))
			require.NoError(t, os.WriteFile(path, []byte(tt.old+"\n"), 0o600))
			check := func(sess *Session) {
				t.Helper()
				got := map[string]string{}
				for k, v := range sess.Checkers {
					got[k] = string(v)
				}
				assert.Equal(t, tt.want, got)
				assert.Empty(t, sess.LegacyBaselines)
				assert.Empty(t, sess.LegacyPhase)
			}
			sess, err := s.Peek("s")
			require.NoError(t, err)
			check(sess)
			bump(t, s, "s", "p", "stop")
			sess, err = s.Peek("s")
			require.NoError(t, err)
			check(sess)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			var top map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(data, &top))
			assert.NotContains(t, top, "baselines")
			assert.NotContains(t, top, "phase")
		})
	}
}
