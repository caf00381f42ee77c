package limit_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/donegate/donegate/internal/limit"
)

var t0 = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func TestOpen(t *testing.T) {
	three := limit.Limits{MaxBlocks: 3}
	tests := []struct {
		name     string
		c        limit.Counter
		prompt   string
		l        limit.Limits
		now      time.Time
		want     limit.Decision
		wantNext limit.Counter
		wantKeep bool
	}{
		{
			name: "first block starts the count", prompt: "p", l: three, now: t0,
			want:     limit.Decision{Block: true},
			wantNext: limit.Counter{PromptID: "p", Blocks: 1, FirstBlock: t0, Touched: t0}, wantKeep: true,
		},
		{
			name: "a further block keeps the first block's time",
			c:    limit.Counter{PromptID: "p", Blocks: 1, FirstBlock: t0, Touched: t0}, prompt: "p", l: three, now: t0.Add(time.Minute),
			want:     limit.Decision{Block: true},
			wantNext: limit.Counter{PromptID: "p", Blocks: 2, FirstBlock: t0, Touched: t0.Add(time.Minute)}, wantKeep: true,
		},
		{
			name: "max_blocks reached: let go, and stay spent",
			c:    limit.Counter{PromptID: "p", Blocks: 3, FirstBlock: t0, Touched: t0}, prompt: "p", l: three, now: t0.Add(time.Minute),
			want:     limit.Decision{Limit: "max_blocks", Why: "still incomplete after 3 continuations"},
			wantNext: limit.Counter{PromptID: "p", Blocks: 3, FirstBlock: t0, Touched: t0.Add(time.Minute), Exhausted: true}, wantKeep: true,
		},
		{
			name: "spent stays spent for the prompt",
			c:    limit.Counter{PromptID: "p", Blocks: 1, FirstBlock: t0, Exhausted: true}, prompt: "p", l: three, now: t0,
			want:     limit.Decision{Limit: "max_blocks", Why: "still incomplete after 1 continuation"},
			wantNext: limit.Counter{PromptID: "p", Blocks: 1, FirstBlock: t0, Touched: t0, Exhausted: true}, wantKeep: true,
		},
		{
			name: "a new prompt for the gate starts over",
			c:    limit.Counter{PromptID: "old", Blocks: 3, FirstBlock: t0, Exhausted: true}, prompt: "new", l: three, now: t0.Add(time.Hour),
			want:     limit.Decision{Block: true},
			wantNext: limit.Counter{PromptID: "new", Blocks: 1, FirstBlock: t0.Add(time.Hour), Touched: t0.Add(time.Hour)}, wantKeep: true,
		},
		{
			name: "no prompt ids: a spent count is dropped, so the next prompt starts over",
			c:    limit.Counter{Blocks: 3, FirstBlock: t0}, prompt: "", l: three, now: t0,
			want:     limit.Decision{Limit: "max_blocks", Why: "still incomplete after 3 continuations"},
			wantNext: limit.Counter{}, wantKeep: false,
		},
		{
			name: "deadline passed since the first block",
			c:    limit.Counter{PromptID: "p", Blocks: 2, FirstBlock: t0}, prompt: "p",
			l: limit.Limits{MaxBlocks: 50, Deadline: 30 * time.Minute}, now: t0.Add(30 * time.Minute),
			want:     limit.Decision{Limit: "deadline", Why: "still incomplete after 2 continuations and 30m0s (limits.deadline 30m0s)"},
			wantNext: limit.Counter{PromptID: "p", Blocks: 2, FirstBlock: t0, Touched: t0.Add(30 * time.Minute), Exhausted: true}, wantKeep: true,
		},
		{
			name: "deadline not yet passed",
			c:    limit.Counter{PromptID: "p", Blocks: 2, FirstBlock: t0}, prompt: "p",
			l: limit.Limits{MaxBlocks: 50, Deadline: 30 * time.Minute}, now: t0.Add(29 * time.Minute),
			want:     limit.Decision{Block: true},
			wantNext: limit.Counter{PromptID: "p", Blocks: 3, FirstBlock: t0, Touched: t0.Add(29 * time.Minute)}, wantKeep: true,
		},
		{
			name:   "deadline counts from the first block, not the first check",
			prompt: "p", l: limit.Limits{MaxBlocks: 50, Deadline: time.Nanosecond}, now: t0,
			want:     limit.Decision{Block: true},
			wantNext: limit.Counter{PromptID: "p", Blocks: 1, FirstBlock: t0, Touched: t0}, wantKeep: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, next, keep := limit.Open(tt.c, tt.prompt, tt.l, tt.now)
			assert.Equal(t, tt.want, d)
			assert.Equal(t, tt.wantNext, next)
			assert.Equal(t, tt.wantKeep, keep)
		})
	}
}

// Gates of two prompts interleaving in one session (a main Stop of prompt
// B and the SubagentStop of a background subagent of prompt A) each keep
// their own count: neither is ever blocked more than MaxBlocks times.
func TestInterleavedPromptsNeverExceedTheLimit(t *testing.T) {
	l := limit.Limits{MaxBlocks: 3}
	counts := map[string]limit.Counter{}
	blocks := map[string]int{}
	now := t0
	for i := 0; i < 20; i++ {
		gate, prompt := "stop", "B"
		if i%2 == 1 {
			gate, prompt = "subagent:x", "A"
		}
		now = now.Add(time.Second)
		d, next, keep := limit.Open(counts[gate], prompt, l, now)
		if keep {
			counts[gate] = next
		} else {
			delete(counts, gate)
		}
		if d.Block {
			blocks[gate]++
		}
	}
	assert.Equal(t, map[string]int{"stop": 3, "subagent:x": 3}, blocks)
}

func TestPrune(t *testing.T) {
	now := t0.Add(48 * time.Hour)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	// subagents returns n live subagent counts of prompt p, touched from
	// the given age on, a millisecond apart, the oldest first.
	subagents := func(counts map[string]*limit.Counter, n int, p string, age time.Duration) {
		for i := range n {
			counts[fmt.Sprintf("subagent:%s-%03d", p, i)] = &limit.Counter{PromptID: p, Blocks: 1, Touched: ago(age - time.Duration(i)*time.Millisecond)}
		}
	}
	tests := []struct {
		name   string
		counts func() map[string]*limit.Counter
		key    string
		want   []string
	}{
		{
			name: "untouched for MaxAge, or nil: dropped, under the cap too",
			counts: func() map[string]*limit.Counter {
				return map[string]*limit.Counter{
					"fresh":      {Touched: ago(time.Hour)},
					"stale":      {Touched: ago(limit.MaxAge + time.Second)},
					"borderline": {Touched: ago(limit.MaxAge)},
					"nil":        nil,
				}
			},
			key:  "stop",
			want: []string{"stale", "nil"},
		},
		{
			name: "at the cap with the counted gate's count there: nothing",
			counts: func() map[string]*limit.Counter {
				c := map[string]*limit.Counter{}
				subagents(c, limit.MaxCounters, "p", time.Hour)
				return c
			},
			key: "subagent:p-000",
		},
		{
			name: "a new count at the cap makes room for itself: the least recently touched subagent goes",
			counts: func() map[string]*limit.Counter {
				c := map[string]*limit.Counter{}
				subagents(c, limit.MaxCounters, "p", time.Hour)
				return c
			},
			key:  "subagent:new",
			want: []string{"subagent:p-000"},
		},
		{
			// The scenario of issue 18: the main agent's count is the
			// least recently touched, and stays.
			name: "the main agent's counts go last, however old",
			counts: func() map[string]*limit.Counter {
				c := map[string]*limit.Counter{
					"stop":                  {PromptID: "p", Blocks: 2, Touched: ago(2 * time.Hour)},
					"tool:StructuredOutput": {PromptID: "p", Blocks: 1, Touched: ago(3 * time.Hour)},
				}
				subagents(c, limit.MaxCounters, "p", time.Hour)
				return c
			},
			key:  "subagent:new",
			want: []string{"subagent:p-000", "subagent:p-001", "subagent:p-002"},
		},
		{
			name: "spent subagents first, then other prompts', then the least recently touched",
			counts: func() map[string]*limit.Counter {
				c := map[string]*limit.Counter{
					"stop":             {PromptID: "p", Blocks: 2, Touched: ago(2 * time.Hour)},
					"subagent:spent":   {PromptID: "p", Blocks: 3, Exhausted: true, Touched: ago(time.Minute)},
					"subagent:older-p": {PromptID: "old", Blocks: 1, Touched: ago(2 * time.Minute)},
				}
				subagents(c, limit.MaxCounters-1, "p", time.Hour)
				return c
			},
			key:  "subagent:new",
			want: []string{"subagent:spent", "subagent:older-p", "subagent:p-000"},
		},
		{
			name: "the counted gate's count is never dropped, even the stalest",
			counts: func() map[string]*limit.Counter {
				c := map[string]*limit.Counter{"subagent:mine": {PromptID: "p", Blocks: 2, Exhausted: true, Touched: ago(limit.MaxAge + time.Hour)}}
				subagents(c, limit.MaxCounters, "p", time.Hour)
				return c
			},
			key:  "subagent:mine",
			want: []string{"subagent:p-000"},
		},
		{
			name: "only main-agent counts besides the counted one: the oldest of them go",
			counts: func() map[string]*limit.Counter {
				c := map[string]*limit.Counter{}
				for i := range limit.MaxCounters {
					c[fmt.Sprintf("tool:T%03d", i)] = &limit.Counter{PromptID: "p", Touched: ago(time.Hour - time.Duration(i)*time.Millisecond)}
				}
				return c
			},
			key:  "stop",
			want: []string{"tool:T000"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			counts := tt.counts()
			got := limit.Prune(counts, tt.key, "p", now)
			assert.ElementsMatch(t, tt.want, got)
			for _, k := range got {
				delete(counts, k)
			}
			if _, ok := counts[tt.key]; !ok {
				counts[tt.key] = &limit.Counter{}
			}
			assert.LessOrEqual(t, len(counts), limit.MaxCounters, "counts kept, the counted gate's included")
		})
	}
}

func TestContinued(t *testing.T) {
	c := &limit.Counter{PromptID: "p1", Blocks: 3}
	for _, tt := range []struct {
		c      *limit.Counter
		prompt string
		want   int
	}{
		{c, "p1", 3},
		{c, "p2", 0}, // another prompt's count: Open would start over
		{nil, "p1", 0},
		{&limit.Counter{Blocks: 2}, "", 2}, // a host without prompt ids
		{&limit.Counter{PromptID: "p1", Blocks: 5, Exhausted: true}, "p1", 5},
	} {
		if got := limit.Continued(tt.c, tt.prompt); got != tt.want {
			t.Errorf("Continued(%+v, %q) = %d, want %d", tt.c, tt.prompt, got, tt.want)
		}
	}
}
