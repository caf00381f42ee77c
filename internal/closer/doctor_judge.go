package closer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// judgeRegistrations is doctor's one judge of the registrations found in
// the files s's host reads, against the entries init writes for it
// (s.regs, from hookio.Entries under the host's names). Each
// registration must be one of those entries (its event, program and
// flag), reach the entry's tools with its matcher where the host's
// entries have matchers, and have a timeout above the budget of the
// config it runs with; then stop-hook must be registered at the host's
// end of a turn, the guard before every guarded tool, and nothing twice.
// What one host checks beyond that is its own step (s.judgeEntry,
// s.judgeAll).
func (r *runCtx) judgeRegistrations(rep *DoctorReport, s hostSetup, regs []registration, cfg *config.Config) {
	area := s.area()
	stopEvent := s.roleEvent(hookio.RoleStop)
	served := map[hookio.Role]int{}
	stop := 0
	runs := map[string][]string{}    // hook at event → distinct commands
	sources := map[string][]string{} // hook at event → the sources registering it
	var keys []string
	loaded := map[string]*config.Config{}
	for _, reg := range regs {
		c := r.regConfig(rep, reg, cfg, loaded)
		roles := r.judgeOne(rep, s, reg, c, cfg)
		name := regCommand(reg.hook, regFlag(reg))
		for _, role := range roles {
			served[role]++
		}
		if slices.Contains(roles, hookio.RoleStop) {
			stop++
		}
		k := name + " at " + reg.event
		if slices.Contains(roles, hookio.RoleAgentRuns) && !slices.Contains(roles, hookio.RoleGatePost) {
			k += " (" + s.host.ShellTool() + ")"
		}
		if _, seen := runs[k]; !seen {
			keys = append(keys, k)
		}
		sources[k] = append(sources[k], reg.source)
		if !slices.Contains(runs[k], reg.dedupKey()) {
			runs[k] = append(runs[k], reg.dedupKey())
		}
	}
	if s.judgeAll != nil {
		s.judgeAll(r, rep, regs, cfg, served)
	}
	fix := s.setupFix()
	switch {
	case len(regs) == 0 && s.unregistered != nil:
		s.unregistered(r, rep)
	case len(regs) == 0:
		// The project has the host's dir, maybe for settings of its own:
		// whether donegate should hold that host's agents is the team's
		// call, so not a problem.
		rep.add(area, statusWarn, fix, "the project has %s, but no file %s reads registers donegate (%s): donegate does not hold %s's agents here",
			s.markerDir(), s.title(), r.hostFileList(s), s.title())
	case stop == 0:
		rep.add(area, statusFail, fix, "stop-hook is not registered at %s in %s: donegate does not hold the agent there", stopEvent, r.registeredIn(s))
	}
	// Each guarded tool in one entry or another (an install from before
	// a tool was guarded has init add an entry for the new one).
	guarded := func(event, tool string) bool {
		return slices.ContainsFunc(regs, func(reg registration) bool {
			return reg.hook == hookio.ToolHookProgram && reg.event == event && matchesEvery(reg.matcher, []string{tool})
		})
	}
	if tools, event := s.host.GuardedTools(), s.guardEvent(); event != "" && stop > 0 && !allOf(tools, func(tool string) bool { return guarded(event, tool) }) {
		rep.add(area, statusWarn, "register posttooluse-hook at "+event+" with the matcher \""+strings.Join(tools, "|")+"\" (closer init --host "+string(s.host)+" does)",
			"posttooluse-hook is not registered at %s of %s: the agent's calls that would loosen its own gate (closer release, donegate's state dir, %s's settings) are not refused before they run", event, andList(tools), s.title())
	}
	reportClashes(rep, area, keys, runs, sources)
}

// judgeOne judges one registration, which runs with the config c (found:
// the one doctor found), and returns the roles of s's entries it serves.
func (r *runCtx) judgeOne(rep *DoctorReport, s hostSetup, reg registration, c, found *config.Config) []hookio.Role {
	area := s.area()
	budget, gateTools := config.DefaultBudget, config.DefaultGateTools
	if c != nil {
		budget, gateTools = c.Limits.Budget.D(), c.GateTools
	}
	flag := regFlag(reg)
	name := regCommand(reg.hook, flag)
	where := name + " at " + reg.event
	if reg.matcher != "" {
		where += " (matcher " + strconv.Quote(reg.matcher) + ")"
	}
	where += " in " + reg.source

	candidates := s.entriesAt(reg.event, reg.hook, flag)
	var roles []hookio.Role // the entries the registration serves
	for _, e := range candidates {
		if tools := e.tools(gateTools); tools == nil || matchesAny(reg.matcher, tools) {
			roles = append(roles, e.role)
		}
	}
	bad := true
	switch {
	case len(candidates) == 0:
		s.judgeUnknown(rep, reg, where, flag)
	case reg.async && !candidates[0].background() && s.readsAsync():
		rep.add(area, statusFail, `remove "async": true from the entry`,
			"%s: %s runs it in the background and ignores its answer, so it holds nothing", where, s.title())
	case !reg.async && candidates[0].background():
		rep.add(area, statusWarn, `add "async": true to the entry`,
			"%s: it runs in the foreground, so each edit waits for the checks it starts", where)
	case len(roles) == 0:
		e := candidates[0]
		tools := e.tools(gateTools)
		rep.add(area, statusWarn, `set "matcher": "`+strings.Join(tools, "|")+`"`,
			"%s: the matcher matches none of %s (%s), so %s", where, roleWords[e.role].tools, strings.Join(tools, ", "), roleWords[e.role].nothing)
	default:
		bad = false
	}
	// stop-hook --criteria only reads the config, and stop-hook
	// --start runs in the background: no budget to outlast.
	switch {
	case flag != "":
	case reg.timeout == 0:
		field, unit, n := timeoutUnit(s, budget)
		rep.add(area, statusWarn, fmt.Sprintf(`set the entry's %s above %d (%s: limits.budget)`, field, n, unit),
			"%s: no timeout: %s's default applies, which its docs do not give; if it is below limits.budget (%s) the hook is killed first and the agent stops", where, s.title(), budget)
		bad = true
	case reg.timeout <= budget:
		field, unit, n := timeoutUnit(s, budget)
		rep.add(area, statusFail, fmt.Sprintf(`raise the entry's %s above %d (%s), or lower limits.budget below %s`, field, n, unit, reg.timeout),
			"%s: its timeout (%s) is not above limits.budget (%s): %s kills the hook before donegate decides, and the agent stops", where, reg.timeout, budget, s.title())
		bad = true
	}
	if s.judgeEntry != nil && s.judgeEntry(r, rep, reg, where, c, found) {
		bad = true
	}
	if !bad {
		rep.add(area, statusOK, "", "%s%s", where, servesNote(roles))
	}
	return roles
}

// reportClashes reports each hook-at-event (keys, in order) registered
// by more than one distinct command (runs), one line per set of sources:
// the plugin and a copy of settings.example.json clash at every entry at
// once.
func reportClashes(rep *DoctorReport, area string, keys []string, runs, sources map[string][]string) {
	var groups []string
	clash := map[string][]string{} // sources → hook-at-events
	for _, k := range keys {
		if len(runs[k]) > 1 {
			g := strings.Join(sources[k], "; ")
			if _, seen := clash[g]; !seen {
				groups = append(groups, g)
			}
			clash[g] = append(clash[g], k)
		}
	}
	for _, g := range groups {
		n := len(runs[clash[g][0]])
		verb := "is"
		if len(clash[g]) > 1 {
			verb = "are"
		}
		rep.add(area, statusWarn, "keep one registration",
			"%s %s registered %d times (%s): donegate runs once for each, and each run counts its own block, so limits.max_blocks is spent %d times as fast",
			andList(clash[g]), verb, n, g, n)
	}
}

// regFlag is the flag of hookio's entries a registration runs its hook
// with: --criteria or --start, "" for neither.
func regFlag(reg registration) string {
	if reg.hook != hookio.StopHookProgram {
		return ""
	}
	for _, f := range []string{criteriaFlag, startFlag} {
		if slices.Contains(reg.flags, f) {
			return f
		}
	}
	return ""
}

// entriesAt are s's entries of program with flag at event.
func (s hostSetup) entriesAt(event, program, flag string) []hookReg {
	var out []hookReg
	for _, e := range s.regs {
		if e.event == event && e.program == program && e.flags == flag {
			out = append(out, e)
		}
	}
	return out
}

// tools are the tools the matcher of e must reach (gateTools for the
// gate's entries), nil where its host's entries have no matcher or e
// matches no tool.
func (e hookReg) tools(gateTools []string) []string {
	switch {
	case e.matcher == "":
		return nil
	case e.role == hookio.RoleGatePre || e.role == hookio.RoleGatePost:
		return gateTools
	}
	return strings.Split(e.matcher, "|")
}

// roleWords word, for each role with tools, a matcher that reaches
// none of them (tools, nothing) and what a registration serving it does
// (note, where that is more than its name says).
var roleWords = map[hookio.Role]struct{ tools, nothing, note string }{
	hookio.RoleGatePre:    {"the gated tools", "this hook gates nothing", ""},
	hookio.RoleGatePost:   {"the gated tools", "this hook gates nothing", ""},
	hookio.RoleGuardShell: {"the guarded tools", "it refuses nothing", "the agent's shell and edit calls that would loosen its gate are refused before they run"},
	hookio.RoleGuardEdit:  {"the guarded tools", "it refuses nothing", "the agent's shell and edit calls that would loosen its gate are refused before they run"},
	hookio.RoleAgentRuns:  {"the shell tools", "it reads none of the agent's runs", "the agent's own passing runs of a checked command stand for the check's run"},
	hookio.RoleStart:      {"the edit tools", "it starts nothing", "the stop's checks start in the background after the agent's edits, so the stop finds their results"},
}

// servesNote is the note of the first of these roles that roles hold.
func servesNote(roles []hookio.Role) string {
	for _, role := range []hookio.Role{hookio.RoleStart, hookio.RoleAgentRuns, hookio.RoleGuardShell, hookio.RoleGuardEdit} {
		if slices.Contains(roles, role) {
			return ": " + roleWords[role].note
		}
	}
	return ""
}

// judgeUnknown reports a registration that is none of s's entries: its
// command at an event where donegate registers it only with a flag, or
// not at all.
func (s hostSetup) judgeUnknown(rep *DoctorReport, reg registration, where, flag string) {
	cmd := regCommand(reg.hook, flag)
	var events []string // where s registers cmd
	needed := ""        // the flag s's entry of the program at this event has
	for _, e := range s.regs {
		if e.program == reg.hook && e.flags == flag && !slices.Contains(events, e.event) {
			events = append(events, e.event)
		}
		if e.program == reg.hook && e.event == reg.event && e.flags != "" {
			needed = e.flags
		}
	}
	register := "register " + cmd + " at " + andList(events) + " only: " + s.setupFix()
	switch {
	case flag == "" && needed != "":
		rep.add(s.area(), statusFail, "add "+needed+" to the command: "+regCommand(reg.hook, needed)+" "+flagWords[needed].does,
			"%s: the hook does not answer that event without %s", where, needed)
	case len(events) == 0:
		rep.add(s.area(), statusFail, s.setupFix(), "%s: the hook answers nothing there in %s (donegate registers %s)", where, s.title(), hostEntries(s))
	case flag == "":
		rep.add(s.area(), statusFail, register, "%s: the hook does not answer that event", where)
	default:
		rep.add(s.area(), statusFail, register, "%s: %s answers only %s, so it %s nothing here", where, cmd, andList(events), flagWords[flag].verb)
	}
}

// flagWords say what stop-hook does with a flag.
var flagWords = map[string]struct{ does, verb string }{
	criteriaFlag: {"tells the agent what will be checked", "checks"},
	startFlag:    {"starts the stop's checks after the agent's edits", "starts"},
}

// area is where doctor files s's findings: its own area, or the host's
// name.
func (s hostSetup) area() string {
	if s.doctorArea != "" {
		return s.doctorArea
	}
	return string(s.host)
}

// readsAsync reports whether s's host reads an entry's "async": it is
// the host of donegate's background entries.
func (s hostSetup) readsAsync() bool { return slices.ContainsFunc(s.regs, hookReg.background) }

// setupFix is the fix of a missing or misplaced entry.
func (s hostSetup) setupFix() string {
	return "run closer init --host " + string(s.host) + " (it registers each entry once), or see docs/install.md, Set up " + s.title()
}

// registeredIn names where s's host reads registrations, for "not
// registered in …".
func (r *runCtx) registeredIn(s hostSetup) string {
	if s.readsFrom != "" {
		return s.readsFrom
	}
	return "any file " + s.title() + " reads (" + r.hostFileList(s) + ")"
}

// timeoutUnit is how s's host spells an entry's timeout, its unit, and
// budget in it.
func timeoutUnit(s hostSetup, budget time.Duration) (field, unit string, n int) {
	switch {
	case s.flatHooks:
		return `"timeoutSec"`, "seconds", int(budget / time.Second)
	case s.unit == time.Millisecond:
		return `"timeout"`, "milliseconds", int(budget / time.Millisecond)
	}
	return `"timeout"`, "seconds", int(budget / time.Second)
}
