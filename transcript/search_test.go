package transcript

import (
	"bytes"
	"testing"
)

func TestLastIndexForward(t *testing.T) {
	for _, tc := range []struct{ b, marker string }{
		{"", `"TodoWrite"`},
		{`"TodoWrite"`, `"TodoWrite"`},
		{`x"TodoWrite"y"TodoWrite"z`, `"TodoWrite"`},
		{`"TodoWrite`, `"TodoWrite"`},
		{"aaaaa", "aaa"}, // overlapping hits: the last one starts at 2
		{"abababa", "aba"},
		{"ab", "b"},
		{"ba", "b"},
	} {
		want := bytes.LastIndex([]byte(tc.b), []byte(tc.marker))
		if got := lastIndexForward([]byte(tc.b), []byte(tc.marker)); got != want {
			t.Errorf("lastIndexForward(%q, %q) = %d, want %d", tc.b, tc.marker, got, want)
		}
	}
}

func TestLastNewline(t *testing.T) {
	long := func(n int, at ...int) []byte {
		b := bytes.Repeat([]byte("x"), n)
		for _, i := range at {
			b[i] = '\n'
		}
		return b
	}
	const w = 4 << 10 // lastNewline's window
	for _, b := range [][]byte{
		nil,
		[]byte("\n"),
		[]byte("a\nb\nc"),
		long(3 * w),
		long(3*w, 0),
		long(3*w, 3*w-1),
		long(3*w, 2*w-1),
		long(3*w, 2*w),
		long(3*w, 2*w+1),
		long(3*w+7, 5, 7), // windows do not start at 0
		long(3*w+7, 6, 2*w+7),
		long(w, w/2, w/2+1),
	} {
		want := bytes.LastIndexByte(b, '\n')
		if got := lastNewline(b); got != want {
			t.Errorf("lastNewline of %d bytes = %d, want %d", len(b), got, want)
		}
	}
}
