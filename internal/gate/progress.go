package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/limit"
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/internal/treecache"
)

// Holds that change nothing end, whatever the host's turn ids do. The
// block count is kept per turn, and a host that begins turns of its own
// (Codex pursuing a thread goal, with no cap of its own) started it over
// every time: 4 goal turns, nothing changing, max_blocks 3, 12 holds.
// So each gate also counts its holds in a row in which nothing moved —
// the working tree, the plan and what is open, as the feedback tells it —
// and no new prompt of the person came; past limits.max_blocks of them
// the agent is let go, and told why. A tree that moves every turn (a log,
// a timestamp) is no progress to the person: past
// limits.max_holds_per_prompt holds since their last prompt, moving or
// not, the agent is let go all the same.

// progressSlot is the session record's slot of the counts, by gate.
const progressSlot = "progress"

// stall is one gate's holds in a row without progress.
type stall struct {
	// Open is the digest of what the last hold found open (see
	// openDigest), Tree the working tree's state then ("" when it was not
	// looked at).
	Open  string `json:"open"`
	Tree  string `json:"tree,omitempty"`
	Holds int    `json:"holds"`
	// Since counts the gate's holds since the person's last prompt,
	// moving or not (see Limits.MaxHoldsPerPrompt).
	Since int `json:"since,omitempty"`
	// Prompt is the turn of the last hold, for hosts whose turn id is
	// the person's prompt (Gemini's chat record).
	Prompt string `json:"prompt,omitempty"`
}

// openDigest is the digest of what a hold finds open, digits removed so
// that a duration in a test's output is no progress.
func openDigest(res checkers.Result) string {
	open := strings.Map(func(c rune) rune {
		if c >= '0' && c <= '9' {
			return -1
		}
		return c
	}, res.Pattern+"\x00"+res.Feedback)
	sum := sha256.Sum256([]byte(open))
	return hex.EncodeToString(sum[:12])
}

// progressLook is what a hold of the gate key saw: what is open, and the
// working tree's state when what is open has not changed since the last
// hold of a turn the person did not start. Only then can the tree decide
// whether the agent moved, so only then is it looked at (git status, or
// a walk outside git; bounded to 2 s): a hold whose findings changed
// costs nothing more. Nor does a stop whose count, as the run found it,
// is spent (lim at now): it is let go whatever the tree says. Should the
// count have started over since (another hook's update), the findings
// alone decide that hold, as when the tree cannot be looked at.
func (r *run) progressLook(ctx context.Context, key string, res checkers.Result, lim limit.Limits, now time.Time) stall {
	look := stall{Open: openDigest(res), Prompt: r.event.PromptID}
	s, err := r.session()
	if err != nil {
		return look
	}
	if d, _, _ := limit.Open(counter(s, key), r.event.PromptID, lim, now); !d.Block {
		return look
	}
	all := stalls{}
	s.Get(progressSlot, &all)
	if last, ok := all[key]; ok && last.Open == look.Open && !personsPrompt(r.event, last, sessionPrompts(s)) {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		var tree string
		var err error
		if r.checked != nil {
			// The checks' look at the tree, still standing unless a
			// command ran after it: no second git status.
			tree, err = r.checked.TreeState(ctx)
		} else {
			tree, err = treecache.Cache{Dir: filepath.Join(r.stateDir(), "results"), ReadOnly: true}.State(ctx, r.projectDir())
		}
		switch {
		case errors.Is(err, treecache.ErrUnsettled):
			// Files changed in the last 2 s: the agent is moving.
			tree = "changing " + strconv.FormatInt(time.Now().UnixNano(), 10)
		case err != nil:
			// Not to be had (too large, out of time): the findings alone
			// decide.
			tree = ""
		}
		look.Tree = tree
	}
	return look
}

// promptsSlot is the session record's slot of the turns the person's
// prompts began, as their host names them (PromptID), the last
// keptPrompts of them: stop-hook --criteria records each at
// UserPromptSubmit (notePrompt).
const promptsSlot = "prompts"

const keptPrompts = 8

// notePrompt records in the session s that the person's prompt began the
// turn prompt.
func notePrompt(s *state.Session, prompt string) error {
	var prompts promptList
	s.Get(promptsSlot, &prompts)
	if slices.Contains(prompts, prompt) {
		return nil
	}
	prompts = append(prompts, prompt)
	if len(prompts) > keptPrompts {
		prompts = prompts[len(prompts)-keptPrompts:]
	}
	return s.Put(promptsSlot, prompts)
}

// personsPrompt reports whether the stop comes from a prompt of the
// person rather than a continuation donegate caused: as the host says
// (hookio's AfterPersonsPrompt), else a new turn (Gemini CLI's turn is
// the chat record of the person's prompt). A host can begin a turn of
// its own too: Codex 0.169.0 pursues a thread goal (create_goal, /goal)
// in turn after turn, each with a new turn_id and stop_hook_active
// false, and no UserPromptSubmit (measured through its app-server: 5
// goal turns, 4 stops each with max_blocks 3, none the person's). So
// where the session's prompts are on record (prompts, see notePrompt), a
// stop is the person's only in a turn one of them began.
func personsPrompt(ev *hookio.Event, last stall, prompts []string) bool {
	person, known := ev.AfterPersonsPrompt()
	switch {
	case !known:
		return ev.PromptID != last.Prompt
	case person && len(prompts) > 0 && ev.PromptID != "":
		return slices.Contains(prompts, ev.PromptID)
	}
	return person
}

// sessionPrompts is the turns of the person's prompts on record in s.
func sessionPrompts(s *state.Session) []string {
	var prompts promptList
	s.Get(promptsSlot, &prompts)
	return prompts
}

// stalled counts a hold of the gate key in the session s that saw look,
// and reports how many holds in a row saw nothing move, this one
// included, and how many holds there were since the person's last prompt
// whatever moved. A tree not looked at before (the findings changed then)
// is taken as unchanged, so the first count is at most one hold too high.
func stalled(s *state.Session, key string, look stall, ev *hookio.Event) (inRow, since int) {
	all := stalls{}
	s.Get(progressSlot, &all)
	last := all[key]
	person := personsPrompt(ev, last, sessionPrompts(s))
	look.Holds, look.Since = 1, 1
	if last.Holds > 0 && last.Open == look.Open && !person &&
		(last.Tree == "" || look.Tree == "" || last.Tree == look.Tree) {
		look.Holds = last.Holds + 1
	}
	if last.Holds > 0 && !person {
		look.Since = max(last.Since, last.Holds) + 1
	}
	all[key] = look
	_ = s.Put(progressSlot, all)
	return look.Holds, look.Since
}

// counter is the gate key's count in s, zero where there is none.
func counter(s *state.Session, key string) limit.Counter {
	if c := s.Counters[key]; c != nil {
		return *c
	}
	return limit.Counter{}
}

// counts reports whether s holds anything of the gate key: a count, or
// holds without progress (what reset clears).
func counts(s *state.Session, key string) bool {
	if _, ok := s.Counters[key]; ok {
		return true
	}
	all := stalls{}
	if s.Get(progressSlot, &all) {
		_, ok := all[key]
		return ok
	}
	return false
}

// progressed forgets the gate key's holds: its work is done.
func progressed(s *state.Session, key string) {
	all := stalls{}
	if s.Get(progressSlot, &all) {
		if _, ok := all[key]; ok {
			delete(all, key)
			_ = s.Put(progressSlot, all)
		}
	}
}
