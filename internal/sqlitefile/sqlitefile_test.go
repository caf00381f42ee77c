package sqlitefile_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/sqlitefile"
)

// expected is what the real SQLite read back from a testdata database
// (scripts/gen-sqlitefile-testdata): per table, its columns and its rows,
// each row its rowid then its values.
type expected map[string]struct {
	Columns []string                       `json:"columns"`
	Rows    [][]map[string]json.RawMessage `json:"rows"`
}

func load(t *testing.T, name string) (*sqlitefile.File, expected) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".db"))
	require.NoError(t, err)
	f, err := sqlitefile.New(bytes.NewReader(data), int64(len(data)), sqlitefile.DefaultLimits)
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	require.NoError(t, err)
	var want expected
	require.NoError(t, json.Unmarshal(raw, &want))
	return f, want
}

// value turns an expected value ({"i": "7"}, {"s": "x"}, ...) into what
// Rows yields.
func value(t *testing.T, v map[string]json.RawMessage) any {
	t.Helper()
	if v == nil {
		return nil
	}
	for kind, raw := range v {
		var s string
		switch kind {
		case "i":
			require.NoError(t, json.Unmarshal(raw, &s))
			n, err := strconv.ParseInt(s, 10, 64)
			require.NoError(t, err)
			return n
		case "f":
			var f float64
			require.NoError(t, json.Unmarshal(raw, &f))
			return f
		case "s":
			require.NoError(t, json.Unmarshal(raw, &s))
			return s
		case "b":
			require.NoError(t, json.Unmarshal(raw, &s))
			b, err := hex.DecodeString(s)
			require.NoError(t, err)
			return b
		}
	}
	t.Fatalf("bad expected value %v", v)
	return nil
}

// Every table of every database the real SQLite wrote reads back as the
// real SQLite reads it: deep b-trees, overflow chains at and around the
// thresholds, every serial type, 64 KiB pages, quoted and commented
// column names, rows older than an added column, deleted rows, pointer-map
// pages.
func TestRowsMatchTheRealSQLite(t *testing.T) {
	for _, name := range []string{"todos", "deep", "overflow", "types", "altered", "autovacuum"} {
		t.Run(name, func(t *testing.T) {
			f, want := load(t, name)
			names := make([]string, 0, len(want))
			for n := range want {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, tn := range names {
				w := want[tn]
				table, ok, err := f.Table(tn)
				require.NoError(t, err)
				require.True(t, ok, tn)
				assert.Equal(t, w.Columns, table.Columns, tn)
				var got [][]any
				require.NoError(t, f.Rows(table, func(rowid int64, v []any) error {
					row := append([]any{rowid}, v...)
					for len(row) < len(w.Columns)+1 { // written before ADD COLUMN
						row = append(row, nil)
					}
					got = append(got, row)
					return nil
				}))
				wantRows := [][]any{}
				for _, r := range w.Rows {
					var row []any
					for _, v := range r {
						row = append(row, value(t, v))
					}
					wantRows = append(wantRows, row)
				}
				if len(got) == 0 {
					got = [][]any{}
				}
				assert.Equal(t, wantRows, got, tn)
			}
		})
	}
}

func TestTableLookup(t *testing.T) {
	f, _ := load(t, "todos")
	_, ok, err := f.Table("missing")
	require.NoError(t, err)
	assert.False(t, ok)
	table, ok, err := f.Table("TODOS") // SQL names ignore case
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, 3, table.Column("Status"))
	assert.Equal(t, -1, table.Column("nope"))
	assert.False(t, f.WAL())
}

// What the reader does not read is refused with ErrUnsupported, never
// read wrongly.
func TestUnsupported(t *testing.T) {
	f, _ := load(t, "withoutrowid")
	_, _, err := f.Table("todos")
	assert.ErrorIs(t, err, sqlitefile.ErrUnsupported)
	assert.ErrorContains(t, err, "WITHOUT ROWID")

	data, err := os.ReadFile(filepath.Join("testdata", "utf16.db"))
	require.NoError(t, err)
	_, err = sqlitefile.New(bytes.NewReader(data), int64(len(data)), sqlitefile.DefaultLimits)
	assert.ErrorIs(t, err, sqlitefile.ErrUnsupported)
	assert.ErrorContains(t, err, "UTF-16")

	f, _ = load(t, "wal")
	assert.True(t, f.WAL(), "the header says WAL mode")
}

func TestLimits(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "deep.db"))
	require.NoError(t, err)
	open := func(lim sqlitefile.Limits) (*sqlitefile.File, sqlitefile.Table) {
		f, err := sqlitefile.New(bytes.NewReader(data), int64(len(data)), lim)
		require.NoError(t, err)
		table, ok, err := f.Table("t")
		require.NoError(t, err)
		require.True(t, ok)
		return f, table
	}
	each := func(int64, []any) error { return nil }

	f, table := open(sqlitefile.Limits{Bytes: 1 << 20, Rows: 100, Record: 1 << 10})
	assert.ErrorIs(t, f.Rows(table, each), sqlitefile.ErrLimit, "rows")
	f, table = open(sqlitefile.Limits{Bytes: 8 << 10, Rows: 1 << 20, Record: 1 << 10})
	assert.ErrorIs(t, f.Rows(table, each), sqlitefile.ErrLimit, "bytes")
	big, err := os.ReadFile(filepath.Join("testdata", "overflow.db"))
	require.NoError(t, err)
	data = big
	f, table = open(sqlitefile.Limits{Bytes: 1 << 20, Rows: 1 << 20, Record: 4096})
	err = f.Rows(table, each)
	assert.ErrorIs(t, err, sqlitefile.ErrLimit, "record")
	assert.ErrorContains(t, err, "row 11 is 6008 bytes, more than 4096")
	f, table = open(sqlitefile.DefaultLimits)
	stop := errors.New("stop")
	assert.ErrorIs(t, f.Rows(table, func(int64, []any) error { return stop }), stop, "fn's error")
}

// Damaged files give ErrFormat: a page that points to itself, an
// overflow chain that loops, a page number past the end, cells past the
// page, garbage for a header.
func TestDamagedFiles(t *testing.T) {
	deep, err := os.ReadFile(filepath.Join("testdata", "deep.db"))
	require.NoError(t, err)
	overflow, err := os.ReadFile(filepath.Join("testdata", "overflow.db"))
	require.NoError(t, err)
	pageSize := func(db []byte) int { return int(binary.BigEndian.Uint16(db[16:])) }
	root := func(t *testing.T, db []byte) int {
		f, err := sqlitefile.New(bytes.NewReader(db), int64(len(db)), sqlitefile.DefaultLimits)
		require.NoError(t, err)
		table, ok, err := f.Table("t")
		require.NoError(t, err)
		require.True(t, ok)
		return int(table.Root)
	}
	for _, tt := range []struct {
		name   string
		db     []byte
		damage func(db []byte)
	}{
		{"interior page points to itself", deep, func(db []byte) {
			r := root(t, db)
			off := (r - 1) * pageSize(db)
			binary.BigEndian.PutUint32(db[off+8:], uint32(r)) // right-most child
		}},
		{"child past the end", deep, func(db []byte) {
			r := root(t, db)
			off := (r - 1) * pageSize(db)
			binary.BigEndian.PutUint32(db[off+8:], 1<<30)
		}},
		{"cell count past the page", deep, func(db []byte) {
			off := (root(t, db) - 1) * pageSize(db)
			binary.BigEndian.PutUint16(db[off+3:], 0xffff)
		}},
		{"not a b-tree page", deep, func(db []byte) {
			db[(root(t, db)-1)*pageSize(db)] = 7
		}},
		{"overflow chain loops", overflow, func(db []byte) {
			// Every overflow page's next pointer to itself.
			ps := pageSize(db)
			for p := root(t, db) + 1; p*ps <= len(db); p++ {
				off := (p - 1) * ps
				if db[off] != 13 && db[off] != 5 && binary.BigEndian.Uint32(db[off:]) != 0 {
					binary.BigEndian.PutUint32(db[off:], uint32(p))
				}
			}
		}},
		{"truncated", deep, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			db := bytes.Clone(tt.db)
			if tt.damage != nil {
				tt.damage(db)
			} else {
				db = db[:len(db)/2]
			}
			f, err := sqlitefile.New(bytes.NewReader(db), int64(len(db)), sqlitefile.DefaultLimits)
			require.NoError(t, err)
			table, ok, err := f.Table("t")
			require.NoError(t, err)
			require.True(t, ok)
			err = f.Rows(table, func(int64, []any) error { return nil })
			assert.ErrorIs(t, err, sqlitefile.ErrFormat)
		})
	}
	for _, tt := range []struct {
		name string
		db   []byte
	}{
		{"empty", nil},
		{"short", []byte("SQLite format 3\x00")},
		{"not SQLite", bytes.Repeat([]byte("x"), 4096)},
		{"page size 3", func() []byte {
			db := bytes.Clone(deep[:4096])
			binary.BigEndian.PutUint16(db[16:], 3)
			return db
		}()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := sqlitefile.New(bytes.NewReader(tt.db), int64(len(tt.db)), sqlitefile.DefaultLimits)
			assert.ErrorIs(t, err, sqlitefile.ErrFormat)
		})
	}
}

// Unchanged tells a read that overlapped a committed write: the header's
// change counter moved.
func TestUnchanged(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "todos.db"))
	require.NoError(t, err)
	f, err := sqlitefile.New(bytes.NewReader(data), int64(len(data)), sqlitefile.DefaultLimits)
	require.NoError(t, err)
	same, err := f.Unchanged()
	require.NoError(t, err)
	assert.True(t, same)
	binary.BigEndian.PutUint32(data[24:], binary.BigEndian.Uint32(data[24:])+1)
	same, err = f.Unchanged()
	require.NoError(t, err)
	assert.False(t, same)
}
