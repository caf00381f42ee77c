package proc

import (
	"context"
	"io/fs"
	"os/exec"
	"path/filepath"
	"runtime"
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
