package closer

import (
	"fmt"
	"strings"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/gate"
)

// consentStatus is what a hook in r.dir would find of the person's
// consent (see gate.StatusOf).
func (r *runCtx) consentStatus() (gate.ConsentStatus, error) {
	l := config.Lookup{Flag: r.opts.configPath, Env: r.env.Getenv("DONEGATE_CONFIG"), ProjectDir: r.dir}
	return gate.StatusOf(r.stateDir(), r.dir, l)
}

// allowFix is the command that allows the project in r.dir.
func (r *runCtx) allowFix() string {
	fix := "review the project's commands, then run " + gate.AllowCommand(r.dir)
	if r.opts.configPath != "" {
		fix += " --config " + cli.ShellQuote(r.opts.configPath)
	}
	return fix
}

// doctorConsent reports whether the hooks may run what the config runs.
func (r *runCtx) doctorConsent(rep *DoctorReport) {
	st, err := r.consentStatus()
	if err != nil {
		return // the config finding says so
	}
	fix := r.allowFix()
	switch {
	case st.RecordErr != nil:
		rep.add("consent", statusFail, fix, "the consent recorded for this project cannot be used: %v", st.RecordErr)
	case st.Kept:
		rep.add("consent", statusFail, fix, "%s is not the config you allowed: the hooks keep checking with the allowed one (%s)", displayOr(r, st.File, "the embedded default"), displayOr(r, allowedPath(st), "the embedded default"))
	}
	switch {
	case len(st.Commands) == 0 && st.ListErr == nil:
		rep.add("consent", statusOK, "", "the config runs no command of the project: nothing to allow")
	case st.Record == nil && st.RecordErr == nil:
		rep.add("consent", statusFail, fix, "nobody allowed the hooks to run this project's commands: %s; until then the hooks run none of them and hold the agent on none", commandList(st.NotRun))
	case len(st.NotRun) > 0:
		for _, c := range st.NotRun {
			held := "the hooks do not run it"
			if st.Withheld(c) != "" {
				held += ", and hold the agent until you allow it or the change is undone"
			}
			rep.add("consent", statusFail, fix, "%s: %s; %s", c, st.WhyNotRun(c), held)
		}
	default:
		rep.add("consent", statusOK, "", "the hooks may run %s (allowed by %s at %s)", commandList(st.Commands), st.Record.By, st.Record.AllowedAt.Format("2006-01-02 15:04 MST"))
	}
	if st.ListErr != nil {
		rep.add("consent", statusWarn, "", "not every command could be listed: %v", st.ListErr)
	}
}

// consentNote is what closer check says of the hooks' consent: "" when
// they would run everything it ran.
func (r *runCtx) consentNote() string {
	st, err := r.consentStatus()
	if err != nil || (len(st.NotRun) == 0 && !st.Kept && st.RecordErr == nil) {
		return ""
	}
	var why []string
	if st.Kept {
		why = append(why, "the config is not the one you allowed (the hooks check with the allowed one)")
	}
	// One clause per reason, naming its commands.
	var reasons []string
	byReason := map[string][]checkers.ProjectCommand{}
	for _, c := range st.NotRun {
		w := st.WhyNotRun(c)
		if _, ok := byReason[w]; !ok {
			reasons = append(reasons, w)
		}
		byReason[w] = append(byReason[w], c)
	}
	for _, w := range reasons {
		why = append(why, fmt.Sprintf("the hooks would not run %s: %s", commandList(byReason[w]), w))
	}
	if st.RecordErr != nil {
		why = append(why, st.RecordErr.Error())
	}
	return strings.Join(why, "; ") + "; " + gate.AllowCommand(r.dir) + " allows them"
}

func allowedPath(st gate.ConsentStatus) string {
	if st.Record == nil || st.Record.Config == nil {
		return ""
	}
	return st.Record.Config.Path
}

func displayOr(r *runCtx, path, none string) string {
	if path == "" {
		return none
	}
	return r.display(path)
}

func commandList(cmds []checkers.ProjectCommand) string {
	s := make([]string, len(cmds))
	for i, c := range cmds {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}
