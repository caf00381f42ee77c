package proc

import (
	"context"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunNeedsADir(t *testing.T) {
	_, err := Run(context.Background(), Command{Shell: "true"})
	require.ErrorContains(t, err, "no working directory")
	_, err = Run(context.Background(), Command{Shell: "true", Dir: filepath.Join(t.TempDir(), "missing")})
	require.ErrorContains(t, err, "missing")
}

// missingProgram is the error a relative program that does not exist
// gives: the path's, where exec runs it as it is; not found on Windows,
// where it is looked up with the extensions of %PATHEXT%.
var missingProgram = map[bool]error{false: fs.ErrNotExist, true: exec.ErrNotFound}[runtime.GOOS == "windows"]

func TestRunRefusesBadCommands(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		cmd  Command
		want string
		is   error
	}{
		{name: "both forms", cmd: Command{Shell: "true", Args: []string{"true"}}, want: "both a shell command and arguments"},
		{name: "empty arguments", cmd: Command{Args: []string{}}, want: "no program"},
		{name: "empty program", cmd: Command{Args: []string{""}}, want: "no program"},
		{name: "program not in PATH", cmd: Command{Args: []string{"no-such-program-donegate"}}, want: "no-such-program-donegate", is: exec.ErrNotFound},
		{name: "missing relative program", cmd: Command{Args: []string{"./missing"}}, want: "missing", is: missingProgram},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cmd.Dir = dir
			_, err := Run(context.Background(), tt.cmd)
			require.ErrorContains(t, err, tt.want)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
		})
	}
}

// TestTailKeepsTheLastBytes: whatever the writes' sizes, the tail is the
// last max bytes written (less a cut first line), cut once more was.
func TestTailKeepsTheLastBytes(t *testing.T) {
	line := func(i int) string { return fmt.Sprintf("line %05d\n", i) } // 11 bytes
	for _, tt := range []struct {
		name   string
		writes []string
		want   string
		cut    bool
	}{
		{"under the bound", []string{line(1), line(2)}, line(1) + line(2), false},
		{"exactly the bound", []string{line(1), line(2), line(3), line(4)}, line(1) + line(2) + line(3) + line(4), false},
		{"one write past it", []string{line(1), line(2), line(3), line(4), line(5)}, line(3) + line(4) + line(5), true},
		{"one write larger than the bound", []string{line(1) + line(2) + line(3) + line(4) + line(5)}, line(3) + line(4) + line(5), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tl := &tail{max: 44}
			for _, w := range tt.writes {
				n, err := tl.Write([]byte(w))
				require.NoError(t, err)
				require.Equal(t, len(w), n)
			}
			got, cut := tl.bytes()
			assert.Equal(t, tt.want, string(got))
			assert.Equal(t, tt.cut, cut)
		})
	}
	// Many small writes, well past twice the bound.
	tl := &tail{max: 110}
	var all strings.Builder
	for i := 0; i < 1000; i++ {
		tl.Write([]byte(line(i)))
		all.WriteString(line(i))
	}
	got, cut := tl.bytes()
	assert.True(t, cut)
	kept := all.String()[all.Len()-110:]
	assert.Equal(t, kept[strings.IndexByte(kept, '\n')+1:], string(got), "the last 110 bytes, less the cut first line")
}

// BenchmarkTailSmallWrites: a command that writes 64 MiB, 64 bytes at a
// time, into a runner's 4 MiB tail (maxRanOutputBytes in checkers).
func BenchmarkTailSmallWrites(b *testing.B) {
	chunk := []byte(strings.Repeat("x", 63) + "\n")
	b.SetBytes(64 << 20)
	for i := 0; i < b.N; i++ {
		tl := &tail{max: 4 << 20}
		for j := 0; j < (64<<20)/len(chunk); j++ {
			tl.Write(chunk)
		}
	}
}
