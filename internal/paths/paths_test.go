package paths_test

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/internal/paths"
)

func env(m map[string]string) paths.Getenv { return func(k string) string { return m[k] } }

func TestResolve(t *testing.T) {
	home := env(map[string]string{"HOME": "/h"})
	assert.Equal(t, "/h", paths.Home(home))
	assert.Equal(t, "/h", paths.Expand(home, "~"))
	assert.Equal(t, filepath.FromSlash("/h/x/y"), paths.Expand(home, "~/x/y"))
	assert.Equal(t, "~x/y", paths.Expand(home, "~x/y"), "another user's home is not expanded")
	assert.Equal(t, "/abs", paths.Expand(home, "/abs"))

	assert.Equal(t, filepath.FromSlash("/cfg"), paths.ClaudeDir(home, "/cfg/projects/-p/s.jsonl"))
	assert.Equal(t, filepath.FromSlash("/h/.claude"), paths.ClaudeDir(home, "/elsewhere/s.jsonl"))
	assert.Equal(t, filepath.FromSlash("/h/.claude"), paths.ClaudeDir(home, ""))
	assert.Equal(t, "/c", paths.ClaudeDir(env(map[string]string{"HOME": "/h", "CLAUDE_CONFIG_DIR": "/c"}), ""))

	assert.Equal(t, "", paths.ProjectDir(home))
	assert.Equal(t, "/g", paths.ProjectDir(env(map[string]string{"GEMINI_PROJECT_DIR": "/g"})))
	assert.Equal(t, "/c", paths.ProjectDir(env(map[string]string{"GEMINI_PROJECT_DIR": "/g", "CLAUDE_PROJECT_DIR": "/c"})))

	assert.Equal(t, filepath.FromSlash("/h/.local/state/donegate"), paths.StateDir(home))
	assert.Equal(t, filepath.FromSlash("/x/donegate"), paths.StateDir(env(map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/x"})))
	assert.Equal(t, "/d", paths.StateDir(env(map[string]string{"HOME": "/h", "XDG_STATE_HOME": "/x", "DONEGATE_STATE_DIR": "/d"})))
	local := env(map[string]string{"HOME": "/h", "LOCALAPPDATA": `C:\Users\u\AppData\Local`})
	if runtime.GOOS == "windows" {
		assert.Equal(t, `C:\Users\u\AppData\Local\donegate`, paths.StateDir(local), "the user's own, not roamed")
	} else {
		assert.Equal(t, "/h/.local/state/donegate", paths.StateDir(local), "LOCALAPPDATA is Windows'")
	}
}
