package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/config"
)

// TestDecideBeforeOrder holds the order of the rules before the checks:
// for every combination of the facts, the first rule that holds decides,
// the rules that do not read the session decide without it, and none
// holding means the checks decide.
func TestDecideBeforeOrder(t *testing.T) {
	rules := []struct {
		name    string
		set     func(*beforeFacts)
		kind    Kind
		why     string
		session bool // the rule reads the session's facts
	}{
		{"guarded", func(f *beforeFacts) { f.guarded = true }, KindGuarded, "", false},
		{"not declared", func(f *beforeFacts) { f.notDeclared = `"status" is "done"` }, KindNotDeclared, `"status" is "done"`, false},
		{"mode off", func(f *beforeFacts) { f.mode = config.ModeOff }, KindOff, `the config's "mode": "off"`, false},
		{"unchecked", func(f *beforeFacts) { f.unchecked = "a Codex goal's continuation" }, KindUnchecked, "a Codex goal's continuation", false},
		{"other entry", func(f *beforeFacts) { f.otherEntry = "Cursor" }, KindDuplicate, "Cursor ran donegate's other hook entry for this stop", true},
		{"subagent's own", func(f *beforeFacts) { f.subagentsOwn = "the parent's subagentStop is checked" }, KindDuplicate, "the parent's subagentStop is checked", true},
		{"background", func(f *beforeFacts) { f.background = []string{"npm test", "build"} }, KindWaiting, "npm test, build", true},
		{"released", func(f *beforeFacts) { f.releasedBy = releasedByMessage }, KindReleased, releasedByMessage, true},
	}
	for set := range 1 << len(rules) {
		for _, session := range []bool{false, true} {
			f := beforeFacts{mode: config.ModeEnforce, session: session}
			first := -1
			for i, rule := range rules {
				if set&(1<<i) != 0 {
					rule.set(&f)
					if first < 0 {
						first = i
					}
				}
			}
			d, check, needSession := decideBefore(f)
			switch {
			case first >= 0 && (!rules[first].session || session):
				assert.Equal(t, Decision{Kind: rules[first].kind, Why: rules[first].why}, d, "facts %08b, session %v: %s decides", set, session, rules[first].name)
				assert.False(t, check || needSession, "facts %08b", set)
			case !session:
				assert.True(t, needSession, "facts %08b: the session's facts are needed", set)
				assert.False(t, check)
			default:
				assert.True(t, check, "facts %08b: no rule holds, the checks decide", set)
				assert.Equal(t, Decision{}, d)
			}
		}
	}
}
