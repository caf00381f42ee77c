package transcript

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/sqlitefile"
)

// CopilotSessionDB is the SQLite database Copilot CLI keeps beside a
// session's transcript (events.jsonl): its agent writes the plan there,
// in the todos table, with its sql tool.
const CopilotSessionDB = "session.db"

// copilotLimits bound the read of session.db: the agent may load CSVs and
// API answers into tables of its own there, so the file can be large, but
// only the schema's and the todos table's pages are read.
var copilotLimits = sqlitefile.DefaultLimits

// ReadCopilotTodos returns the todos of the Copilot CLI session whose
// transcript is at transcriptPath, from the todos table of the session.db
// beside it, in the order they were written (rowid). Statuses are
// pending, in_progress, done and blocked; done becomes "completed" (what
// Item.Done means), the others stay as they are and count as open —
// blocked too: a todo the agent could not finish is not done, and the
// agent can still remove one that is no longer needed. found is false
// when there is no session.db (the agent never ran its sql tool), no
// todos table, or no todo in it: no plan is a normal state.
//
// The file is read in place, read-only and without a lock, so Copilot is
// never held up; its header's change counter, read before and after,
// tells a read that overlapped a write, which is read again once. A
// session.db that is not a regular file (a FIFO, a device) is an error
// that wraps regular.ErrNotRegular; so is one in write-ahead-log mode
// with a -wal file (the reader does not apply it), or one with a hot
// rollback journal (an interrupted write).
func ReadCopilotTodos(ctx context.Context, transcriptPath string) (items []Item, found bool, err error) {
	if transcriptPath == "" {
		return nil, false, nil
	}
	path := filepath.Join(filepath.Dir(transcriptPath), CopilotSessionDB)
	for attempt := 0; ; attempt++ {
		items, found, err = readCopilotTodos(ctx, path)
		if !errors.Is(err, sqlitefile.ErrChanged) || attempt == 1 {
			break
		}
	}
	if err != nil {
		return nil, false, fmt.Errorf("copilot todos in %s: %w", path, err)
	}
	return items, found, nil
}

func readCopilotTodos(ctx context.Context, path string) ([]Item, bool, error) {
	f, err := regular.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, false, nil
		}
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	db, err := sqlitefile.New(within(ctx, f), st.Size(), copilotLimits)
	if err != nil {
		return nil, false, err
	}
	if err := pendingWrite(path, db.WAL()); err != nil {
		return nil, false, err
	}
	table, ok, err := db.Table("todos")
	if err != nil || !ok {
		return nil, false, err
	}
	id, title, status := table.Column("id"), table.Column("title"), table.Column("status")
	if title < 0 || status < 0 {
		return nil, false, fmt.Errorf("%w: the todos table has no title or status column", sqlitefile.ErrUnsupported)
	}
	var items []Item
	err = db.Rows(table, func(rowid int64, v []any) error {
		it := Item{Title: value(v, title), Status: value(v, status)}
		if it.Title == "" {
			it.Title = value(v, id)
		}
		if it.Title == "" {
			it.Title = fmt.Sprintf("todo %d", rowid)
		}
		switch it.Status {
		case "done":
			it.Status = "completed"
		case "":
			// NULL, or a row older than the column: the column's
			// default, and open either way.
			it.Status = "pending"
		}
		items = append(items, it)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	if same, err := db.Unchanged(); err != nil {
		return nil, false, err
	} else if !same {
		return nil, false, sqlitefile.ErrChanged
	}
	return items, len(items) > 0, nil
}

// journalMagic starts a rollback journal that holds pages to put back.
var journalMagic = []byte{0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7}

// pendingWrite reports what the file alone does not hold: the frames of
// a write-ahead log, or a rollback journal whose pages a reader would
// have to put back first (a write in progress, or one interrupted).
func pendingWrite(path string, wal bool) error {
	name, need := path+"-journal", int64(len(journalMagic))
	if wal {
		name, need = path+"-wal", 32+24 // the log's header and one frame's
	}
	f, err := regular.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer f.Close()
	head := make([]byte, len(journalMagic))
	n, _ := f.ReadAt(head, 0)
	switch {
	case wal:
		if st, err := f.Stat(); err == nil && st.Size() < need {
			return nil // an empty log: every frame checkpointed
		}
		return fmt.Errorf("%w: the database is in WAL mode and %s holds frames", sqlitefile.ErrUnsupported, filepath.Base(name))
	case int64(n) == need && string(head) == string(journalMagic):
		return fmt.Errorf("%w: %s holds a write in progress or interrupted", sqlitefile.ErrChanged, filepath.Base(name))
	}
	return nil
}

// value is column i of a row as text ("" for NULL, a number or a blob,
// or a row written before the column was added).
func value(v []any, i int) string {
	if i < 0 || i >= len(v) {
		return ""
	}
	s, _ := v[i].(string)
	return s
}
