package closer

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/gate"
)

// initsRegistrations are the registrations of the entries init writes
// for s, as doctor reads them from its files.
func initsRegistrations(s hostSetup) []registration {
	var regs []registration
	for _, e := range s.regs {
		reg := registration{source: "the hook file", event: e.event, matcher: e.matcher, command: regCommand(e.program, e.flags),
			hook: e.program, program: e.program, timeout: time.Duration(s.timeout) * s.unit, timeoutSet: true, async: e.background()}
		if e.flags != "" {
			reg.flags = []string{e.flags}
		}
		regs = append(regs, reg)
	}
	return regs
}

// TestOneJudgeForEveryHost holds every host's registrations to the same
// rules, from its entries alone: what init writes passes; a short
// timeout, an entry at an event it does not answer, a missing stop-hook,
// a missing guard and a second copy are each found, in the host's area.
func TestOneJudgeForEveryHost(t *testing.T) {
	r := &runCtx{dir: t.TempDir(), env: testEnv(map[string]string{"HOME": t.TempDir()}, false)}
	judge := func(s hostSetup, regs []registration) DoctorReport {
		rep := DoctorReport{OK: true}
		r.judgeRegistrations(&rep, s, regs, nil)
		return rep
	}
	problems := func(rep DoctorReport, area string) []string {
		var out []string
		for _, f := range rep.Findings {
			if f.Area == area && f.Status != statusOK {
				out = append(out, f.Status+" "+f.Message)
			}
		}
		return out
	}
	has := func(t *testing.T, rep DoctorReport, area, status, substr string) {
		t.Helper()
		assert.True(t, slices.ContainsFunc(rep.Findings, func(f Finding) bool {
			return f.Area == area && f.Status == status && strings.Contains(f.Message, substr)
		}), "want a %s finding in %s with %q; got %q", status, area, substr, problems(rep, area))
	}
	for _, s := range hostSetups {
		if s.plugin {
			continue // no hook file: the host's own doctor reads its plugin
		}
		t.Run(string(s.host), func(t *testing.T) {
			area, stop := s.area(), s.roleEvent(hookio.RoleStop)
			assert.NotEmpty(t, stop)
			regs := initsRegistrations(s)
			assert.Empty(t, problems(judge(s, regs), area), "what init writes")

			short := slices.Clone(regs)
			short[0].timeout = time.Second
			has(t, judge(s, short), area, statusFail, "is not above limits.budget")

			elsewhere := slices.Clone(regs)
			elsewhere = append(elsewhere, registration{source: "the hook file", event: "NoSuchEvent", command: "stop-hook", hook: "stop-hook", program: "stop-hook", timeout: time.Hour})
			has(t, judge(s, elsewhere), area, statusFail, "stop-hook at NoSuchEvent in the hook file: the hook does not answer that event")

			noStop := slices.DeleteFunc(slices.Clone(regs), func(reg registration) bool { return reg.event == stop && reg.hook == hookio.StopHookProgram })
			has(t, judge(s, noStop), area, statusFail, "stop-hook is not registered at "+stop)

			if guard := s.guardEvent(); guard != "" {
				noGuard := slices.DeleteFunc(slices.Clone(regs), func(reg registration) bool { return reg.event == guard && reg.hook == hookio.ToolHookProgram })
				has(t, judge(s, noGuard), area, statusWarn, "posttooluse-hook is not registered at "+guard)
			}

			twice := append(slices.Clone(regs), regs[0])
			twice[len(twice)-1].source, twice[len(twice)-1].command = "another file", "/usr/local/bin/stop-hook"
			has(t, judge(s, twice), area, statusWarn, "is registered 2 times (the hook file; another file)")

			has(t, judge(s, nil), area, map[bool]string{true: statusUnknown, false: statusWarn}[s.unregistered != nil], "")
		})
	}
}

// TestEveryEntryIsFollowed: every entry of hookio's table a host
// registers is answered by the hook it names (gate.HookFor and
// CriteriaEvent, which closer explain's gate.Evaluate asks too), written
// by closer init into the host's own file under the host's names, found
// there by doctor and judged sound: one row of the table, and every
// consumer follows it.
func TestEveryEntryIsFollowed(t *testing.T) {
	for _, s := range hostSetups {
		if s.plugin {
			continue // its plugin runs the hooks itself (the host's own tests)
		}
		t.Run(string(s.host), func(t *testing.T) {
			dir, home := projectWith(t, map[string]string{"go.mod": "module x\n"}), t.TempDir()
			code, _, errOut := initRun(t, home, "", "--dir", dir, "--host", string(s.host))
			require.Equal(t, ExitComplete, code, errOut)
			r := &runCtx{dir: dir, env: testEnv(map[string]string{"HOME": home}, false)}
			var read DoctorReport
			regs := r.hostRegistrations(s, &read)
			if s.registrationsOf != nil {
				regs = s.registrationsOf(r, &read)
			}
			require.Empty(t, read.Findings, "reading what init wrote")
			for _, e := range s.host.Entries() {
				if !e.Background() {
					assert.Equal(t, e.Program, gate.HookFor(e.Entry.Event), "%s answers %s", e.Program, e.Entry.Event)
					assert.Equal(t, e.Flag == hookio.CriteriaFlag, gate.CriteriaEvent(e.Entry.Event), e.Entry.Event)
				}
				var tools []string
				if e.Matcher != "" {
					tools = strings.Split(e.Matcher, "|")
				}
				assert.True(t, slices.ContainsFunc(regs, func(reg registration) bool {
					return reg.event == e.Event && reg.hook == e.Program && regFlag(reg) == e.Flag && matchesEvery(reg.matcher, tools)
				}), "init writes %s at %s (matcher %q), and doctor finds it", e.Command(), e.Event, e.Matcher)
			}
			judged := DoctorReport{OK: true}
			r.judgeRegistrations(&judged, s, regs, nil)
			for _, f := range judged.Findings {
				if f.Area == s.area() {
					assert.Equal(t, statusOK, f.Status, f.Message)
				}
			}
		})
	}
}
