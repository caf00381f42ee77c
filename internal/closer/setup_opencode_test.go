package closer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/plugin"
)

// TestInitWritesTheOpenCodePlugin: init --host opencode writes donegate's
// OpenCode plugin where OpenCode loads it and the host-neutral config; a
// second run changes nothing; --absolute names this machine's stop-hook
// in it; --user writes the user's copy.
func TestInitWritesTheOpenCodePlugin(t *testing.T) {
	dir := projectWith(t, map[string]string{"go.mod": "module x\n"})
	home := t.TempDir()
	code, out, errOut := initRun(t, home, "", "--dir", dir, "--host", "opencode")
	require.Equal(t, ExitComplete, code, errOut)
	assert.Equal(t, string(plugin.OpenCode), string(mustRead(t, filepath.Join(dir, ".opencode", "plugin", "donegate.js"))))
	parseWritten(t, mustRead(t, filepath.Join(dir, ".donegate.json")))
	assert.NoDirExists(t, filepath.Join(dir, ".claude"))
	assert.Contains(t, out, "Hosts: OpenCode.")
	assert.Contains(t, out, "Created .opencode/plugin/donegate.js.")
	assert.Contains(t, out, "Hooks: stop-hook as `stop-hook`.")
	assert.Contains(t, out, "under `opencode run` the checks run while OpenCode waits")

	before := snapshot(t, dir)
	code, out, errOut = initRun(t, home, "", "--dir", dir, "--host", "opencode")
	require.Equal(t, ExitComplete, code, errOut)
	assert.Equal(t, before, snapshot(t, dir), "a second run changes nothing")
	assert.Contains(t, out, "donegate's OpenCode plugin is there already")

	bins := hookBins(t, t.TempDir())
	code, _, errOut = initRun(t, home, bins, "--dir", dir, "--host", "opencode", "--absolute")
	require.Equal(t, ExitComplete, code, errOut)
	quoted, _ := json.Marshal(fakeExe(filepath.Join(bins, "stop-hook")))
	written := string(mustRead(t, filepath.Join(dir, ".opencode", "plugin", "donegate.js")))
	assert.Contains(t, written, `const STOP_HOOK = process.env.DONEGATE_STOP_HOOK || `+string(quoted))
	assert.NotContains(t, written, `|| "stop-hook"`)

	other := projectWith(t, map[string]string{"go.mod": "module x\n"})
	code, _, errOut = initRun(t, home, "", "--dir", other, "--host", "opencode", "--user")
	require.Equal(t, ExitComplete, code, errOut)
	assert.FileExists(t, filepath.Join(home, ".config", "opencode", "plugin", "donegate.js"))
	assert.NoFileExists(t, filepath.Join(other, ".opencode", "plugin", "donegate.js"))
}

// TestInitLeavesAnotherOpenCodePluginAlone: a donegate.js that is not
// donegate's plugin is never overwritten, and nothing else is written.
func TestInitLeavesAnotherOpenCodePluginAlone(t *testing.T) {
	const theirs = "export const Mine = async () => ({})\n"
	dir := projectWith(t, map[string]string{"go.mod": "module x\n", ".opencode/plugin/donegate.js": theirs})
	before := snapshot(t, dir)
	code, _, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--host", "opencode")
	assert.Equal(t, ExitUsage, code)
	assert.Contains(t, errOut, ".opencode/plugin/donegate.js is not donegate's OpenCode plugin: it is left as it is")
	assert.Equal(t, before, snapshot(t, dir))
}

// TestInitUpdatesTheOpenCodePluginWhereItIs: an older copy in
// .opencode/plugins/ is updated there, not joined by a second one in
// plugin/ (OpenCode would load both and hold the agent twice).
func TestInitUpdatesTheOpenCodePluginWhereItIs(t *testing.T) {
	old := strings.Replace(string(plugin.OpenCode), "HOOK_TIMEOUT_MS = 600_000", "HOOK_TIMEOUT_MS = 500_000", 1)
	dir := projectWith(t, map[string]string{"go.mod": "module x\n", ".opencode/plugins/donegate.js": old})
	code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir, "--host", "opencode")
	require.Equal(t, ExitComplete, code, errOut)
	assert.Equal(t, string(plugin.OpenCode), string(mustRead(t, filepath.Join(dir, ".opencode", "plugins", "donegate.js"))))
	assert.NoFileExists(t, filepath.Join(dir, ".opencode", "plugin", "donegate.js"))
	assert.Contains(t, out, "Updated .opencode/plugins/donegate.js")
}

// TestDoctorOpenCode: doctor says where OpenCode loads donegate's plugin
// from, and fails a project that uses OpenCode without it, or loads it
// twice.
func TestDoctorOpenCode(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string // under the project; "~/" under HOME
		status int
		want   []string
	}{
		{"no plugin", map[string]string{".opencode/opencode.json": "{}"}, ExitIncomplete,
			[]string{"✗ opencode: OpenCode is used here (.opencode/) but loads no donegate plugin"}},
		{"the plugin", map[string]string{".opencode/plugin/donegate.js": string(plugin.OpenCode)}, ExitComplete,
			[]string{"✓ opencode: OpenCode loads donegate's plugin from .opencode/plugin/donegate.js (this closer's version)"}},
		{"twice", map[string]string{".opencode/plugin/donegate.js": string(plugin.OpenCode), "~/.config/opencode/plugins/donegate.js": string(plugin.OpenCode)}, ExitIncomplete,
			[]string{"✗ opencode: OpenCode loads donegate's plugin 2 times"}},
		{"another version", map[string]string{".opencode/plugin/donegate.js": strings.Replace(string(plugin.OpenCode), "600_000", "500_000", 1)}, ExitComplete,
			[]string{"! opencode: .opencode/plugin/donegate.js is another version of donegate's OpenCode plugin"}},
		{"not ours", map[string]string{".opencode/plugin/donegate.js": "export const X = 1\n"}, ExitComplete,
			[]string{"! opencode: .opencode/plugin/donegate.js is not donegate's OpenCode plugin"}},
		// The Kilo CLI loads the same plugin from its own dirs, never
		// from .opencode/.
		{"kilo, no plugin", map[string]string{".kilo/kilo.json": "{}", ".opencode/plugin/donegate.js": string(plugin.OpenCode)}, ExitIncomplete,
			[]string{"✗ kilo: Kilo CLI is used here (.kilo/) but loads no donegate plugin (.kilo/plugin/donegate.js, or ~/.config/kilo/plugin/donegate.js)"}},
		{"kilo, the plugin", map[string]string{".kilo/plugin/donegate.js": string(plugin.OpenCode)}, ExitComplete,
			[]string{"✓ kilo: Kilo CLI loads donegate's plugin from .kilo/plugin/donegate.js (this closer's version)"}},
		{"kilo, twice", map[string]string{".kilo/plugin/donegate.js": string(plugin.OpenCode), ".kilocode/plugins/donegate.js": string(plugin.OpenCode)}, ExitIncomplete,
			[]string{"✗ kilo: Kilo CLI loads donegate's plugin 2 times"}},
		// pi loads donegate's extension for pi, from .pi/extensions/.
		{"pi, no extension", map[string]string{".pi/settings.json": "{}", ".opencode/plugin/donegate.js": string(plugin.OpenCode)}, ExitIncomplete,
			[]string{"✗ pi: pi is used here (.pi/) but loads no donegate extension for pi (.pi/extensions/donegate.js, or ~/.pi/agent/extensions/donegate.js)"}},
		{"pi, the extension", map[string]string{".pi/extensions/donegate.js": string(plugin.Pi)}, ExitComplete,
			[]string{"✓ pi: pi loads donegate's extension for pi from .pi/extensions/donegate.js (this closer's version)"}},
		{"pi, the OpenCode plugin in its place", map[string]string{".pi/extensions/donegate.js": string(plugin.OpenCode)}, ExitComplete,
			[]string{"! pi: .pi/extensions/donegate.js is not donegate's extension for pi, though pi loads it by that name"}},
		{"pi, the user's", map[string]string{".pi/settings.json": "{}", "~/.pi/agent/extensions/donegate.js": string(plugin.Pi)}, ExitComplete,
			[]string{"✓ pi: pi loads donegate's extension for pi from ", "/home/.pi/agent/extensions/donegate.js (this closer's version)"}},
		{"kilo, the user's", map[string]string{".kilo/kilo.json": "{}", "~/.config/kilo/plugin/donegate.js": string(plugin.OpenCode)}, ExitComplete,
			[]string{"✓ kilo: Kilo CLI loads donegate's plugin from ", "/home/.config/kilo/plugin/donegate.js (this closer's version)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newDoctorSetup(t)
			require.NoError(t, os.RemoveAll(filepath.Join(s.proj, ".claude")))
			for name, content := range tt.files {
				path := filepath.Join(s.proj, name)
				if rest, ok := strings.CutPrefix(name, "~/"); ok {
					path = filepath.Join(s.home, rest)
				}
				s.write(t, path, content)
			}
			code, out, _ := s.run(t)
			assert.Equal(t, tt.status, code, out)
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
			assert.NotContains(t, out, "claude:", "an OpenCode or Kilo project is no Claude Code one")
		})
	}
}

// TestInitDetectsOpenCode: a project with .opencode/ and no --host is set
// up for OpenCode, and says why.
func TestInitDetectsOpenCode(t *testing.T) {
	dir := projectWith(t, map[string]string{"go.mod": "module x\n", ".opencode/opencode.json": "{}\n"})
	code, out, errOut := initRun(t, t.TempDir(), "", "--dir", dir)
	require.Equal(t, ExitComplete, code, errOut)
	assert.Contains(t, out, "Hosts: OpenCode (detected: the project has .opencode/; --host chooses).")
	assert.FileExists(t, filepath.Join(dir, ".opencode", "plugin", "donegate.js"))
	assert.NoDirExists(t, filepath.Join(dir, ".claude"))
}
