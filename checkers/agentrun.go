package checkers

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/donegate/donegate/internal/treecache"
)

// The agent often runs the suite itself before it says it is done, and
// the stop then ran it again on the same tree. When the host tells that
// the agent's own run of a checker's command passed (its shell tool's
// result: Claude Code sends PostToolUse for a Bash call that exited 0,
// PostToolUseFailure otherwise), the pass is remembered in the result
// cache under the key that checker's check looks up for the tree as it is
// then: the stop reuses it while nothing changed, exactly as it reuses a
// run of its own. The model cannot forge it: the host ran the command and
// reports how it ended. Only a pass is recorded, only where the result is
// cached by the tree and passing is exiting 0.

// AgentRunOf is the agent's run of command through the host's shell
// tool, which the host says exited 0, in the dir ProjectDir of the
// Context it is recorded with.
type AgentRunOf struct {
	Command string
	At      time.Time
}

// standIn is implemented by the checkers whose result an agent's passing
// run of their command can stand for: it returns the command checks c
// would run, one a check.
type standIn interface {
	commandChecks(c *Context) ([]commandCheck, error)
}

// RecordAgentRun remembers run as a pass of every checker in chain (the
// members of composites included) that would run the same command
// through the result cache, and returns their labels. It costs a look at
// the tree only when a checker matches.
func RecordAgentRun(ctx context.Context, c *Context, chain Checker, run AgentRunOf) ([]string, error) {
	if c.CacheDir == "" || c.ReadOnly || !c.ReuseAgentRuns {
		return nil, nil
	}
	command := strings.TrimSpace(run.Command)
	var recorded []string
	var state string
	for _, lk := range cachedCommandChecks(c, chain) {
		k := lk.check
		if !k.when.isDefault() || strings.TrimSpace(k.command) != command {
			continue // passing is exiting 0 only under the default condition
		}
		if state == "" {
			var err error
			if state, err = c.treeState(ctx, k.ownTimeout()); err != nil {
				return recorded, fmt.Errorf("the working tree could not be fingerprinted: %w", err)
			}
		}
		key := c.resultKey(k.cacheParts(), state)
		entry := treecache.Entry{Complete: true, Feedback: k.voice.passed(k), At: run.At, By: treecache.ByAgent}
		if err := c.cache().Put(key, entry); err != nil {
			return recorded, err
		}
		recorded = append(recorded, lk.label)
	}
	return recorded, nil
}

// labeledCheck is a command check of a chain, with the label of the
// composite member it is ("" at the top).
type labeledCheck struct {
	label string
	check commandCheck
}

// cachedCommandChecks returns the command checks of the checkers in chain
// (the members of composites included) whose result is cached by the
// tree, in the chain's order: those a run outside the stop (the agent's,
// or one started early) can stand for.
func cachedCommandChecks(c *Context, chain Checker) []labeledCheck {
	var found []labeledCheck
	var walk func(label string, ch Checker)
	walk = func(label string, ch Checker) {
		if comp, ok := ch.(Composite); ok {
			for _, m := range comp.Members {
				walk(m.Label, m.Checker)
			}
			return
		}
		s, ok := ch.(standIn)
		if !ok {
			return
		}
		checks, err := s.commandChecks(c)
		if err != nil {
			return // the check itself will say what is wrong
		}
		for _, k := range checks {
			if k.cache {
				found = append(found, labeledCheck{label, k})
			}
		}
	}
	walk("", chain)
	return found
}

// ownTimeout is k's timeout, or the default.
func (k commandCheck) ownTimeout() time.Duration {
	if k.timeout <= 0 {
		return DefaultTimeout
	}
	return k.timeout
}

// cacheParts are what the result of k depends on besides the project dir
// and the tree: its type (the feedback is its type's) and its command, and
// its condition where that is not the default.
func (k commandCheck) cacheParts() []string {
	parts := []string{k.kind, k.command}
	if !k.when.isDefault() {
		parts = append(parts, k.when.String())
	}
	return parts
}

func (t Test) commandChecks(c *Context) ([]commandCheck, error) {
	k, ok, err := t.commandCheck(c)
	if !ok {
		return nil, err
	}
	return []commandCheck{k}, nil
}

func (cm Command) commandChecks(*Context) ([]commandCheck, error) {
	return []commandCheck{cm.commandCheck()}, nil
}
