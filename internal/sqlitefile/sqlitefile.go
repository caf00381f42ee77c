// Package sqlitefile reads the rows of one table of an SQLite 3 database
// file, read-only, from the documented file format
// (https://www.sqlite.org/fileformat2.html): the header, table b-trees,
// overflow pages and the record format. It is what the stop-hook needs to
// read Copilot CLI's todos out of its session.db, and nothing more: no
// SQL, no indexes, no WITHOUT ROWID tables, no UTF-16 text, no write-ahead
// log (Copilot CLI 1.0.102 keeps session.db in rollback-journal mode).
//
// Why not an SQLite library: linked into the stop-hook, the well-kept
// pure-Go ones cost every host's every stop start-up time and megabytes
// of binary, and run as a separate program only for Copilot events they
// cost more than the floor on their own; reading one small table from
// the file costs a fraction of that (docs/performance.md, Copilot's
// todos, has the figures).
//
// It never writes and takes no lock: a writer is not disturbed, and a
// reader that meets a file changed under it says so (ErrChanged). Every
// read is bounded (Limits): a hostile file — cycles between pages, lengths
// past the page, a huge table — gives an error, never a hang or a panic.
package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Errors wrapped by what the package returns.
var (
	// ErrFormat: the file is not a valid SQLite 3 database, or is damaged.
	ErrFormat = errors.New("not a valid SQLite 3 database file")
	// ErrUnsupported: valid, but uses what this reader does not read.
	ErrUnsupported = errors.New("unsupported by this reader")
	// ErrLimit: reading would exceed a bound of Limits.
	ErrLimit = errors.New("too large to read")
	// ErrChanged: the file changed while it was read (a writer was busy).
	ErrChanged = errors.New("changed while it was read")
)

// Limits bound what one File reads.
type Limits struct {
	// Bytes is the most page bytes read in all (the header included), and
	// the most payload bytes decoded in all: a crafted page whose cells
	// overlap would otherwise have one page decoded thousands of times.
	Bytes int64
	// Rows is the most rows one File yields in all, the schema's
	// included.
	Rows int
	// Record is the largest record (row) read, overflow pages included.
	Record int64
}

// DefaultLimits suit a table of todos: 16 MiB of pages, 10,000 rows,
// 1 MiB a row.
var DefaultLimits = Limits{Bytes: 16 << 20, Rows: 10000, Record: 1 << 20}

// File is an SQLite 3 database file opened for reading.
type File struct {
	r        io.ReaderAt
	pageSize int64
	usable   int64  // page size less the reserved bytes at each page's end
	pages    uint32 // whole pages the file holds
	wal      bool
	changes  uint32 // the header's file change counter
	lim      Limits
	read     int64 // page bytes read so far
	decoded  int64 // payload bytes decoded so far
	rowsRead int   // rows yielded so far, the schema's included
}

const headerSize = 100

var magic = []byte("SQLite format 3\x00")

// New reads the header of the database in r (size bytes long).
func New(r io.ReaderAt, size int64, lim Limits) (*File, error) {
	f := &File{r: r, lim: lim}
	h, err := f.header(size)
	if err != nil {
		return nil, err
	}
	f.pageSize = int64(binary.BigEndian.Uint16(h[16:]))
	if f.pageSize == 1 {
		f.pageSize = 65536
	}
	if f.pageSize < 512 || f.pageSize&(f.pageSize-1) != 0 {
		return nil, fmt.Errorf("%w: page size %d", ErrFormat, f.pageSize)
	}
	f.usable = f.pageSize - int64(h[20])
	if f.usable < 480 {
		return nil, fmt.Errorf("%w: %d reserved bytes a page", ErrFormat, h[20])
	}
	if pages := size / f.pageSize; pages <= math.MaxUint32 {
		f.pages = uint32(pages)
	} else {
		f.pages = math.MaxUint32
	}
	if h[18] == 2 || h[19] == 2 {
		f.wal = true
	}
	if h[19] > 2 {
		return nil, fmt.Errorf("%w: file format read version %d", ErrUnsupported, h[19])
	}
	switch enc := binary.BigEndian.Uint32(h[56:]); enc {
	case 0, 1: // 0: no text written yet
	default:
		return nil, fmt.Errorf("%w: text encoding %d (UTF-16)", ErrUnsupported, enc)
	}
	f.changes = binary.BigEndian.Uint32(h[24:])
	return f, nil
}

func (f *File) header(size int64) ([]byte, error) {
	if size < headerSize {
		return nil, fmt.Errorf("%w: %d bytes", ErrFormat, size)
	}
	h := make([]byte, headerSize)
	if _, err := f.r.ReadAt(h, 0); err != nil {
		return nil, fmt.Errorf("read header: %w", err)
	}
	if !bytes.Equal(h[:len(magic)], magic) {
		return nil, fmt.Errorf("%w: no SQLite header", ErrFormat)
	}
	return h, nil
}

// WAL reports whether the database is in write-ahead-log mode: then the
// latest rows may be in the -wal file beside it, which this reader does
// not read.
func (f *File) WAL() bool { return f.wal }

// Unchanged reports whether the header's change counter is still what it
// was when the file was opened: every committed write in rollback-journal
// mode increments it.
func (f *File) Unchanged() (bool, error) {
	h := make([]byte, headerSize)
	if _, err := f.r.ReadAt(h, 0); err != nil {
		return false, fmt.Errorf("read header: %w", err)
	}
	return binary.BigEndian.Uint32(h[24:]) == f.changes, nil
}

// page reads page n (1-based), counting it against Limits.Bytes.
func (f *File) page(n uint32) ([]byte, error) {
	if n == 0 || n > f.pages {
		return nil, fmt.Errorf("%w: page %d out of range (the file has %d)", ErrFormat, n, f.pages)
	}
	if f.read+f.pageSize > f.lim.Bytes {
		return nil, fmt.Errorf("%w: more than %d bytes of pages", ErrLimit, f.lim.Bytes)
	}
	f.read += f.pageSize
	p := make([]byte, f.pageSize)
	if _, err := f.r.ReadAt(p, int64(n-1)*f.pageSize); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: page %d past the end", ErrChanged, n)
		}
		return nil, fmt.Errorf("read page %d: %w", n, err)
	}
	return p[:f.usable], nil
}

// Table is a table of the schema.
type Table struct {
	Name    string
	Root    uint32
	Columns []string // in the order of the CREATE TABLE statement
}

// Column returns the index of the named column (case-insensitive, as
// SQL names are), or -1.
func (t Table) Column(name string) int {
	for i, c := range t.Columns {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1
}

// Table finds the table called name in the schema. ok is false when
// there is none.
func (f *File) Table(name string) (t Table, ok bool, err error) {
	err = f.rows(1, func(_ int64, v []any) error {
		if ok || len(v) < 5 || text(v[0]) != "table" || !strings.EqualFold(text(v[1]), name) {
			return nil
		}
		root, isInt := v[3].(int64)
		if !isInt || root <= 0 || root > math.MaxUint32 {
			return fmt.Errorf("%w: table %s is not stored in the file (virtual?)", ErrUnsupported, text(v[1]))
		}
		cols, withoutRowid, err := columns(text(v[4]))
		if err != nil {
			return fmt.Errorf("table %s: %w", text(v[1]), err)
		}
		if withoutRowid {
			return fmt.Errorf("%w: table %s is WITHOUT ROWID", ErrUnsupported, text(v[1]))
		}
		t, ok = Table{Name: text(v[1]), Root: uint32(root), Columns: cols}, true
		return nil
	})
	if err != nil {
		return Table{}, false, fmt.Errorf("schema: %w", err)
	}
	return t, ok, nil
}

// Rows calls fn with each row of t in rowid order: its values are nil,
// int64, float64, string or []byte, one per column the row was written
// with (a row written before an ALTER TABLE ADD COLUMN has fewer).
func (f *File) Rows(t Table, fn func(rowid int64, values []any) error) error {
	return f.rows(t.Root, fn)
}

// B-tree page types (the first byte of a page's b-tree header).
const (
	interiorTable = 5
	leafTable     = 13
)

// maxDepth bounds the b-tree's height: SQLite's own cursors stop at 20.
const maxDepth = 20

// rows walks the table b-tree rooted at root, depth first, left to right:
// the leaves in rowid order.
func (f *File) rows(root uint32, fn func(int64, []any) error) error {
	seen := map[uint32]bool{}
	var walk func(n uint32, depth int) error
	walk = func(n uint32, depth int) error {
		if depth > maxDepth {
			return fmt.Errorf("%w: b-tree deeper than %d", ErrFormat, maxDepth)
		}
		if seen[n] {
			return fmt.Errorf("%w: page %d reached twice", ErrFormat, n)
		}
		seen[n] = true
		p, err := f.page(n)
		if err != nil {
			return err
		}
		h := 0
		if n == 1 {
			h = headerSize
		}
		if len(p) < h+12 {
			return fmt.Errorf("%w: page %d too short", ErrFormat, n)
		}
		kind, cells := p[h], int(binary.BigEndian.Uint16(p[h+3:]))
		hsize := 8
		if kind == interiorTable {
			hsize = 12
		} else if kind != leafTable {
			return fmt.Errorf("%w: page %d is of type %d, not a table b-tree page", ErrFormat, n, kind)
		}
		ptrs := h + hsize
		if ptrs+2*cells > len(p) {
			return fmt.Errorf("%w: page %d claims %d cells", ErrFormat, n, cells)
		}
		// SQLite never points two cells at one offset: a page that does
		// is crafted to have one cell read thousands of times.
		at := make(map[int]bool, cells)
		for i := range cells {
			off := int(binary.BigEndian.Uint16(p[ptrs+2*i:]))
			if off < ptrs+2*cells || off >= len(p) || at[off] {
				return fmt.Errorf("%w: page %d cell %d at offset %d", ErrFormat, n, i, off)
			}
			at[off] = true
			if kind == interiorTable {
				if off+4 > len(p) {
					return fmt.Errorf("%w: page %d cell %d truncated", ErrFormat, n, i)
				}
				if err := walk(binary.BigEndian.Uint32(p[off:]), depth+1); err != nil {
					return err
				}
				continue
			}
			if f.rowsRead++; f.rowsRead > f.lim.Rows {
				return fmt.Errorf("%w: more than %d rows", ErrLimit, f.lim.Rows)
			}
			rowid, rec, err := f.leafCell(p, off, n)
			if err != nil {
				return err
			}
			v, err := record(rec)
			if err != nil {
				return fmt.Errorf("page %d row %d: %w", n, rowid, err)
			}
			if err := fn(rowid, v); err != nil {
				return err
			}
		}
		if kind == interiorTable {
			return walk(binary.BigEndian.Uint32(p[h+8:]), depth+1)
		}
		return nil
	}
	return walk(root, 0)
}

// leafCell returns a table leaf cell's rowid and its whole payload,
// following overflow pages.
func (f *File) leafCell(p []byte, off int, n uint32) (int64, []byte, error) {
	size, k := uvarint(p[off:])
	if k == 0 {
		return 0, nil, fmt.Errorf("%w: page %d: truncated cell", ErrFormat, n)
	}
	off += k
	rowid, k := uvarint(p[off:])
	if k == 0 {
		return 0, nil, fmt.Errorf("%w: page %d: truncated cell", ErrFormat, n)
	}
	off += k
	if size > uint64(f.lim.Record) {
		return 0, nil, fmt.Errorf("%w: row %d is %d bytes, more than %d", ErrLimit, int64(rowid), size, f.lim.Record)
	}
	if f.decoded += int64(size); f.decoded > f.lim.Bytes {
		return 0, nil, fmt.Errorf("%w: more than %d bytes of rows", ErrLimit, f.lim.Bytes)
	}
	// How much of the payload is on the page: the file format's rule.
	total, u := int64(size), f.usable
	local, x := total, u-35
	if total > x {
		m := (u-12)*32/255 - 23
		local = m + (total-m)%(u-4)
		if local > x {
			local = m
		}
	}
	end := int64(off) + local
	if end > int64(len(p)) || (local < total && end+4 > int64(len(p))) {
		return 0, nil, fmt.Errorf("%w: page %d: cell runs past the page", ErrFormat, n)
	}
	payload := make([]byte, 0, total)
	payload = append(payload, p[off:end]...)
	next := uint32(0)
	if local < total {
		next = binary.BigEndian.Uint32(p[end:])
	}
	seen := map[uint32]bool{}
	for int64(len(payload)) < total {
		if next == 0 || seen[next] {
			return 0, nil, fmt.Errorf("%w: page %d: broken overflow chain", ErrFormat, n)
		}
		seen[next] = true
		o, err := f.page(next)
		if err != nil {
			return 0, nil, err
		}
		chunk := min(total-int64(len(payload)), u-4)
		payload = append(payload, o[4:4+chunk]...)
		next = binary.BigEndian.Uint32(o)
	}
	return int64(rowid), payload, nil
}

// maxColumns is SQLite's own default limit on a table's columns: a record
// with more values is not one SQLite wrote, and decoding its header of
// one-byte NULLs would cost a value per byte of every row.
const maxColumns = 2000

// record decodes a record: a header of serial types, then the values.
func record(b []byte) ([]any, error) {
	hsize, k := uvarint(b)
	if k == 0 || hsize < uint64(k) || hsize > uint64(len(b)) {
		return nil, fmt.Errorf("%w: record header", ErrFormat)
	}
	types, body := b[k:hsize], b[hsize:]
	var out []any
	for len(types) > 0 {
		t, k := uvarint(types)
		if k == 0 {
			return nil, fmt.Errorf("%w: record header", ErrFormat)
		}
		types = types[k:]
		if len(out) == maxColumns {
			return nil, fmt.Errorf("%w: a record of more than %d values", ErrFormat, maxColumns)
		}
		n := valueSize(t)
		if n < 0 || uint64(n) > uint64(len(body)) {
			return nil, fmt.Errorf("%w: record value of serial type %d runs past the record", ErrFormat, t)
		}
		v := body[:n]
		body = body[n:]
		switch {
		case t == 0:
			out = append(out, nil)
		case t <= 6:
			// Big-endian two's complement of 1, 2, 3, 4, 6 or 8 bytes.
			x := int64(int8(v[0]))
			for _, c := range v[1:] {
				x = x<<8 | int64(c)
			}
			out = append(out, x)
		case t == 7:
			out = append(out, math.Float64frombits(binary.BigEndian.Uint64(v)))
		case t == 8 || t == 9:
			out = append(out, int64(t-8))
		case t%2 == 0:
			out = append(out, bytes.Clone(v))
		default:
			out = append(out, string(v))
		}
	}
	return out, nil
}

// valueSize is the body size of a value of serial type t, -1 for the
// reserved types 10 and 11.
func valueSize(t uint64) int64 {
	switch {
	case t <= 4:
		return int64(t)
	case t == 5:
		return 6
	case t == 6 || t == 7:
		return 8
	case t == 8 || t == 9:
		return 0
	case t == 10 || t == 11 || t > math.MaxInt64:
		return -1
	}
	return int64(t-12) / 2
}

// uvarint decodes SQLite's big-endian varint of 1 to 9 bytes (the ninth
// contributes all 8 bits). k is 0 when b ends first.
func uvarint(b []byte) (v uint64, k int) {
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0
		}
		if i == 8 {
			return v<<8 | uint64(b[i]), 9
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// text is a value as text: SQL's TEXT, or "" for anything else.
func text(v any) string {
	s, _ := v.(string)
	return s
}
