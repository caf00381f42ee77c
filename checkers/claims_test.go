package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/internal/feedback"
	"github.com/donegate/donegate/internal/proc"
)

// TestClaims: a claim of true is checked by its checker, one of false or
// none is not; each refuted claim is named with the checker's evidence.
func TestClaims(t *testing.T) {
	needSh(t)
	// Each claim's checker leaves a mark when it runs, so the test sees
	// which ran.
	claim := func(path, name, cmd string) string {
		return `{"path":"` + path + `","checker":{"type":"command","name":"` + name + `","on":["stop"],"command":"touch ran-` + name + `; ` + cmd + `"}}`
	}
	tests := []struct {
		name, output string
		claims       []string
		complete     bool
		ran          []string
		feedback     []string // in order
	}{
		{"true claims that hold", "completed-all-claims",
			[]string{claim("validation.tests_passed", "tests", "true"), claim("validation.git_clean", "clean", "true")},
			true, []string{"clean", "tests"}, []string{"The structured output's claims hold: validation.tests_passed, validation.git_clean."}},
		{"a false claim", "completed-all-claims",
			[]string{claim("validation.tests_passed", "tests", "echo 'FAIL: TestParse (0.00s)'; exit 1"), claim("validation.git_clean", "clean", "true")},
			false, []string{"clean", "tests"}, []string{
				"Your StructuredOutput output claims what is not so. Make each claim below true (fix the work) or report it as false, then call StructuredOutput again.\n\n- validation.tests_passed is true, but ",
				"FAIL: TestParse (0.00s)"}},
		{"every false claim, together", "completed-all-claims",
			[]string{claim("validation.tests_passed", "tests", "echo tests-broken; exit 1"), claim("validation.lint_passed", "lint", "echo lint-broken; exit 3"), claim("validation.git_clean", "clean", "true")},
			false, []string{"clean", "lint", "tests"}, []string{"- validation.tests_passed is true, but ", "tests-broken", "- validation.lint_passed is true, but ", "lint-broken"}},
		{"claims of false and absent claims are not checked", "blocked",
			[]string{claim("validation.tests_passed", "tests", "exit 1"), claim("validation.lint_passed", "lint", "exit 1")},
			true, nil, []string{"The structured output makes none of the claims donegate verifies."}},
		{"only the true claim is checked", "completed-lint-false",
			[]string{claim("validation.tests_passed", "tests", "true"), claim("validation.lint_passed", "lint", "exit 1")},
			true, []string{"tests"}, []string{"The structured output's claims hold: validation.tests_passed."}},
		{"a string is not a claim of true", "completed-all-claims",
			[]string{claim("summary", "summary", "exit 1")},
			true, nil, []string{"The structured output makes none"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ch := build(t, `{"type":"claims","claims":[`+strings.Join(tt.claims, ",")+`]}`)
			c := &checkers.Context{Event: structured(t, tt.output), Reason: checkers.ReasonToolUse, ProjectDir: dir}
			r, err := ch.Check(context.Background(), c)
			require.NoError(t, err)
			assert.Equal(t, tt.complete, r.Complete, r.Feedback)
			last := 0
			for _, f := range tt.feedback {
				i := strings.Index(r.Feedback[last:], f)
				require.GreaterOrEqual(t, i, 0, "%q after %d in:\n%s", f, last, r.Feedback)
				last += i + len(f)
			}
			var ran []string
			marks, _ := filepath.Glob(filepath.Join(dir, "ran-*"))
			for _, m := range marks {
				ran = append(ran, strings.TrimPrefix(filepath.Base(m), "ran-"))
			}
			assert.Equal(t, tt.ran, ran, "the checkers that ran")
			if !tt.complete {
				assert.Equal(t, "claim-false", r.Pattern)
			}
		})
	}
}

// TestClaimsRunTogether: the claims' checkers run at once, so three slow
// ones take the time of one. Each command waits for the other two to have
// started: run one after another, the first waits in vain until the
// deadline, and the runner saw one at a time.
func TestClaimsRunTogether(t *testing.T) {
	var claims []string
	for _, p := range []string{"validation.tests_passed", "validation.lint_passed", "validation.git_clean"} {
		claims = append(claims, `{"path":"`+p+`","checker":{"type":"command","command":"exit 1"}}`)
	}
	ch := build(t, `{"type":"claims","claims":[`+strings.Join(claims, ",")+`]}`)
	runner := newGatheringRunner(3)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := ch.Check(ctx, &checkers.Context{Event: structured(t, "completed-all-claims"), ProjectDir: t.TempDir(), Runner: runner})
	require.NoError(t, err)
	assert.False(t, r.Complete)
	assert.Equal(t, 3, runner.most(), "commands running at once")
	assert.Equal(t, 3, strings.Count(r.Feedback, " is true, but "), r.Feedback)
}

// gatheringRunner is a Runner whose commands each wait until want of them
// are running at once (or for the end of their context), and which
// records how many ever ran at once: proof of running together that does
// not depend on how fast the machine is.
type gatheringRunner struct {
	want     int
	gathered chan struct{} // closed once want commands are running
	gather   sync.Once

	mu      sync.Mutex
	running int
	max     int
}

func newGatheringRunner(want int) *gatheringRunner {
	return &gatheringRunner{want: want, gathered: make(chan struct{})}
}

func (g *gatheringRunner) Run(ctx context.Context, _ proc.Command) (proc.Outcome, error) {
	g.mu.Lock()
	g.running++
	g.max = max(g.max, g.running)
	if g.running == g.want {
		g.gather.Do(func() { close(g.gathered) })
	}
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.running--
		g.mu.Unlock()
	}()
	select {
	case <-g.gathered:
	case <-ctx.Done():
	}
	return proc.Outcome{ExitCode: 1}, nil
}

func (g *gatheringRunner) most() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}

// TestClaimsUnchecked: a claim whose checker cannot run is an error of
// the check, unless another claim is refuted: then that is the finding,
// and the unverified claim is named beside it.
func TestClaimsUnchecked(t *testing.T) {
	needSh(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.sh"), []byte("#!/bin/sh\necho not json\n"), 0o755))
	broken := `{"path":"validation.git_clean","checker":{"type":"external","command":["./broken.sh"]}}`
	ev := structured(t, "completed-all-claims")

	ch := build(t, `{"type":"claims","claims":[`+broken+`]}`)
	_, err := ch.Check(context.Background(), &checkers.Context{Event: ev, ProjectDir: dir})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "claims: claim validation.git_clean: external:")

	ch = build(t, `{"type":"claims","claims":[`+broken+`,{"path":"validation.tests_passed","checker":{"type":"command","command":"echo red; exit 1"}}]}`)
	r, err := ch.Check(context.Background(), &checkers.Context{Event: ev, ProjectDir: dir})
	require.NoError(t, err)
	assert.False(t, r.Complete)
	assert.Contains(t, r.Feedback, "- validation.tests_passed is true, but ")
	assert.Contains(t, r.Feedback, "Not verified, the checker could not run: validation.git_clean (external could not run: ")
}

// TestClaimsShareTheContext: the claims' checkers run at once on the one
// Context of the run: its look at the tree, its result cache, the
// session's state (a baseline, a phase) and the record of the user's
// templates that failed to render. The race detector (make test runs
// with -race) sees any of them written unguarded; the broken template,
// failing in two claims at once, is reported once.
func TestClaimsShareTheContext(t *testing.T) {
	dir := gitRepo(t, map[string]string{"a.txt": "a"})
	tmpl := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tmpl, "command-failed.tmpl"), []byte("{{.NoSuchParam}}"), 0o600))
	set, err := feedback.Load(tmpl)
	require.NoError(t, err)
	claims := []string{
		`{"path":"validation.tests_passed","checker":{"type":"test","command":"exit 0"}}`,
		`{"path":"validation.git_clean","checker":{"type":"git-clean"}}`,
		`{"path":"validation.lint_passed","checker":{"type":"git-commits"}}`,
		`{"path":"validation.type_check_passed","checker":{"type":"command","command":"echo one; exit 1"}}`,
		`{"path":"validation.format_check_passed","checker":{"type":"command","command":"echo two; exit 1"}}`,
		`{"path":"status","checker":{"type":"phase"}}`,
	}
	ch := build(t, `{"type":"claims","claims":[`+strings.Join(claims, ",")+`]}`)
	ev := *structured(t, "completed-all-claims")
	ev.ToolInput = []byte(`{"status":true,"validation":{"tests_passed":true,"git_clean":true,"lint_passed":true,"type_check_passed":true,"format_check_passed":true}}`)
	state := t.TempDir()
	c := &checkers.Context{Event: &ev, Reason: checkers.ReasonToolUse, ProjectDir: dir, StateDir: state,
		CacheDir: filepath.Join(state, "results"), Templates: set}
	r, err := ch.Check(context.Background(), c)
	require.NoError(t, err)
	assert.Equal(t, "claim-false", r.Pattern, r.Feedback)
	for _, refuted := range []string{"validation.lint_passed", "validation.type_check_passed", "validation.format_check_passed", "status"} {
		assert.Contains(t, r.Feedback, "- "+refuted+" is true, but ")
	}
	assert.NotContains(t, r.Feedback, "- validation.tests_passed is true")
	assert.NotContains(t, r.Feedback, "- validation.git_clean is true")
	terr := c.TemplateError()
	require.Error(t, terr)
	assert.Equal(t, 1, strings.Count(terr.Error(), "NoSuchParam\""), terr.Error())
}
