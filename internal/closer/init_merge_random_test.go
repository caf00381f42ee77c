package closer

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/hookio"
)

// TestInitMergeRandomSettings merges donegate's hooks into random
// settings files and checks, with an oracle of its own, that no group
// the file held is lost or changed, every other key keeps its value, and
// each of donegate's registrations is there: added exactly once when the
// file had none, nothing added when it had one. Issue 18: before the
// matcher and the type counted, 204 of 1,500 such files lost a
// registration. The seed is fixed: a failure names its file.
func TestInitMergeRandomSettings(t *testing.T) {
	const files = 1500
	rng := rand.New(rand.NewSource(18))
	commands := map[string]string{"stop-hook": "stop-hook", "posttooluse-hook": "posttooluse-hook"}
	events := []string{"Stop", "SubagentStop", "PreToolUse", "PostToolUse", "SessionStart", "UserPromptSubmit", "Notification"}
	matchers := []string{"-", "", "*", "Bash", "StructuredOutput", "Bash|StructuredOutput", "Edit|Write", "Struct.*"}
	types := []string{"command", "command", "prompt", "-"}
	cmds := []string{"stop-hook", "stop-hook --criteria", "posttooluse-hook", "/opt/bin/stop-hook", "/opt/bin/posttooluse-hook --x", "echo done", "guard.sh"}
	pick := func(s []string) string { return s[rng.Intn(len(s))] }
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var failed []string

	for i := 0; i < files; i++ {
		var evs []string
		for _, ev := range rng.Perm(len(events))[:rng.Intn(len(events)+1)] {
			var groups []string
			for g := rng.Intn(3); g > 0; g-- {
				var hs []string
				for h := rng.Intn(3); h > 0; h-- {
					var fields []string
					if ty := pick(types); ty != "-" {
						fields = append(fields, `"type": `+str(ty))
					}
					fields = append(fields, `"command": `+str(pick(cmds)))
					hs = append(hs, "{"+strings.Join(fields, ", ")+"}")
				}
				group := `"hooks": [` + strings.Join(hs, ", ") + "]"
				if m := pick(matchers); m != "-" {
					group = `"matcher": ` + str(m) + ", " + group
				}
				groups = append(groups, "{"+group+"}")
			}
			evs = append(evs, str(events[ev])+": ["+strings.Join(groups, ", ")+"]")
		}
		top := []string{`"hooks": {` + strings.Join(evs, ", ") + "}", `"model": "opus"`, `"env": {"K": "v"}`}
		rng.Shuffle(len(top), func(a, b int) { top[a], top[b] = top[b], top[a] })
		in := []byte("{" + strings.Join(top, ",\n") + "}\n")
		if problem := checkMerge(in, commands); problem != "" {
			failed = append(failed, fmt.Sprintf("file %d: %s\n%s", i, problem, in))
		}
	}
	if len(failed) > 0 {
		t.Fatalf("%d of %d files: the first: %s", len(failed), files, failed[0])
	}
}

// checkMerge merges into in and says what went wrong, "" if nothing.
func checkMerge(in []byte, commands map[string]string) string {
	out, err := mergeHooks(in, registrations, hookTimeout, commands, nil)
	if err != nil {
		return err.Error()
	}
	if out == nil {
		out = in
	}
	if !gjson.ValidBytes(out) {
		return "not valid JSON: " + string(out)
	}
	for _, k := range []string{"model", "env"} {
		if gjson.GetBytes(in, k).Raw != gjson.GetBytes(out, k).Raw {
			return k + " changed: " + string(out)
		}
	}
	// An event may hold more than one registration of ours (PostToolUse:
	// StructuredOutput and Bash): each missing one adds one group, but
	// those that run the same command share one (their matchers joined),
	// and a registered one adds none.
	missing := map[string]int{}
	shared := map[string]bool{}
	for _, reg := range registrations {
		before := gjson.GetBytes(in, "hooks."+reg.event).Array()
		after := gjson.GetBytes(out, "hooks."+reg.event).Array()
		if len(after) < len(before) {
			return reg.event + " lost a group: " + string(out)
		}
		for g := range before {
			if before[g].Raw != after[g].Raw {
				return fmt.Sprintf("group %d of %s changed: %s", g, reg.event, out)
			}
		}
		had, has := countOurs(before, reg.matcher, reg.program, reg.flags), countOurs(after, reg.matcher, reg.program, reg.flags)
		registered := had > 0
		// The guard's entry counts only where every one of its tools is
		// selected; where one is not, a group for those is added.
		guard := reg.role == hookio.RoleGuardShell || reg.role == hookio.RoleGuardEdit
		everyTool := func(groups []gjson.Result) bool {
			for _, tool := range strings.Split(reg.matcher, "|") {
				if countOurs(groups, tool, reg.program, reg.flags) == 0 {
					return false
				}
			}
			return true
		}
		if guard {
			registered = everyTool(before)
		}
		switch {
		case !registered && guard && !everyTool(after):
			return fmt.Sprintf("%s (%q) is not registered for every tool: %s", reg.event, reg.matcher, out)
		case !registered && !guard && has != 1:
			return fmt.Sprintf("%s (%q) registered %d times: %s", reg.event, reg.matcher, has, out)
		case registered && has != had:
			return fmt.Sprintf("%s (%q) was registered, and another added: %s", reg.event, reg.matcher, out)
		case !registered && reg.matcher != "" && shared[reg.event+" "+reg.program+" "+reg.flags]:
		case !registered:
			missing[reg.event]++
			if reg.matcher != "" {
				shared[reg.event+" "+reg.program+" "+reg.flags] = true
			}
		}
	}
	for ev := range eventsOf(registrations) {
		before := gjson.GetBytes(in, "hooks."+ev).Array()
		after := gjson.GetBytes(out, "hooks."+ev).Array()
		if len(after) != len(before)+missing[ev] {
			return fmt.Sprintf("%s: %d group(s) added for %d missing registration(s): %s", ev, len(after)-len(before), missing[ev], out)
		}
	}
	return ""
}

// countOurs counts the entries of groups that run donegate's program as
// registration (matcher, program, flags), by the rule written out again
// for the generator's words: a matcher absent, "" or "*", or for a tool
// matcher one naming it; type "command"; the program as a word or a
// path's last element; --criteria and --start exactly when flags has it.
func countOurs(groups []gjson.Result, matcher, program, flags string) int {
	// A matcher selects a tool as Claude Code reads it: absent, "" or
	// "*" every tool, else a regular expression of the whole name; a
	// registration's tools ("Write|Edit|...") are selected when one is.
	// At an event without tools only absent, "" or "*" count.
	selects := func(groupMatcher string) bool {
		if groupMatcher == "" || groupMatcher == "*" {
			return true
		}
		if matcher == "" {
			return false // an event without tools: only those count
		}
		re, err := regexp.Compile("^(?:" + groupMatcher + ")$")
		if err != nil {
			return false
		}
		for _, tool := range strings.Split(matcher, "|") {
			if re.MatchString(tool) {
				return true
			}
		}
		return false
	}
	n := 0
	for _, g := range groups {
		if !selects(g.Get("matcher").Str) {
			continue
		}
		for _, h := range g.Get("hooks").Array() {
			words := strings.Fields(h.Get("command").Str)
			runs := false
			for _, w := range words {
				runs = runs || w == program || strings.HasSuffix(w, "/"+program)
			}
			criteria := strings.Contains(h.Get("command").Str, criteriaFlag)
			start := strings.Contains(h.Get("command").Str, startFlag)
			if h.Get("type").Str == "command" && runs && criteria == (flags == criteriaFlag) && start == (flags == startFlag) {
				n++
			}
		}
	}
	return n
}

// eventsOf is the set of events regs register at.
func eventsOf(regs []hookReg) map[string]bool {
	evs := map[string]bool{}
	for _, reg := range regs {
		evs[reg.event] = true
	}
	return evs
}
