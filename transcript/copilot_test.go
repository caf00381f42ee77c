package transcript_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/sqlitefile"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
	"github.com/donegate/donegate/transcript"
)

// copilotSession lays out a Copilot session dir holding db (a file of
// testdata, or "" for none) as session.db, and returns the transcript
// path an agentStop event names (events.jsonl need not exist: the CLI
// writes it at exit).
func copilotSession(t *testing.T, db string) string {
	t.Helper()
	dir := t.TempDir()
	if db != "" {
		data, err := os.ReadFile(db)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "session.db"), data, 0o644))
	}
	return filepath.Join(dir, "events.jsonl")
}

const (
	recorded = "../testdata/events/copilot/"
	made     = "../internal/sqlitefile/testdata/"
)

func TestReadCopilotTodos(t *testing.T) {
	for _, tt := range []struct {
		name  string
		db    string
		items []transcript.Item
	}{
		// What the real client's sql tool left, recorded by e2e.
		{"recorded, open", recorded + "session-open.db", []transcript.Item{
			{Title: "Writing DONE.txt", Status: "in_progress"}, {Title: "Reporting back", Status: "pending"}}},
		{"recorded, done", recorded + "session-done.db", []transcript.Item{
			{Title: "Writing DONE.txt", Status: "completed"}, {Title: "Reporting back", Status: "completed"}}},
		// Every status; an empty title named by its id; a NULL status is
		// the column's default, pending.
		{"every status", made + "todos.db", []transcript.Item{
			{Title: "Writing DONE.txt", Status: "in_progress"},
			{Title: "Reporting back", Status: "pending"},
			{Title: "Running tests", Status: "completed"},
			{Title: "Deploying", Status: "blocked"},
			{Title: "untitled", Status: "pending"}}},
		// 300 todos over pointer-map and interior pages.
		{"many", made + "autovacuum.db", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			items, found, err := transcript.ReadCopilotTodos(context.Background(), copilotSession(t, tt.db))
			require.NoError(t, err)
			assert.True(t, found)
			if tt.items != nil {
				assert.Equal(t, tt.items, items)
				return
			}
			require.Len(t, items, 300)
			assert.Equal(t, transcript.Item{Title: "Todo 299 yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy", Status: "completed"}, items[299])
		})
	}
}

// No plan is a normal state: no transcript path, no session.db (the
// agent never ran its sql tool), no todos table, an empty one.
func TestReadCopilotTodosNoPlan(t *testing.T) {
	for _, tt := range []struct{ name, path string }{
		{"no transcript path", ""},
		{"no session.db", copilotSession(t, "")},
		{"no todos table", copilotSession(t, made+"deep.db")},
		{"no todo", copilotSession(t, made+"empty.db")},
		{"session dir missing", filepath.Join(t.TempDir(), "gone", "events.jsonl")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			items, found, err := transcript.ReadCopilotTodos(context.Background(), tt.path)
			require.NoError(t, err)
			assert.False(t, found)
			assert.Empty(t, items)
		})
	}
}

// What a session dir may hold instead of a plain session.db: the check
// cannot run (an error naming the file), and nothing blocks or reads
// without bound.
func TestReadCopilotTodosHostileFiles(t *testing.T) {
	t.Run("FIFO", func(t *testing.T) {
		path := copilotSession(t, "")
		fifotest.Make(t, filepath.Join(filepath.Dir(path), "session.db"))
		_, _, err := transcript.ReadCopilotTodos(context.Background(), path)
		assert.ErrorIs(t, err, regular.ErrNotRegular)
		assert.ErrorContains(t, err, "session.db")
	})
	t.Run("symlink to a device", func(t *testing.T) {
		path := copilotSession(t, "")
		linktest.Symlink(t, "/dev/zero", filepath.Join(filepath.Dir(path), "session.db"))
		_, _, err := transcript.ReadCopilotTodos(context.Background(), path)
		assert.ErrorIs(t, err, regular.ErrNotRegular)
	})
	t.Run("symlink to a database", func(t *testing.T) {
		path := copilotSession(t, "")
		target, err := filepath.Abs(recorded + "session-open.db")
		require.NoError(t, err)
		linktest.Symlink(t, target, filepath.Join(filepath.Dir(path), "session.db"))
		items, found, err := transcript.ReadCopilotTodos(context.Background(), path)
		require.NoError(t, err)
		assert.True(t, found)
		assert.Len(t, items, 2)
	})
	t.Run("a directory", func(t *testing.T) {
		path := copilotSession(t, "")
		require.NoError(t, os.Mkdir(filepath.Join(filepath.Dir(path), "session.db"), 0o755))
		_, _, err := transcript.ReadCopilotTodos(context.Background(), path)
		assert.ErrorIs(t, err, regular.ErrNotRegular)
	})
	t.Run("not SQLite", func(t *testing.T) {
		path := copilotSession(t, "copilot_test.go")
		_, _, err := transcript.ReadCopilotTodos(context.Background(), path)
		assert.ErrorIs(t, err, sqlitefile.ErrFormat)
	})
	t.Run("huge file, small plan", func(t *testing.T) {
		// 64 GiB, sparse: only the schema's and the todos' pages are read.
		path := copilotSession(t, recorded+"session-open.db")
		require.NoError(t, os.Truncate(filepath.Join(filepath.Dir(path), "session.db"), 64<<30))
		items, found, err := transcript.ReadCopilotTodos(context.Background(), path)
		require.NoError(t, err)
		assert.True(t, found)
		assert.Len(t, items, 2)
	})
	t.Run("more todos than the limit", func(t *testing.T) {
		defer transcript.SetCopilotLimits(sqlitefile.Limits{Bytes: 1 << 20, Rows: 100, Record: 1 << 10})()
		_, _, err := transcript.ReadCopilotTodos(context.Background(), copilotSession(t, made+"autovacuum.db"))
		assert.ErrorIs(t, err, sqlitefile.ErrLimit)
	})
	t.Run("more pages than the limit", func(t *testing.T) {
		defer transcript.SetCopilotLimits(sqlitefile.Limits{Bytes: 8 << 10, Rows: 1000, Record: 1 << 10})()
		_, _, err := transcript.ReadCopilotTodos(context.Background(), copilotSession(t, made+"autovacuum.db"))
		assert.ErrorIs(t, err, sqlitefile.ErrLimit)
	})
}

// A write in progress, or one that was interrupted, leaves a rollback
// journal whose pages the file alone does not show: the check cannot run
// this time (it runs again at the next stop). An empty or zeroed journal
// (journal_mode=truncate or persist after a commit) is no write.
// A database in WAL mode is read when its log is empty (every frame
// checkpointed), refused while the log holds frames.
func TestReadCopilotTodosPendingWrites(t *testing.T) {
	magic := []byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}
	for _, tt := range []struct {
		name    string
		db      string
		file    string
		content []byte
		err     error
	}{
		{"hot journal", recorded + "session-open.db", "session.db-journal", append(magic, make([]byte, 504)...), sqlitefile.ErrChanged},
		{"zeroed journal", recorded + "session-open.db", "session.db-journal", make([]byte, 512), nil},
		{"empty journal", recorded + "session-open.db", "session.db-journal", nil, nil},
		{"WAL with frames", made + "wal.db", "session.db-wal", make([]byte, 32+24+4096), sqlitefile.ErrUnsupported},
		{"WAL, empty log", made + "wal.db", "session.db-wal", nil, nil},
		{"WAL, no log", made + "wal.db", "", nil, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := copilotSession(t, tt.db)
			if tt.file != "" {
				require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(path), tt.file), tt.content, 0o644))
			}
			items, found, err := transcript.ReadCopilotTodos(context.Background(), path)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				assert.ErrorContains(t, err, tt.file)
				return
			}
			require.NoError(t, err)
			assert.True(t, found)
			assert.NotEmpty(t, items)
		})
	}
}

// The read a Copilot stop pays: the recorded session.db of two todos.
func BenchmarkReadCopilotTodos(b *testing.B) {
	dir := b.TempDir()
	data, err := os.ReadFile(recorded + "session-open.db")
	require.NoError(b, err)
	require.NoError(b, os.WriteFile(filepath.Join(dir, "session.db"), data, 0o644))
	path := filepath.Join(dir, "events.jsonl")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := transcript.ReadCopilotTodos(context.Background(), path); err != nil {
			b.Fatal(err)
		}
	}
}
