package checkers

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/donegate/donegate/internal/feedback"
)

// TestMain runs the package's tests recording every pattern a checker
// reports through Context.Fail, then fails the run if one is declared by
// no type: it would have no template to word it (TestPatternsAreDeclared
// ties the declared ones to the templates).
func TestMain(m *testing.M) {
	var mu sync.Mutex
	reported := map[string]bool{}
	onFail = func(pattern string) {
		mu.Lock()
		reported[pattern] = true
		mu.Unlock()
	}
	code := m.Run()
	declared := declaredPatterns()
	for p := range reported {
		if !slices.Contains(declared, p) {
			fmt.Fprintf(os.Stderr, "FAIL: a checker reported the failure pattern %q, which no type's Patterns declare\n", p)
			code = 1
		}
	}
	os.Exit(code)
}

// declaredPatterns returns the patterns every registered type declares,
// sorted.
func declaredPatterns() []string {
	var all []string
	for _, t := range Types() {
		all = append(all, t.Patterns...)
	}
	sort.Strings(all)
	return all
}

// TestPatternsAreDeclared: the types together declare each failure
// pattern once, and exactly those that have a built-in template and a
// rank (feedback.Patterns; its own tests hold a template to each).
func TestPatternsAreDeclared(t *testing.T) {
	declared := declaredPatterns()
	for i := 1; i < len(declared); i++ {
		if declared[i] == declared[i-1] {
			t.Errorf("two types declare the pattern %q", declared[i])
		}
	}
	ranked := slices.Clone(feedback.Patterns)
	sort.Strings(ranked)
	if !slices.Equal(declared, ranked) {
		t.Errorf("the types declare the patterns %v; feedback.Patterns ranks %v", declared, ranked)
	}
	for _, p := range declared {
		if _, err := os.Stat("../internal/feedback/templates/" + p + ".tmpl"); err != nil {
			t.Errorf("pattern %q has no built-in template: %v", p, err)
		}
	}
}
