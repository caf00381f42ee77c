package checkers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/donegate/donegate/config"
)

// ProjectCommand is a process a checker would start in the project: a
// command the config names, or one detected from the project's files.
// The hooks run one only with the person's consent (see Consent).
type ProjectCommand struct {
	// Checker is the type of the checker that runs it ("test", "lint").
	Checker string `json:"checker"`
	// Command is what runs, as the person reads it: "make test", an
	// external checker's argv.
	Command string `json:"command"`
	// From is the file a detected command was detected from ("Makefile",
	// "go.mod"); "" for a command the config names, which the config's
	// own consent covers.
	From string `json:"from,omitempty"`
	// Definition is the digest of what defines a detected command beyond
	// its words (see testDefinition): "" where no file of the project
	// changes what the command is.
	Definition string `json:"definition,omitempty"`
}

// Detected reports whether the command was detected from the project's
// files rather than named by the config.
func (p ProjectCommand) Detected() bool { return p.From != "" }

// String is the command as a message names it: "`make test` (test,
// detected from Makefile)".
func (p ProjectCommand) String() string {
	if p.Detected() {
		return fmt.Sprintf("`%s` (%s, detected from %s)", p.Command, p.Checker, p.From)
	}
	return fmt.Sprintf("`%s` (%s)", p.Command, p.Checker)
}

// Consent says whether a command of the project may run. The hooks pass
// the person's recorded consent (see package internal/consent); a nil
// Consent in a Context lets everything run, as for closer check, which the
// person runs themselves.
type Consent interface {
	MayRun(ProjectCommand) bool
	// Withheld says why a command that may not run holds the agent all
	// the same (its words to the agent); "" where it counts as not run.
	Withheld(ProjectCommand) string
}

// mayRun asks c's Consent about cmd. When it may not run, it is recorded
// for NotRun and the result to return instead says so: where the
// Consent withholds it, open work naming why; else complete, and NotRun,
// so that the chain neither passes nor holds on a check it did not run.
func (c *Context) mayRun(cmd ProjectCommand) (Result, bool) {
	if c.Consent == nil || c.Consent.MayRun(cmd) {
		return Result{}, true
	}
	c.notesMu.Lock()
	if !slices.Contains(c.notRun, cmd) {
		c.notRun = append(c.notRun, cmd)
	}
	c.notesMu.Unlock()
	if why := c.Consent.Withheld(cmd); why != "" {
		return Result{NotRun: true, Feedback: why}, false
	}
	return Result{Complete: true, NotRun: true,
		Feedback: fmt.Sprintf("Not run: %s needs the person's consent in this project (closer allow).", cmd)}, false
}

// NotRun returns the commands the run did not start for want of consent,
// in the order the chain reached them.
func (c *Context) NotRun() []ProjectCommand {
	c.notesMu.Lock()
	defer c.notesMu.Unlock()
	return slices.Clone(c.notRun)
}

// ProjectCommands lists every command the checkers of cfg would run in
// the project in dir, at any event, in the config's order, each once:
// what `closer allow` records and what doctor and explain show.
// Detection reads the project's files as a check does.
func ProjectCommands(cfg *config.Config, dir string) ([]ProjectCommand, error) {
	var out []ProjectCommand
	var errs []string
	config.EachChecker(cfg.Checkers, func(path string, spec config.Checker) {
		t, ok := LookupType(spec.Type)
		if !ok || t.Commands == nil {
			return
		}
		cmds, err := t.Commands(spec, dir)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s (%s): %v", path, spec.Label(), err))
			return
		}
		for _, c := range cmds {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	})
	if len(errs) > 0 {
		return out, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}

// commands sets t's Commands from f, which lists what a checker of
// options o runs in dir.
func commands[O any](t *Type, f func(o *O, dir string) ([]ProjectCommand, error)) {
	t.Commands = func(spec config.Checker, dir string) ([]ProjectCommand, error) {
		o, _ := spec.Options.(*O)
		if o == nil {
			o = new(O)
		}
		return f(o, dir)
	}
}
