package checkers

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/donegate/donegate/internal/proc"
	"github.com/donegate/donegate/internal/treecache"
)

// tree is one run's look at the working tree, shared by every checker of
// the run that needs it: the result cache's key (test, and any cached
// command) and git-clean read the same `git status` and the same
// fingerprint. A Stop fires on every turn, and on a large repository
// one look (a git status) costs several times the rest of the hook.
//
// A look is taken at most once per generation; every command a checker
// runs through Context.runner starts a new one, since the command may have
// written files. Its zero value is ready, and it is safe for the members
// of a parallel composite, which share one look taken before any of their
// commands ends. A look cut short by a caller's context is not kept: the
// next caller, with time of its own, takes it again.
type tree struct {
	once sync.Once
	sem  chan struct{} // held while a look is taken, so it is taken once

	mu        sync.Mutex
	gen       int // bumped by every command run
	lookGen   int
	status    *treecache.Status
	statusErr error
	haveState bool
	state     string
	stateErr  error
}

// acquire waits for the right to take a look, or for ctx's end.
func (t *tree) acquire(ctx context.Context) error {
	t.once.Do(func() { t.sem = make(chan struct{}, 1) })
	select {
	case t.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *tree) release() { <-t.sem }

// changed records that a command ran: the next look is a new one.
func (t *tree) changed() {
	t.mu.Lock()
	t.gen++
	t.mu.Unlock()
}

// GitStatus returns git's view of the working tree at c.ProjectDir, taken
// once per generation (see tree): the checks read it, and so does the
// gate's rule of a session that changed nothing, before them.
func (c *Context) GitStatus(ctx context.Context) (*treecache.Status, error) {
	t := &c.tree
	if err := t.acquire(ctx); err != nil {
		return nil, err
	}
	defer t.release()
	return t.lockedStatus(ctx, c.cache(), c.ProjectDir)
}

// lockedStatus is GitStatus for a caller that holds sem: a look through
// the cache's snapshot of the tree (treecache.Cache.ReadStatus).
func (t *tree) lockedStatus(ctx context.Context, cache treecache.Cache, dir string) (*treecache.Status, error) {
	t.mu.Lock()
	gen := t.gen
	if (t.status != nil || t.statusErr != nil) && t.lookGen == gen {
		defer t.mu.Unlock()
		return t.status, t.statusErr
	}
	t.mu.Unlock()
	st, err := cache.ReadStatus(ctx, dir)
	if err != nil && ended(err) {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lookGen, t.status, t.statusErr, t.haveState = gen, st, err, false
	return st, err
}

// treeState fingerprints the working tree at c.ProjectDir for the result
// cache, once per generation (see tree), within its share of the time a
// command with timeout own would have (see fingerprintShare).
func (c *Context) treeState(ctx context.Context, own time.Duration) (string, error) {
	share := own
	if d, ok := ctx.Deadline(); ok {
		share = min(share, time.Until(d))
	}
	ctx, cancel := context.WithTimeout(ctx, share/fingerprintShare)
	defer cancel()
	return c.TreeState(ctx)
}

// TreeState is the fingerprint of the working tree at c.ProjectDir (see
// treecache.Cache.StateOf), from the run's shared look: taken again only
// when a command ran since the last look, so a caller after the checks
// (the gate's look for progress) costs no git process when the checks'
// last look stands.
func (c *Context) TreeState(ctx context.Context) (string, error) {
	t := &c.tree
	if err := t.acquire(ctx); err != nil {
		return "", err
	}
	defer t.release()
	st, err := t.lockedStatus(ctx, c.cache(), c.ProjectDir)
	if err != nil {
		return "", err
	}
	t.mu.Lock()
	if t.haveState && t.lookGen == t.gen && t.status == st {
		defer t.mu.Unlock()
		return t.state, t.stateErr
	}
	t.mu.Unlock()
	state, err := c.cache().StateOf(ctx, st)
	if err != nil && ended(err) {
		return "", err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status == st {
		t.haveState, t.state, t.stateErr = true, state, err
	}
	return state, err
}

// ended reports whether err is a context's end, which says nothing about
// the tree.
func ended(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

// treeRunner is a Runner that starts a new generation of the tree after
// each command: a command may write files.
type treeRunner struct {
	Runner
	tree    *tree
	session string
}

// Run runs cmd with the recursion guard in its environment: a donegate
// hook started inside it (a test suite that runs Claude Code) must not
// check the very session being checked. Every command a checker runs goes
// through here, so no checker can leave the guard out.
func (r treeRunner) Run(ctx context.Context, cmd proc.Command) (proc.Outcome, error) {
	defer r.tree.changed()
	if r.session != "" {
		cmd.Env = append(append([]string{}, cmd.Env...), proc.GuardEnv+"="+r.session)
	}
	return r.Runner.Run(ctx, cmd)
}
