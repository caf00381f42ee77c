package feedback

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"text/template"
	"text/template/parse"
	"time"
)

// A retry template is a user's program run by every hook that words a
// failure. text/template itself bounds none of what such a program can
// do: a {{template}} that calls itself recurses until the goroutine's
// stack overflows, which kills the process with exit 2 (Claude Code then
// hands the crash trace to the model as a reason to go on); a range over
// 100000000000 runs for hours; a {{define}} chain where each template
// calls the next twice runs 2^n steps; and nothing stops the output
// growing (a 200 MB rendering took 6 s and 720 MB). So a template is
// checked when it is loaded (checkBounds) and run under a deadline and an
// output limit (executeBounded).

const (
	// maxNesting bounds how deep actions nest in a template, counting
	// those of the templates it calls ({{if}} in {{range}} in a
	// {{template}}'s body is 3) and parenthesised pipelines. The built-in
	// templates nest at most 9 deep; text/template runs each level on the
	// goroutine's stack.
	maxNesting = 100
	// maxSteps bounds the actions a template runs that can be counted at
	// load: a range over a number literal runs its body that many times,
	// a {{template}} runs its callee's. Ranges over parameters are
	// bounded by the parameters and by the render deadline.
	maxSteps = 1_000_000
	// maxRenderBytes bounds what a user's template writes: the hooks cut
	// a reason to 8,000 characters (hookio), at most 32 KB of UTF-8.
	maxRenderBytes = 64 << 10
	// maxRenderTime bounds a user's rendering when the hook's budget
	// leaves more (or gives no deadline): the built-in templates render
	// in microseconds.
	maxRenderTime = 2 * time.Second
	// minRenderTime is what a user's template is given when the budget
	// is (nearly) spent: a test command stopped by the budget is worded
	// after it ran out, and should still be worded as the user wrote.
	minRenderTime = 100 * time.Millisecond
)

// checkBounds refuses a template whose {{template}} calls form a cycle
// (the cycle is named), whose actions nest deeper than maxNesting, or
// which runs more than maxSteps counted at load.
func checkBounds(t *template.Template) error {
	b := &bounder{trees: map[string]*parse.Tree{}, seen: map[string]bounded{}, onStack: map[string]bool{}}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			b.trees[tt.Name()] = tt.Tree
		}
	}
	// Every tree, not only the file's own: a {{define}} that nothing
	// calls still may not be a cycle.
	names := []string{t.Name()}
	for _, tt := range t.Templates() {
		if tt.Name() != t.Name() {
			names = append(names, tt.Name())
		}
	}
	for _, name := range names {
		if _, ok := b.trees[name]; !ok {
			continue
		}
		r, err := b.template(name)
		if err != nil {
			return err
		}
		if r.depth > maxNesting {
			return fmt.Errorf("template %q nests actions %d deep, counting the templates it calls (at most %d)", name, r.depth, maxNesting)
		}
		if r.steps > maxSteps {
			return fmt.Errorf("template %q runs more than %d actions (a range over a large number, or {{template}} calls that multiply)", name, maxSteps)
		}
	}
	return nil
}

// bounded is what a node costs: how deep actions nest in it and how many
// it runs (saturating at math.MaxInt64: a chain of calls can count past
// it).
type bounded struct {
	depth int
	steps int64
}

// bounder walks the parse trees of one template file.
type bounder struct {
	trees   map[string]*parse.Tree
	seen    map[string]bounded
	onStack map[string]bool
	stack   []string
}

// template is what running the named template costs; an error when its
// calls lead back to it.
func (b *bounder) template(name string) (bounded, error) {
	if r, ok := b.seen[name]; ok {
		return r, nil
	}
	if b.onStack[name] {
		i := len(b.stack) - 1
		for b.stack[i] != name {
			i--
		}
		cycle := append(append([]string{}, b.stack[i:]...), name)
		for j, n := range cycle {
			cycle[j] = fmt.Sprintf("%q", n)
		}
		return bounded{}, fmt.Errorf("{{template}} calls form a cycle: %s", strings.Join(cycle, " -> "))
	}
	tree := b.trees[name]
	if tree == nil || tree.Root == nil {
		// Running it fails with text/template's own error.
		return bounded{depth: 0, steps: 1}, nil
	}
	b.onStack[name] = true
	b.stack = append(b.stack, name)
	r, err := b.node(tree.Root)
	b.stack = b.stack[:len(b.stack)-1]
	delete(b.onStack, name)
	if err != nil {
		return bounded{}, err
	}
	b.seen[name] = r
	return r, nil
}

// node is what running n costs.
func (b *bounder) node(n parse.Node) (bounded, error) {
	var r bounded
	// add counts c, a part of n, in r.
	add := func(c bounded) {
		r.depth = max(r.depth, c.depth)
		r.steps = addSteps(r.steps, c.steps)
	}
	switch n := n.(type) {
	case nil:
		return r, nil
	case *parse.ListNode:
		if n == nil {
			return r, nil
		}
		for _, c := range n.Nodes {
			cr, err := b.node(c)
			if err != nil {
				return r, err
			}
			add(cr)
		}
		return r, nil
	case *parse.ActionNode:
		r, err := b.node(n.Pipe)
		r.depth++
		return r, err
	case *parse.IfNode, *parse.WithNode, *parse.RangeNode:
		var br *parse.BranchNode
		times := int64(1)
		switch n := n.(type) {
		case *parse.IfNode:
			br = &n.BranchNode
		case *parse.WithNode:
			br = &n.BranchNode
		case *parse.RangeNode:
			br = &n.BranchNode
			times = rangeTimes(n.Pipe)
		}
		for _, c := range []parse.Node{br.Pipe, br.ElseList} {
			cr, err := b.node(c)
			if err != nil {
				return r, err
			}
			add(cr)
		}
		cr, err := b.node(br.List)
		if err != nil {
			return r, err
		}
		// Each time round costs a step, even with an empty body.
		cr.steps = mulSteps(addSteps(cr.steps, 1), times)
		add(cr)
		r.depth++
		r.steps = addSteps(r.steps, 1)
		return r, nil
	case *parse.TemplateNode:
		pr, err := b.node(n.Pipe)
		if err != nil {
			return r, err
		}
		add(pr)
		cr, err := b.template(n.Name)
		if err != nil {
			return r, err
		}
		add(cr)
		r.depth++
		r.steps = addSteps(r.steps, 1)
		return r, nil
	case *parse.PipeNode:
		if n == nil {
			return r, nil
		}
		for _, cmd := range n.Cmds {
			for _, arg := range cmd.Args {
				cr, err := b.nested(arg)
				if err != nil {
					return r, err
				}
				add(cr)
			}
		}
		r.steps = addSteps(r.steps, 1)
		return r, nil
	case *parse.ChainNode:
		return b.nested(n.Node)
	}
	// Text, comments, fields, variables, literals, break and continue.
	return bounded{steps: 1}, nil
}

// nested is what n costs, one level deeper when n is a parenthesised
// pipeline.
func (b *bounder) nested(n parse.Node) (bounded, error) {
	r, err := b.node(n)
	if _, ok := n.(*parse.PipeNode); ok {
		r.depth++
	}
	return r, err
}

// rangeTimes is how many times a range over pipe runs its body when that
// is known at load, a number literal ({{range 1000}}); 1 when it is not.
func rangeTimes(pipe *parse.PipeNode) int64 {
	if pipe == nil || len(pipe.Cmds) != 1 || len(pipe.Cmds[0].Args) != 1 {
		return 1
	}
	num, ok := pipe.Cmds[0].Args[0].(*parse.NumberNode)
	if !ok || !num.IsInt {
		return 1
	}
	return max(num.Int64, 0)
}

func addSteps(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func mulSteps(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// renderDeadline is when a user's rendering must end: deadline (the end
// of the hook's budget), but no later than maxRenderTime from now and no
// sooner than minRenderTime; maxRenderTime from now without one.
func renderDeadline(now, deadline time.Time) time.Time {
	if deadline.IsZero() || deadline.After(now.Add(maxRenderTime)) {
		return now.Add(maxRenderTime)
	}
	if deadline.Before(now.Add(minRenderTime)) {
		return now.Add(minRenderTime)
	}
	return deadline
}

// errTooLong stops a rendering that writes more than maxRenderBytes
// (TestTooLongNamesTheBound holds the number). Not fmt.Errorf: it would
// run at every hook's start (docs/performance.md).
var errTooLong = errors.New("renders more than 64 KiB")

// errCutOff stops a rendering the deadline cut off, at its next write.
var errCutOff = errors.New("cut off")

// limitedWriter keeps up to max bytes and fails a write past them, or any
// write once stop is set: text/template stops at a write error.
type limitedWriter struct {
	buf  []byte
	max  int
	stop *atomic.Bool
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	if w.stop.Load() {
		return 0, errCutOff
	}
	if len(w.buf)+len(p) > w.max {
		return 0, errTooLong
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

// executeBounded runs t on params until deadline, keeping at most
// maxRenderBytes of output, and returns the output trimmed of space.
//
// text/template cannot be interrupted, so it runs in a goroutine of its
// own. When the deadline passes, the goroutine is told to stop at its
// next write and left: a loop that writes nothing (a range over a
// parameter's large number, ranges nested over lists) runs on until the
// process exits, which for a hook is as soon as it has answered, within
// its budget. checkBounds has refused what can be counted at load.
func executeBounded(t *template.Template, params map[string]any, deadline time.Time) (string, error) {
	stop := new(atomic.Bool)
	w := &limitedWriter{max: maxRenderBytes, stop: stop}
	done := make(chan error, 1)
	go func() {
		defer func() {
			// A panic here would end the hook with exit 2.
			if p := recover(); p != nil {
				done <- fmt.Errorf("panicked: %v", p)
			}
		}()
		done <- t.Execute(w, params)
	}()
	allowed := time.Until(deadline)
	timer := time.NewTimer(allowed)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return "", err
		}
		return strings.TrimSpace(string(w.buf)), nil
	case <-timer.C:
		stop.Store(true)
		return "", fmt.Errorf("was cut off: it did not finish within %v (what was left of limits.budget, at most %v)", allowed.Round(time.Millisecond), maxRenderTime)
	}
}
