package gate

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/state"
	"github.com/donegate/donegate/internal/treecache"
)

// A session whose agent has changed nothing is not held by the checks of
// the project's state: a person asks why a test fails, the agent answers
// without touching anything, and "the test command failed — fix the
// failures" would set it editing code nobody asked it to change; a
// failure older than the agent's work is not its work. The start of a
// session is seen by stop-hook --criteria (SessionStart, the first prompt
// event); at each stop, until the agent first changes the tree, the tree
// is compared with itself then (treecache.ChangedSince). Once changed,
// the session is held as always, to its end. Without a seen start, or
// outside git, every stop is held as always. "hold_unchanged": true
// turns the rule off.

// sessionSlot is the session record's slot of what was seen of it.
const sessionSlot = "session"

// seen is when donegate saw the session begin, and whether its agent has
// changed the tree since.
type seen struct {
	Start   time.Time `json:"start"`
	Changed bool      `json:"changed,omitempty"`
	// Head is the commit HEAD was at then (treecache.Head;
	// treecache.NoCommit for a branch with none), "" where it could not
	// be read: a commit that moves it is a change, whatever the reflog
	// (which the agent can delete) and the files' times say.
	Head string `json:"head,omitempty"`
	// Edited are the files inside the project the agent wrote through
	// its edit tools (absolute, at most maxEdited; Many past that): a
	// git-ignored one is its change too, which the tree's look at a
	// stop cannot see (see checkers.SessionStart).
	Edited []string `json:"edited,omitempty"`
	Many   bool     `json:"many,omitempty"`
}

// maxEdited bounds seen.Edited.
const maxEdited = 256

// headNow is seen.Head for the work tree at dir now.
func headNow(dir string) (string, error) {
	h, err := treecache.Head(dir)
	if h == "" && err == nil {
		h = treecache.NoCommit
	}
	return h, err
}

// noteSession records, in one write, what stop-hook --criteria sees of
// the session at a prompt event of the person: its start, if start is
// set and none is recorded yet (see unchangedSince), and the turn a
// UserPromptSubmit begins (see notePrompt).
func (r *run) noteSession(start bool) {
	ev := r.event
	if r.readOnly() || ev.SessionID == "" || ev.ResumesTurn() {
		return
	}
	if ev.HookEventName != hookio.EventSessionStart && ev.HookEventName != hookio.EventUserPromptSubmit {
		return
	}
	prompt := ev.HookEventName == hookio.EventUserPromptSubmit && ev.PromptID != ""
	if !start && !prompt {
		return
	}
	store := state.Store{Dir: r.stateDir()}
	err := store.Update(ev.SessionID, func(s *state.Session) error {
		if prompt {
			if err := notePrompt(s, ev.PromptID); err != nil {
				return err
			}
		}
		var sn seen
		if !start || s.Get(sessionSlot, &sn) {
			return nil
		}
		head, _ := headNow(r.projectDir()) // "" outside git: as always
		return s.Put(sessionSlot, seen{Start: r.env.Now(), Head: head})
	})
	if err != nil {
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
	}
}

// unchangedSince reports whether the session's agent has changed nothing
// since donegate saw the session begin, and when that was. Finding the
// first change records it, for good. It reads the tree through cc's look,
// which the checks then share.
func (r *run) unchangedSince(ctx context.Context, cc *checkers.Context) (bool, time.Time) {
	if r.event.SessionID == "" {
		return false, time.Time{}
	}
	s, err := r.session()
	var sn seen
	if err != nil || !s.Get(sessionSlot, &sn) || sn.Changed || sn.Start.IsZero() {
		return false, time.Time{}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := cc.GitStatus(ctx)
	if err != nil {
		return false, time.Time{}
	}
	changed, err := treecache.ChangedSince(ctx, st, sn.Start)
	if err != nil {
		return false, time.Time{} // outside git: as always
	}
	if sn.Head != "" && !changed {
		// HEAD moved, or cannot be read now: a change.
		now, err := headNow(r.projectDir())
		changed = err != nil || now != sn.Head
	}
	if changed {
		if !r.readOnly() {
			_ = state.Store{Dir: r.stateDir()}.Update(r.event.SessionID, func(s *state.Session) error {
				var now seen
				if !s.Get(sessionSlot, &now) {
					now = sn
				}
				now.Changed = true
				return s.Put(sessionSlot, now)
			})
		}
		return false, time.Time{}
	}
	return true, sn.Start
}

// inProject reports whether path, absolute or relative to the event's
// cwd, is inside the project dir.
func (r *run) inProject(path string) bool {
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.event.Cwd, path)
	}
	rel, err := filepath.Rel(r.projectDir(), path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// noteEdit records, at the PostToolUse of an edit tool (stop-hook
// --start), that the session's agent changed the project, and which
// files: a file it wrote through its edit tools inside the project dir,
// git-ignored or not, is the agent's change, though the tree's look at
// the stop cannot see an ignored file. Once changed, the session is held
// as always; the files written narrow a workspace's first stop to the
// packages the agent touched (see sessionStart).
func (r *run) noteEdit() {
	ev := r.event
	if ev.SessionID == "" || r.readOnly() {
		return
	}
	var edited []string
	for _, p := range ev.EditedPaths() {
		if !filepath.IsAbs(p) {
			p = filepath.Join(ev.Cwd, p)
		}
		if p = filepath.Clean(p); r.inProject(p) && !slices.Contains(edited, p) {
			edited = append(edited, p)
		}
	}
	if len(edited) == 0 {
		return
	}
	// news reports whether sn lacks what this edit adds.
	news := func(sn seen) bool {
		return !sn.Changed || !sn.Many && slices.ContainsFunc(edited, func(p string) bool { return !slices.Contains(sn.Edited, p) })
	}
	if s, err := r.session(); err == nil {
		var sn seen
		if !s.Get(sessionSlot, &sn) || !news(sn) {
			return
		}
	}
	err := state.Store{Dir: r.stateDir()}.Update(ev.SessionID, func(s *state.Session) error {
		var sn seen
		if !s.Get(sessionSlot, &sn) || !news(sn) {
			return nil
		}
		sn.Changed = true
		for _, p := range edited {
			switch {
			case sn.Many || slices.Contains(sn.Edited, p):
			case len(sn.Edited) >= maxEdited:
				sn.Edited, sn.Many = nil, true
			default:
				sn.Edited = append(sn.Edited, p)
			}
		}
		return s.Put(sessionSlot, sn)
	})
	if err != nil {
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
	}
}

// sessionStart is what was seen of the session's start, for the checks
// that narrow what they run to what the agent changed since (a
// workspace's packages, see checkers.SessionStart); nil where no start
// was seen, or the config holds the agent for what it did not change
// ("hold_unchanged").
func (r *run) sessionStart(c *config.Config) *checkers.SessionStart {
	if c.HoldUnchanged || r.event.SessionID == "" {
		return nil
	}
	s, err := r.session()
	var sn seen
	if err != nil || !s.Get(sessionSlot, &sn) || sn.Start.IsZero() {
		return nil
	}
	return &checkers.SessionStart{At: sn.Start, Head: sn.Head, Edited: sn.Edited, EditedMany: sn.Many}
}
