package transcript

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
)

// Position is where a reader of a transcript stopped, with what tells
// whether a later call may go on from there: the same file (a file
// renamed over the path is another), no shorter than it was, and the same
// bytes just before the offset. Without them an offset kept from one
// transcript was used in another, longer one that replaced it: the lines
// before the offset were never read (a phase marked there was missed),
// and reading began inside a line, where a malformed line of the new
// file could look whole from that point on (a false pass).
//
// Checking costs one read of at most TailBytes at the offset, on a file
// already open: nothing next to reading what was appended.
type Position struct {
	// Offset is the start of the first line not read yet.
	Offset int64 `json:"offset,omitempty"`
	// Dev and Ino are the file's device and inode numbers.
	Dev uint64 `json:"dev,omitempty"`
	Ino uint64 `json:"ino,omitempty"`
	// Size is the file's size when it was read; Claude Code only
	// appends, so a shorter file was cut or replaced.
	Size int64 `json:"size,omitempty"`
	// Tail is a hash of the TailBytes bytes before Offset (fewer near the
	// start of the file): an inode reused by a new file, or a file
	// rewritten in place, has other bytes there.
	Tail string `json:"tail,omitempty"`
}

// TailBytes is how much before a Position's offset is compared: the end
// of the last line read, its closing braces and the text or ids before
// them, which another transcript does not have at the same offset.
const TailBytes = 64

// SameFile reports whether p and q were taken in the same file.
func (p Position) SameFile(q Position) bool { return p.Dev == q.Dev && p.Ino == q.Ino }

// resume checks that p may be gone on from in the open file f, whose
// status is st, and returns the bytes before p's offset that were
// compared (a reader keeps them as the start of its next tail). A zero
// offset always resumes: reading starts at the beginning anyway.
func (p Position) resume(f io.ReaderAt, st os.FileInfo) (tail []byte, ok bool) {
	if p.Offset == 0 {
		return make([]byte, 0, TailBytes), true
	}
	dev, ino := fileID(st)
	if p.Offset < 0 || dev != p.Dev || ino != p.Ino || st.Size() < max(p.Offset, p.Size) {
		return nil, false
	}
	tail = make([]byte, min(p.Offset, TailBytes), TailBytes)
	if _, err := f.ReadAt(tail, p.Offset-int64(len(tail))); err != nil {
		return nil, false // cut since the stat: not the file it was
	}
	h := tailHash(tail)
	return tail, string(h[:]) == p.Tail
}

// tailHash is what a Position keeps of the bytes before its offset: a
// hash, not the bytes, which are the agent's words. An array, so that
// comparing one allocates nothing.
func tailHash(tail []byte) (h [16]byte) {
	sum := sha256.Sum256(tail)
	hex.Encode(h[:], sum[:8])
	return h
}

// keepTail returns tail with b appended, cut to its last TailBytes bytes.
// tail's array is reused.
func keepTail(tail, b []byte) []byte {
	if len(b) >= TailBytes {
		return append(tail[:0], b[len(b)-TailBytes:]...)
	}
	if over := len(tail) + len(b) - TailBytes; over > 0 {
		tail = tail[:copy(tail, tail[over:])]
	}
	return append(tail, b...)
}
