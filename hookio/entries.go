package hookio

import "strings"

// Role is what one of donegate's hook entries does.
type Role int

// The roles, in the order of Entries.
const (
	RoleStop            Role = iota // stop-hook at the end of a turn
	RoleSubagentStop                // stop-hook at a subagent's end
	RoleGatePre                     // posttooluse-hook before a gated tool call: it can refuse the final output
	RoleGuardShell                  // posttooluse-hook before a shell call: the guard
	RoleGuardEdit                   // posttooluse-hook before an edit call: the guard
	RoleGatePost                    // posttooluse-hook after a gated tool call
	RoleAgentRuns                   // posttooluse-hook after a shell call: the agent's own passing runs
	RoleStart                       // stop-hook --start after an edit, in the background: the stop's checks start early
	RoleCriteriaSession             // stop-hook --criteria at a session's start
	RoleCriteriaPrompt              // stop-hook --criteria at the person's prompt
)

// Tools says which of the agent's tools an entry matches.
type Tools int

// The tool sets of entries.
const (
	NoTools    Tools = iota // an event of no tool call
	GatedTools              // the gated tools (StructuredOutput unless the config says others)
	ShellTool               // the host's shell tool
	EditTools               // the host's tools that write files
)

// Program names: the two hooks.
const (
	StopHookProgram = "stop-hook"
	ToolHookProgram = "posttooluse-hook"
)

// Flags of stop-hook an entry runs it with.
const (
	CriteriaFlag = "--criteria" // tell the agent what will be checked
	StartFlag    = "--start"    // start the stop's checks, in the background
)

// Entry is one of donegate's hook entries, in Claude Code's vocabulary:
// program (with flag) at event, for the tools it matches. Each host
// registers the entries of its roles (Host.Entries), under its own names.
type Entry struct {
	Role    Role
	Event   string
	Tools   Tools
	Program string
	Flag    string
}

// Entries are every hook entry donegate has, one per role, in the order
// init writes them: what answers which event, what init registers and
// what doctor expects all come from here.
var Entries = []Entry{
	{RoleStop, EventStop, NoTools, StopHookProgram, ""},
	{RoleSubagentStop, EventSubagentStop, NoTools, StopHookProgram, ""},
	{RoleGatePre, EventPreToolUse, GatedTools, ToolHookProgram, ""},
	{RoleGuardShell, EventPreToolUse, ShellTool, ToolHookProgram, ""},
	{RoleGuardEdit, EventPreToolUse, EditTools, ToolHookProgram, ""},
	{RoleGatePost, EventPostToolUse, GatedTools, ToolHookProgram, ""},
	{RoleAgentRuns, EventPostToolUse, ShellTool, ToolHookProgram, ""},
	{RoleStart, EventPostToolUse, EditTools, StopHookProgram, StartFlag},
	{RoleCriteriaSession, EventSessionStart, NoTools, StopHookProgram, CriteriaFlag},
	{RoleCriteriaPrompt, EventUserPromptSubmit, NoTools, StopHookProgram, CriteriaFlag},
}

// Background reports whether the host runs the entry without waiting for
// it (Claude Code's "async": true): stop-hook --start.
func (e Entry) Background() bool { return e.Flag == StartFlag }

// Command is the entry's program with its flag.
func (e Entry) Command() string {
	if e.Flag == "" {
		return e.Program
	}
	return e.Program + " " + e.Flag
}

// ProgramFor names the program that answers the event named eventName
// (Claude Code's name), the host waiting for its answer; "" for an event
// donegate has no entry at.
func ProgramFor(eventName string) string {
	for _, e := range Entries {
		if e.Event == eventName && !e.Background() {
			return e.Program
		}
	}
	return ""
}

// CriteriaAt reports whether stop-hook answers the event named eventName
// with --criteria (and without it does not).
func CriteriaAt(eventName string) bool {
	for _, e := range Entries {
		if e.Event == eventName && e.Flag == CriteriaFlag {
			return true
		}
	}
	return false
}

// HostEntry is an entry as a host registers it: its name for the event,
// and the matcher of the tools ("" where the entry matches none, or the
// host's entries have no matcher).
type HostEntry struct {
	Entry
	Event, Matcher string
}

// gatedToolsMatcher is the matcher of the gated tools as init writes it:
// the default of the config's gate_tools.
const gatedToolsMatcher = "StructuredOutput"

// Entries are the entries h registers, in the order of Entries: one per
// role of its spec, except that a host whose spec joins the guard's
// entries registers one entry for its shell and edit tools.
func (h Host) Entries() []HostEntry {
	s := h.spec()
	var out []HostEntry
	for _, e := range Entries {
		if !hasRole(s.roles, e.Role) {
			continue
		}
		he := HostEntry{Entry: e, Event: e.Event}
		if name, ok := s.wireNames[e.Event]; ok {
			he.Event = name
		}
		if !s.noMatchers {
			switch {
			case e.Role == RoleGuardShell && s.joinsGuard:
				he.Matcher = strings.Join(h.GuardedTools(), "|")
			case e.Role == RoleGuardEdit && s.joinsGuard:
				continue
			case e.Tools == GatedTools:
				he.Matcher = gatedToolsMatcher
			case e.Tools == ShellTool:
				he.Matcher = s.shellTool
			case e.Tools == EditTools:
				he.Matcher = strings.Join(s.editTools, "|")
			}
		} else if e.Role == RoleGuardEdit && hasRole(s.roles, RoleGuardShell) {
			continue // one entry, for every tool
		}
		out = append(out, he)
	}
	return out
}

func hasRole(roles []Role, r Role) bool {
	for _, x := range roles {
		if x == r {
			return true
		}
	}
	return false
}

// reverse maps each value of m to its key.
func reverse(m map[string]string) map[string]string {
	r := make(map[string]string, len(m))
	for k, v := range m {
		r[v] = k
	}
	return r
}
