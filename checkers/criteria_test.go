package checkers_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
)

// Named apart from a package-wide -update: each golden set is rewritten
// on its own.
var updateCriteria = flag.Bool("update-criteria", false, "rewrite testdata/criteria/*.golden from the configs beside them")

// TestCriteria: the paragraph told up front for each config in
// testdata/criteria (NAME.json), against NAME.golden.
func TestCriteria(t *testing.T) {
	configs, err := filepath.Glob(filepath.Join("testdata", "criteria", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, configs)
	for _, path := range configs {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			c, err := config.Load(path)
			require.NoError(t, err)
			got := checkers.Criteria(c, "")
			golden := strings.TrimSuffix(path, ".json") + ".golden"
			if *updateCriteria {
				require.NoError(t, os.WriteFile(golden, []byte(got+"\n"), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./checkers -run TestCriteria -update-criteria")
			assert.Equal(t, strings.TrimSuffix(string(want), "\n"), got)
			assert.NotContains(t, got, "\n", "one paragraph")
		})
	}
}

// TestCriteriaUsesEachTypesDescribe: the paragraph is made of the types'
// own descriptions, without labels, for the checkers that run at a stop.
func TestCriteriaUsesEachTypesDescribe(t *testing.T) {
	c, err := config.Parse(strings.NewReader(`{"checkers":[
		{"type":"files","name":"report","paths":["r.md"]},
		{"type":"test","name":"unit","command":"go test ./..."},
		{"type":"test","name":"e2e","command":"make e2e","on":["manual"]}]}`), "t.json")
	require.NoError(t, err)
	got := checkers.Criteria(c, "")
	for _, spec := range c.Checkers[:2] {
		typ, ok := checkers.LookupType(spec.Type)
		require.True(t, ok)
		assert.Contains(t, got, typ.Describe(spec))
	}
	assert.NotContains(t, got, "report:", "labels are the config's names, not requirements")
	assert.NotContains(t, got, "make e2e", "a manual-only checker does not run at a stop")
}

// With no config (the embedded default), the agent is told the test
// command the project has, not every command one might have (issue 29);
// where it has none, the description stays general.
func TestCriteriaNamesTheDetectedTestCommand(t *testing.T) {
	c := config.Default()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644))
	got := checkers.Criteria(c, dir)
	assert.Contains(t, got, "`go test ./...` passes (the project's test command, from go.mod)")
	assert.NotContains(t, got, "`npm test`")
	assert.Contains(t, checkers.Criteria(c, t.TempDir()), "`npm test`", "nothing detected: the general description")
}
