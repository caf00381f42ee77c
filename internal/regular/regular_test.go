package regular_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/regular"
	"github.com/donegate/donegate/internal/testsupport/fifotest"
	"github.com/donegate/donegate/internal/testsupport/linktest"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("data"), 0o644))
	fifo := filepath.Join(dir, "fifo")
	fifotest.Make(t, fifo)
	link := filepath.Join(dir, "link")
	linktest.Symlink(t, file, link)

	tests := []struct {
		name    string
		path    string
		wantErr string // "" for success
	}{
		{"regular file", file, ""},
		{"symlink to a regular file", link, ""},
		{"FIFO, never blocks", fifo, "not a regular file (a FIFO)"},
		{"directory", dir, "not a regular file (a directory)"},
		{"character device", "/dev/null", "not a regular file (a character device)"},
		{"missing", filepath.Join(dir, "missing"), "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			done := make(chan struct{})
			var err error
			go func() {
				var f *os.File
				f, err = regular.Open(tt.path)
				if f != nil {
					f.Close()
				}
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(time.Minute): // a blocked open never ends
				t.Fatal("Open blocked")
			}
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), tt.path)
		})
	}
}

func TestOpenFileNoFollow(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o644))
	link := filepath.Join(dir, "link")
	linktest.Symlink(t, target, link)
	_, err := regular.OpenFile(link, os.O_RDWR|os.O_CREATE|regular.NoFollow, 0o600)
	require.Error(t, err, "a symlink must not be followed")
	data, _ := os.ReadFile(target)
	assert.Equal(t, "keep", string(data))
}
