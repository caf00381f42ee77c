package sqlitefile_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/donegate/donegate/internal/sqlitefile"
)

// FuzzFile reads every table of a damaged database: whatever the bytes,
// the reader returns (rows or an error), within its limits, and never
// panics. The seeds are the small databases the real SQLite wrote.
func FuzzFile(f *testing.F) {
	for _, name := range []string{"todos", "altered", "withoutrowid"} {
		data, err := os.ReadFile(filepath.Join("testdata", name+".db"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	lim := sqlitefile.Limits{Bytes: 1 << 20, Rows: 1000, Record: 64 << 10}
	f.Fuzz(func(t *testing.T, data []byte) {
		db, err := sqlitefile.New(bytes.NewReader(data), int64(len(data)), lim)
		if err != nil {
			return
		}
		for _, name := range []string{"todos", "todo_deps", "t", `we"ird`} {
			table, ok, err := db.Table(name)
			if err != nil || !ok {
				continue
			}
			rows := 0
			_ = db.Rows(table, func(int64, []any) error { rows++; return nil })
			if rows > lim.Rows {
				t.Fatalf("%d rows, more than the limit %d", rows, lim.Rows)
			}
		}
	})
}
