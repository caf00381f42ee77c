// Package limit is the policy that keeps donegate from trapping an agent:
// given one gate's count, the limits, the clock and the event's prompt id,
// it says whether a stop with open work is blocked or let through, and
// what the count becomes. It is pure — no files, no clock of its own — so
// every rule is unit-tested on a fake clock; package state stores the
// counts and internal/gate does the IO around it.
//
// A gate is what is counted apart: the main agent's stop, one subagent's
// stop, one gated tool. Each gate keeps the prompt id its count belongs
// to, so gates of different prompts that interleave in one session (a main
// Stop of prompt B and a SubagentStop of a background subagent started by
// prompt A) never reset each other's count.
package limit

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Counter is one gate's count within one prompt.
type Counter struct {
	// PromptID is the prompt the count belongs to; "" when the host sends
	// no prompt ids.
	PromptID   string    `json:"prompt_id,omitempty"`
	Blocks     int       `json:"blocks"`
	FirstBlock time.Time `json:"first_block"`
	// Exhausted is set once the limit let the agent through; further stops
	// of the same prompt pass at once instead of starting over.
	Exhausted bool `json:"exhausted,omitempty"`
	// Touched is when the count last changed, for pruning.
	Touched time.Time `json:"touched"`
}

// Continued returns how many times the gate of c has been continued in
// prompt: its blocks, when the count is prompt's; a count of another
// prompt (or none) is 0, as Open would start it over.
func Continued(c *Counter, prompt string) int {
	if c == nil || c.PromptID != prompt {
		return 0
	}
	return c.Blocks
}

// Limits are the configured bounds.
type Limits struct {
	MaxBlocks int           // blocks per gate and prompt; at least 1
	Deadline  time.Duration // 0: none
}

// Decision is what to do with a stop whose work is open.
type Decision struct {
	// Block is true when the agent must go on.
	Block bool
	// Why says, when Block is false, which limit let the agent go.
	Why string
	// Limit is, when Block is false, the config key of that limit:
	// "max_blocks" or "deadline".
	Limit string
}

// Open applies the limits to a stop of prompt whose work is open. It
// returns the decision and the gate's next count; keep is false when the
// count should be dropped altogether.
func Open(c Counter, prompt string, l Limits, now time.Time) (d Decision, next Counter, keep bool) {
	if c.PromptID != prompt {
		c = Counter{PromptID: prompt} // a new prompt for this gate: a fresh count
	}
	switch {
	case c.Exhausted || c.Blocks >= l.MaxBlocks:
		d.Limit = "max_blocks"
		// Strings joined, not fmt: a stop's common path touches no fmt
		// (its first use in a process costs a hook more than the text).
		d.Why = "still incomplete after " + continuations(c.Blocks)
	case l.Deadline > 0 && c.Blocks > 0 && now.Sub(c.FirstBlock) >= l.Deadline:
		d.Limit = "deadline"
		d.Why = fmt.Sprintf("still incomplete after %s and %s (limits.deadline %s)",
			continuations(c.Blocks), now.Sub(c.FirstBlock).Round(time.Second), l.Deadline)
	default:
		if c.Blocks == 0 {
			c.FirstBlock = now
		}
		c.Blocks++
		c.Touched = now
		return Decision{Block: true}, c, true
	}
	if prompt == "" {
		// Without prompt ids a spent count would let every later prompt
		// of the session through: start over instead.
		return d, Counter{}, false
	}
	c.Exhausted = true
	c.Touched = now
	return d, c, true
}

// MaxAge is how long an untouched count is kept. A count older than this
// belongs to a prompt that ended long ago (a subagent's gate is never
// reused: each subagent has its own id).
const MaxAge = 24 * time.Hour

// MaxCounters bounds the counts kept for one session, the one being
// counted included. A subagent's count is about 180 bytes of JSON (with
// a UUID prompt id; measured 2026-11-24), so the record stays under 50 KB
// however many subagents a session starts.
const MaxCounters = 256

// SubagentPrefix begins the key of a subagent's count: "subagent:<agent
// id>". Every other count is the main agent's (its stop, a gated tool),
// and there are only as many of those as the config gates.
const SubagentPrefix = "subagent:"

// Prune returns the keys of counts to drop before the count of key, for
// a stop of prompt, is taken: those untouched for MaxAge, then, while the
// counts (key's among them) would be more than MaxCounters, the stalest
// first:
//
//  1. spent subagent counts: the limit let the subagent stop, so it has
//     finished and its gate is never counted again (each subagent has an
//     id of its own);
//  2. subagent counts of another prompt than this stop's;
//  3. the other subagent counts;
//  4. the main agent's counts, last: there are a handful, and dropping
//     one gives the main agent a fresh max_blocks in the prompt it is in.
//
// Each group goes least recently touched first. key's own count is never
// dropped: dropping the count being taken would start it over at every
// stop. Until 2026-11-24 the least recently touched went first whatever
// they were, so 300 subagents stopping between two main stops dropped
// the main agent's count and it was blocked max_blocks more times.
func Prune(counts map[string]*Counter, key, prompt string, now time.Time) []string {
	var drop []string
	candidates := make([]string, 0, len(counts))
	kept := 0
	for k, c := range counts {
		switch {
		case k == key:
			kept++
		case c == nil || now.Sub(c.Touched) > MaxAge:
			drop = append(drop, k)
		default:
			candidates = append(candidates, k)
			kept++
		}
	}
	if _, ok := counts[key]; !ok {
		kept++ // the count about to be taken
	}
	excess := kept - MaxCounters
	if excess <= 0 {
		return drop
	}
	rank := func(k string) int {
		c := counts[k]
		switch {
		case !strings.HasPrefix(k, SubagentPrefix):
			return 3
		case c.Exhausted:
			return 0
		case c.PromptID != prompt:
			return 1
		}
		return 2
	}
	slices.SortFunc(candidates, func(a, b string) int {
		return cmp.Or(
			cmp.Compare(rank(a), rank(b)),
			counts[a].Touched.Compare(counts[b].Touched),
			strings.Compare(a, b),
		)
	})
	return append(drop, candidates[:min(excess, len(candidates))]...)
}

// continuations counts them in words: "1 continuation", "5 continuations".
func continuations(n int) string {
	if n == 1 {
		return "1 continuation"
	}
	return strconv.Itoa(n) + " continuations"
}
