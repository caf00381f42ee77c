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
	if c.CacheDir == "" || c.ReadOnly {
		return nil, nil
	}
	command := strings.TrimSpace(run.Command)
	var recorded []string
	var state string
	var walk func(label string, ch Checker) error
	walk = func(label string, ch Checker) error {
		if comp, ok := ch.(Composite); ok {
			for _, m := range comp.Members {
				if err := walk(m.Label, m.Checker); err != nil {
					return err
				}
			}
			return nil
		}
		s, ok := ch.(standIn)
		if !ok {
			return nil
		}
		checks, err := s.commandChecks(c)
		if err != nil {
			return nil // the check itself will say what is wrong
		}
		for _, k := range checks {
			if !k.cache || !k.when.isDefault() || strings.TrimSpace(k.command) != command {
				continue
			}
			if state == "" {
				own := k.timeout
				if own <= 0 {
					own = DefaultTimeout
				}
				if state, err = c.treeState(ctx, own); err != nil {
					return fmt.Errorf("the working tree could not be fingerprinted: %w", err)
				}
			}
			key := treecache.Key(append(k.cacheParts(), c.ProjectDir, state)...)
			entry := treecache.Entry{Complete: true, Feedback: k.voice.passed(k), At: run.At, By: treecache.ByAgent}
			if err := c.cache().Put(key, entry); err != nil {
				return err
			}
			recorded = append(recorded, label)
		}
		return nil
	}
	err := walk("", chain)
	return recorded, err
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
