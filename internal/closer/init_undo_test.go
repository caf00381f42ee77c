package closer

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestInitPutsBackWhatItWroteWhenAWriteFails: the settings write failing
// after the config was created leaves no config behind, and says so.
// Issue 18: donegate.json was left created and init exited 2 without
// saying so.
func TestInitPutsBackWhatItWroteWhenAWriteFails(t *testing.T) {
	for _, tt := range []struct {
		name   string
		config string // "" for none
		force  bool
	}{
		{"a created config is removed", "", false},
		{"a replaced config is put back", `{"checkers": [{"type": "plan"}]}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"go.mod": "module x\n", ".claude/settings.json": "{}\n"}
			if tt.config != "" {
				files[".claude/donegate.json"] = tt.config
			}
			dir := projectWith(t, files)
			real := replaceFile
			t.Cleanup(func() { replaceFile = real })
			replaceFile = func(root, path string, data []byte, perm os.FileMode) error {
				if filepath.Base(path) == "settings.json" {
					return &os.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}
				}
				return real(root, path, data, perm)
			}
			args := []string{"--dir", dir, "--portable"}
			if tt.force {
				args = append(args, "--force")
			}
			code, _, errOut := initRun(t, t.TempDir(), "", args...)
			assert.Equal(t, ExitUsage, code)
			assert.Contains(t, errOut, "no space left on device; the files written before it were put back as they were")
			if tt.config == "" {
				assert.NoFileExists(t, filepath.Join(dir, ".claude", "donegate.json"))
			} else {
				assert.Equal(t, tt.config, string(mustRead(t, filepath.Join(dir, ".claude", "donegate.json"))))
			}
			assert.Equal(t, "{}\n", string(mustRead(t, filepath.Join(dir, ".claude", "settings.json"))))
		})
	}
}
