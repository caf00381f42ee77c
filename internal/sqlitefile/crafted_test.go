package sqlitefile_test

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/sqlitefile"
)

// craftedSchema is a one-page database (page size 65536) whose schema
// page is a table leaf of cells pointers, the i-th at offset at(i); each
// cell holds a record of size bytes (under 16384).
func craftedSchema(cells int, size uint64, at func(i int) int) []byte {
	const pageSize = 65536
	db := make([]byte, pageSize)
	copy(db, "SQLite format 3\x00")
	binary.BigEndian.PutUint16(db[16:], 1) // 65536
	db[18], db[19] = 1, 1
	binary.BigEndian.PutUint32(db[56:], 1) // UTF-8
	h := 100
	db[h] = 13 // table leaf
	binary.BigEndian.PutUint16(db[h+3:], uint16(cells))
	ptrs := h + 8
	for i := range cells {
		off := at(i)
		binary.BigEndian.PutUint16(db[ptrs+2*i:], uint16(off))
		// size and rowid (SQLite's varints, two bytes each here), then
		// a record: its header's size (2) and a NULL, then zeros.
		db[off], db[off+1] = byte(size>>7)|0x80, byte(size&0x7f)
		db[off+2], db[off+3] = 0x80, 1
		db[off+4], db[off+5] = 2, 0
	}
	return db
}

// A crafted schema page cannot make the reader work or allocate beyond
// its limits (issue 29: 10,000 cell pointers to one cell turned a 128 KB
// file into ~600 MB; a crafted 16 MiB file took 181 s): pointers to one
// cell are refused. What cells that overlap decode counts against the
// limit of bytes (TestLimits), and the schema's rows against the limit
// of rows.
func TestCraftedCellsStayBounded(t *testing.T) {
	for _, tt := range []struct {
		name string
		db   []byte
	}{
		{"10,000 pointers to one cell", craftedSchema(10000, 12000, func(int) int { return 30000 })},
		// Each cell's record runs over the next ones' starts: 5,000 rows
		// of 15,000 bytes from one 64 KiB page.
		{"overlapping cells", craftedSchema(5000, 15000, func(i int) int { return 20000 + 6*i })},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			f, err := sqlitefile.New(bytes.NewReader(tt.db), int64(len(tt.db)), sqlitefile.DefaultLimits)
			require.NoError(t, err)
			_, _, err = f.Table("todos")
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated")
			assert.Less(t, time.Since(start), 10*time.Second)
		})
	}
}
