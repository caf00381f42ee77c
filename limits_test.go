//go:build !windows

// The end-to-end tests of the Linux binaries (sh, FIFOs, process groups);
// the Windows binaries have their own, under Wine (e2e/windows_test.go).

package donegate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/limit"
)

// TestInterleavedPromptsDoNotTrap: a main-agent Stop of prompt B and a
// SubagentStop of a background subagent started by prompt A alternate in
// one session. Each gate keeps its own count for its own prompt, so neither
// is blocked more than max_blocks times. Until 2026-11-23 every event of
// the other prompt reset all counts and all 20 stops were blocked.
func TestInterleavedPromptsDoNotTrap(t *testing.T) {
	// "on" includes subagent stops, where a files checker does not run by
	// default.
	dir := project(t, `{"checkers":[{"type":"files","paths":["missing"],"on":["stop","subagent_stop"]}],"limits":{"max_blocks":3}}`)
	env := []string{"DONEGATE_STATE_DIR=" + t.TempDir()}
	blocks := map[string]int{}
	for i := 0; i < 20; i++ {
		gate, ev := "main (prompt B)", stopEvent(dir, "s1", "pB")
		if i%2 == 1 {
			gate, ev = "subagent (prompt A)", stopEvent(dir, "s1", "pA")
			ev["hook_event_name"] = "SubagentStop"
			ev["agent_id"] = "bg-agent"
		}
		r := runHook(t, "stop-hook", ev, env)
		require.Equal(t, 0, r.code, "stop %d: %s", i, r.stderr)
		if strings.Contains(r.stdout, `"decision":"block"`) {
			blocks[gate]++
		} else {
			assert.Contains(t, r.stdout, "still incomplete after 3 continuations", "stop %d", i)
		}
	}
	assert.Equal(t, map[string]int{"main (prompt B)": 3, "subagent (prompt A)": 3}, blocks,
		"blocks per gate over 20 alternating stops with max_blocks 3")
}

// TestManySubagentsKeepTheMainCount is issue 18's scenario: with
// max_blocks 3, the main agent is blocked twice, 300 subagents with ids
// of their own stop (each blocked once), then the main agent stops again.
// Until 2026-11-24 the session kept the 256 most recently touched counts,
// the main agent's was dropped, and it was blocked 5 times in all.
func TestManySubagentsKeepTheMainCount(t *testing.T) {
	dir := project(t, `{"checkers":[{"type":"files","paths":["missing"],"on":["stop","subagent_stop"]}],"limits":{"max_blocks":3}}`)
	stateDir := t.TempDir()
	env := []string{"DONEGATE_STATE_DIR=" + stateDir}
	mainBlocks := 0
	mainStop := func(i int) bool {
		r := runHook(t, "stop-hook", stopEvent(dir, "s1", "p1"), env)
		require.Equal(t, 0, r.code, "main stop %d: %s", i, r.stderr)
		return strings.Contains(r.stdout, `"decision":"block"`)
	}
	for i := range 2 {
		require.True(t, mainStop(i), "main stop %d", i)
		mainBlocks++
	}
	const agents = 300
	for i := range agents {
		ev := stopEvent(dir, "s1", "p1")
		ev["hook_event_name"] = "SubagentStop"
		ev["agent_id"] = fmt.Sprintf("agent-%03d", i)
		r := runHook(t, "stop-hook", ev, env)
		require.Equal(t, 0, r.code, "subagent stop %d: %s", i, r.stderr)
		require.Contains(t, r.stdout, `"decision":"block"`, "subagent stop %d", i)
	}
	for i := 2; i < 6; i++ {
		if mainStop(i) {
			mainBlocks++
		}
	}
	assert.Equal(t, 3, mainBlocks, "the main agent's blocks with max_blocks 3")
	assert.Len(t, counters(t, stateDir, "s1"), limit.MaxCounters, "counts kept in the session")
}
