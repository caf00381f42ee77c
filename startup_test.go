//go:build !windows

// The end-to-end tests of the Linux binaries (sh, FIFOs, process groups);
// the Windows binaries have their own, under Wine (e2e/windows_test.go).

package donegate_test

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heavyAtStartup are packages whose initialisation costs a hook process
// milliseconds (tables, regexps, or what they link in): a hook must not
// link them. validator/v10 alone was 4.5 ms a call (see config/validate.go).
var heavyAtStartup = []string{
	"github.com/go-playground/validator",
	"github.com/gabriel-vasile/mimetype",
	"golang.org/x/net/html",
	"golang.org/x/text",
	"encoding/xml",
	"net", // the resolver and its config, and net/url, net/netip
	"net/http",
	// Not regexp: the command checker's success_when "matches:REGEX" needs
	// it linked, and its own initialisers are cheap (regexp/syntax 2,344
	// bytes in 6 allocations, regexp none; 0.03-0.1 ms of clock on the CI
	// machine kind, 2026-11-23). What made regexps costly at start-up was
	// packages compiling them in package-level vars, and those allocations
	// count in maxInitBytes below; donegate compiles a pattern only when a
	// checker that has one is built.
	// Not text/template: the retry templates run on it. Linking it makes
	// the binary larger (its executor looks methods up by name, so the
	// linker keeps every exported method), but measured paired against a
	// hook without it that cost 0.08-0.14 ms of start-up (medians of
	// 1,500 interleaved rounds, three times; issue 18), less than two
	// benchmark runs of one binary differ by. On a machine at load 16
	// (2 cores, 2026-11-24) stop-hook with and without it, 1,000 paired
	// rounds twice: +0.30 ms median (the same binary against itself:
	// 0.03 ms); the binary is 0.93 MB larger (7.22 MB).
}

// linkedThrough are packages under a heavy prefix that a hook may link:
// text/template links net/url (for urlquery), which links net/netip;
// their initialisers allocate 728 bytes in 18 allocations (0.04 ms of
// clock, 2026-11-24). What is costly under "net" is the resolver of net
// itself, which they do not link.
var linkedThrough = []string{"net/url", "net/netip"}

// maxInitBytes bounds what all package initialisers of a hook allocate
// together (about 39 KB on 2026-11-23, 33 KB before issue 13's six
// checker types; the checker registry 12 KB of it, unicode's tables 11 KB;
// validator's alone was 291 KB). Allocation counts, unlike times, do not
// depend on the machine.
const maxInitBytes = 64 << 10

var initLine = regexp.MustCompile(`^init (\S+) @.* (\d+) bytes, (\d+) allocs$`)

// TestStartupDoesNoNeedlessWork runs each hook with GODEBUG=inittrace=1 on
// an event it has nothing to do for and checks what ran before main.
func TestStartupDoesNoNeedlessWork(t *testing.T) {
	dir := t.TempDir() // no config: the embedded default
	for _, tt := range []struct {
		name, hook string
		args       []string
		event      map[string]any
	}{
		{"posttooluse-hook", "posttooluse-hook", nil, map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}}},
		{"stop-hook", "stop-hook", nil, stopEvent(dir, "s", "p")},
		{"stop-hook --criteria", "stop-hook", []string{"--criteria"}, map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "SessionStart", "source": "startup"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := runHook(t, tt.hook, tt.event, []string{"GODEBUG=inittrace=1", "DONEGATE_STATE_DIR=" + t.TempDir()}, tt.args...)
			require.Equal(t, 0, r.code, r.stderr)
			total, inits := 0, 0
			for _, line := range strings.Split(r.stderr, "\n") {
				m := initLine.FindStringSubmatch(line)
				if m == nil {
					continue
				}
				inits++
				for _, heavy := range heavyAtStartup {
					if slices.Contains(linkedThrough, m[1]) {
						break
					}
					assert.False(t, m[1] == heavy || strings.HasPrefix(m[1], heavy+"/"), "%s initialises %s", tt.hook, m[1])
				}
				n, err := strconv.Atoi(m[2])
				require.NoError(t, err)
				total += n
			}
			require.NotZero(t, inits, "no inittrace output; stderr:\n%s", r.stderr)
			assert.LessOrEqual(t, total, maxInitBytes, "package initialisers allocate %d bytes:\n%s", total, r.stderr)
		})
	}
}
