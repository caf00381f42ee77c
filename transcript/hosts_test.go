package transcript

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostCase is one case of a host's plan reader: the file at the path it
// is given, and what it must read there.
type hostCase struct {
	name    string
	fixture string   // a file under testdata/ to read
	lines   []string // else these lines (a trailing NUL: no last newline); nil and no fixture: no file
	raw     []byte   // else these bytes
	kind    string   // "dir", "fifo" or "symlink" (to the fixture): the path is one instead
	want    string   // "title=status,..." of the items
	found   bool
	wantErr string
}

// runHostCases runs read on each case's file and checks what it found.
func runHostCases(t *testing.T, name string, cases []hostCase, read func(path string) ([]Item, bool, error)) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, name)
			switch {
			case tc.kind == "dir":
				require.NoError(t, os.Mkdir(path, 0o700))
			case tc.kind == "fifo":
				fifotest.Make(t, path)
			case tc.kind == "symlink":
				abs, err := filepath.Abs(filepath.Join("testdata", tc.fixture))
				require.NoError(t, err)
				linktest.Symlink(t, abs, path)
			case tc.fixture != "":
				data, err := os.ReadFile(filepath.Join("testdata", tc.fixture))
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(path, data, 0o600))
			case tc.raw != nil:
				require.NoError(t, os.WriteFile(path, tc.raw, 0o600))
			case tc.lines != nil:
				text := strings.Join(tc.lines, "\n")
				text, cut := strings.CutSuffix(text, "\x00")
				if !cut && text != "" {
					text += "\n"
				}
				require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
			}
			var (
				items []Item
				found bool
				err   error
			)
			returnsWithin(t, time.Minute, func() { items, found, err = read(path) })
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Contains(t, err.Error(), path)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.found, found)
			assert.Equal(t, tc.want, itemString(items))
		})
	}
}

// itemString is "title=status,..." of items.
func itemString(items []Item) string {
	var got []string
	for _, it := range items {
		got = append(got, it.Title+"="+it.Status)
	}
	return strings.Join(got, ",")
}

// bg is read with a context that never ends, for runHostCases.
func bg(read func(context.Context, string) ([]Item, bool, error)) func(string) ([]Item, bool, error) {
	return func(path string) ([]Item, bool, error) { return read(context.Background(), path) }
}
