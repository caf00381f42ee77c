package checkers_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/proc"
)

// denyAll is the consent of a project nobody allowed.
type denyAll struct{ asked []checkers.ProjectCommand }

func (d *denyAll) MayRun(c checkers.ProjectCommand) bool {
	d.asked = append(d.asked, c)
	return false
}

func (d *denyAll) Withheld(checkers.ProjectCommand) string { return "" }

// projectWithEverySign is a project dir where every detection finds its
// command: a Go module, a Makefile, package.json, ruff and mypy settings.
func projectWithEverySign(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":         "module m\n",
		"Makefile":       "test:\n\ttrue\n",
		"package.json":   `{"scripts":{"test":"jest"}}`,
		"pyproject.toml": "[tool.ruff]\n[tool.mypy]\n",
		"Cargo.toml":     "[package]\n",
		"tsconfig.json":  "{}",
	}
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644))
	}
	return dir
}

// TestEveryCommandNeedsConsent: every registered type, configured as its
// Example writes it, starts no process when consent is refused, and a
// type that starts one with consent lists what it starts (Type.Commands),
// so that closer allow can record it and doctor show it.
func TestEveryCommandNeedsConsent(t *testing.T) {
	for _, typ := range checkers.Types() {
		t.Run(typ.Name, func(t *testing.T) {
			cfg, err := config.Parse(strings.NewReader(`{"checkers":[`+typ.Example+`]}`), "example")
			require.NoError(t, err)
			dir := projectWithEverySign(t)
			run := func(consent checkers.Consent) (*fakeRunner, checkers.Result) {
				ch, err := checkers.New(cfg.Checkers[0])
				require.NoError(t, err)
				runner := &fakeRunner{out: fakeOutcome}
				cc := &checkers.Context{
					Event:      &hookio.Event{SessionID: "s1", HookEventName: hookio.EventStop, ToolName: "StructuredOutput", ToolInput: []byte(`{"validation":{"tests_passed":true}}`)},
					ProjectDir: dir, Reason: checkers.ReasonStop, Budget: time.Minute,
					Runner: runner, Consent: consent,
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				res, _ := ch.Check(ctx, cc)
				return runner, res
			}
			deny := &denyAll{}
			runner, res := run(deny)
			assert.Zero(t, runner.runs, "%s started %v without consent", typ.Name, runner.got.Args)
			if len(deny.asked) > 0 {
				assert.True(t, res.Complete && res.NotRun, "a check that did not run neither holds nor passes: %+v", res)
			}
			runner, _ = run(nil)
			if runner.runs == 0 {
				return
			}
			// What it starts is listed, by its type or by the checkers it
			// holds (a claim's checker).
			cmds, err := checkers.ProjectCommands(cfg, dir)
			require.NoError(t, err)
			assert.NotEmpty(t, cmds, "%s starts processes: it must list them (Type.Commands)", typ.Name)
			assert.NotEmpty(t, deny.asked, "%s must ask consent before it starts a process", typ.Name)
		})
	}
}

// TestNotRunIsNoAlternativeDone: in an "any" composite a member that did
// not run for want of consent is skipped, so that the other alternative
// decides; with none other, nothing holds.
func TestNotRunIsNoAlternativeDone(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name     string
		config   string
		complete bool
	}{
		{"any: the open alternative decides", `{"checkers":[{"type":"composite","mode":"any","checkers":[{"type":"test","command":"true"},{"type":"files","paths":["missing"]}]}]}`, false},
		{"any: nothing else, nothing holds", `{"checkers":[{"type":"composite","mode":"any","checkers":[{"type":"test","command":"true"}]}]}`, true},
		{"all: not run never holds", `{"checkers":[{"type":"test","command":"false"},{"type":"files","paths":["."]}]}`, true},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse(strings.NewReader(tt.config), "c")
			require.NoError(t, err)
			chain, err := checkers.FromConfig(cfg, checkers.ReasonStop)
			require.NoError(t, err)
			runner := &fakeRunner{out: fakeOutcome}
			cc := &checkers.Context{ProjectDir: dir, Reason: checkers.ReasonStop, Runner: runner, Consent: &denyAll{}}
			res, err := chain.Check(context.Background(), cc)
			require.NoError(t, err)
			assert.Equal(t, tt.complete, res.Complete, res.Feedback)
			assert.Zero(t, runner.runs)
			assert.NotEmpty(t, cc.NotRun())
		})
	}
}

// fakeOutcome is a command that ran and failed.
var fakeOutcome = proc.Outcome{ExitCode: 1, Output: []byte("FAIL\n")}
