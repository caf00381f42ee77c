package sqlitefile

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A record header of one-byte NULLs as long as a row may be would cost a
// value per byte of every row: more values than SQLite's column limit is
// a damaged record.
func TestRecordColumnLimit(t *testing.T) {
	rec := func(values int) []byte {
		// Header size as a two-byte varint, then values NULLs.
		size := 2 + values
		return append([]byte{byte(0x80 | size>>7), byte(size & 0x7f)}, make([]byte, values)...)
	}
	v, err := record(rec(maxColumns))
	require.NoError(t, err)
	assert.Len(t, v, maxColumns)
	_, err = record(rec(maxColumns + 1))
	assert.ErrorIs(t, err, ErrFormat)
}

func TestUvarint(t *testing.T) {
	for _, tt := range []struct {
		in []byte
		v  uint64
		k  int
	}{
		{[]byte{0x00}, 0, 1},
		{[]byte{0x7f}, 127, 1},
		{[]byte{0x81, 0x00}, 128, 2},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 1<<64 - 1, 9},
		{[]byte{0x81}, 0, 0},
		{nil, 0, 0},
	} {
		v, k := uvarint(tt.in)
		assert.Equal(t, tt.v, v, "%x", tt.in)
		assert.Equal(t, tt.k, k, "%x", tt.in)
	}
}
