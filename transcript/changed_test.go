package transcript

import (
	"errors"
	"io"
	"testing"
)

// shrinking is a transcript that is cut short after it was measured, as
// when it is truncated or rewritten in place while being read.
type shrinking struct {
	data  []byte
	after int // reads beyond this offset find nothing
}

func (s shrinking) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(s.after) {
		return 0, io.EOF
	}
	n := copy(p, s.data[off:min(int64(len(s.data)), int64(s.after))])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func TestShrinkingTranscriptIsReported(t *testing.T) {
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","name":"TodoWrite","input":{"todos":[]}}]}}` + "\n")
	var data []byte
	for i := 0; i < 100; i++ {
		data = append(data, line...)
	}
	old := blockSize
	blockSize = 64
	defer func() { blockSize = old }()
	r := shrinking{data: data, after: len(data) / 2}
	err := eachMarkedLineBackward(r, int64(len(data)), [][]byte{todoWriteMark}, otherType, func([]byte) bool { return true })
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("got %v, want ErrChanged", err)
	}
	err = eachLineBackward(r, int64(len(data)), func([]byte) bool { return true })
	if !errors.Is(err, ErrChanged) {
		t.Fatalf("eachLineBackward: got %v, want ErrChanged", err)
	}
}
