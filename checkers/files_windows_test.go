package checkers_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
)

// TestFilesGlobInAnyCaseWindows: on Windows a pattern matches names in any
// case, as Windows itself does (dir dist\*.HTML lists dist\Index.html).
func TestFilesGlobInAnyCaseWindows(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "dist/Index.html", "x")
	for _, tt := range []struct {
		pattern  string
		complete bool
	}{
		{"dist/*.HTML", true},
		{"DIST/index.*", true},
		{"Dist/[i]ndex.html", true},
		{"dist/*.pdf", false},
		{"dist/[", false},
	} {
		t.Run(tt.pattern, func(t *testing.T) {
			ch := typedChecker(t, "files", &checkers.FilesOptions{Paths: []string{tt.pattern}})
			r, err := ch.Check(context.Background(), &checkers.Context{ProjectDir: dir})
			if tt.pattern == "dist/[" {
				require.Error(t, err, "a pattern filepath.Match cannot read")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.complete, r.Complete, r.Feedback)
		})
	}
}
