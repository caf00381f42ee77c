package closer

import (
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
)

// planToolsVar is the variable that gives Claude Code's models their plan
// tools. Measured on 2.1.330 and 2.1.331 (2026-11-24): with the default
// model, --model opus and --model haiku, the model gets no TodoWrite and
// no Task tools at all unless it is set; a chain of the plan checker alone
// then holds nobody.
const planToolsVar = "CLAUDE_CODE_ENABLE_TODO_TOOLS"

// doctorPlanOnly warns when the chain can hold the agent for nothing in
// practice: it checks only the agent's plan (a test checker
// without a command counts for nothing when the project names no test
// command), and the model has no plan tool, as neither the environment
// nor any settings file's "env" sets CLAUDE_CODE_ENABLE_TODO_TOOLS.
func (r *runCtx) doctorPlanOnly(rep *DoctorReport, c *config.Config) {
	if c == nil {
		return
	}
	var noTests string
	for _, s := range c.Checkers {
		switch {
		case s.Type == "plan":
			continue
		case s.Type == "test" && s.Options.(*checkers.TestOptions).Command == "":
			if d, err := checkers.DetectTestCommand(r.dir); err == nil && d.Command == "" {
				noTests = " (no test command detected in " + r.dir + ": looked for " + checkers.TestSigns() + ")"
				continue
			}
		}
		return // another checker holds the agent for something
	}
	if r.planToolsEnabled() {
		return
	}
	rep.add("config", statusWarn,
		`give the model its plan tools: add "env": {"`+planToolsVar+`": "1"} to .claude/settings.json (or export `+planToolsVar+`=1 before claude); or add checks the project can fail: closer init writes the test command and the type-check, lint and format presets it has tools for`,
		"the chain holds the agent for nothing in practice: it checks only the agent's plan%s, and %s is set neither in the environment nor in any settings file's \"env\"; without it Claude Code (2.1.330, 2.1.331) gives the default models no TodoWrite and no Task tools, so there is never a plan to check",
		noTests, planToolsVar)
}

// planToolsEnabled reports whether CLAUDE_CODE_ENABLE_TODO_TOOLS is on for
// a session started here: as the "env" of the most specific settings file
// that sets it says (local, project, user), else the process environment.
func (r *runCtx) planToolsEnabled() bool {
	files := []string{
		filepath.Join(r.dir, ".claude", "settings.local.json"),
		filepath.Join(r.dir, ".claude", "settings.json"),
		filepath.Join(r.claudeDir(""), "settings.json"),
	}
	for _, f := range files {
		data, _, err := readSettings(f)
		if err != nil || data == nil || !gjson.ValidBytes(data) {
			continue // doctorSettings reports files it cannot read
		}
		if v := gjson.GetBytes(data, "env."+planToolsVar); v.Exists() {
			return truthy(v.String())
		}
	}
	if v := r.env.Getenv(planToolsVar); v != "" {
		return truthy(v)
	}
	return false
}

// truthy is how Claude Code reads a boolean variable: 1, true, yes or on.
func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// detectedTest says, for a test checker without a command, what it runs in
// this project, so that the first stop holds no surprise: "; here `go test
// ./...`, from go.mod".
func (r *runCtx) detectedTest(s config.Checker) string {
	o, ok := s.Options.(*checkers.TestOptions)
	if !ok || o.Command != "" {
		return ""
	}
	d, err := checkers.DetectTestCommand(r.dir)
	switch {
	case err != nil:
		return "; here it cannot be detected: " + err.Error()
	case d.Command == "":
		return "; here none is detected"
	}
	return "; here `" + d.Command + "`, from " + d.From
}
