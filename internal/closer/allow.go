package closer

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/consent"
	"github.com/donegate/donegate/internal/gate"
)

var allowCommand = command{
	name: "allow",
	summary: `Allow the hooks to run the project's commands, as they are now.
The hooks run a command of the project (the config's test, command, lint,
type-check, format, external and judge checkers, and the test command
detected from its files) only where the person allowed it: closer allow
records the config file in force and each detected command with what defines
it (package.json's test scripts, the Makefile), in the state dir, never in
the project. After a change, the hooks keep checking with what was allowed
and say what changed until you run closer allow again. closer init allows
the project it sets up. --revoke takes consent back.`,
	bind: func(fs *flag.FlagSet, _ *options) runFunc {
		var o allowOptions
		fs.BoolVar(&o.revoke, "revoke", false, "take the project's consent back: the hooks run none of its commands until it is allowed again")
		return func(ctx context.Context, r *runCtx) (verdict, error) { return runAllow(ctx, r, o) }
	},
}

// allowOptions are allow's flags.
type allowOptions struct{ revoke bool }

// AllowReport is allow's answer, and its --json output.
type AllowReport struct {
	Project string `json:"project"`
	// Revoked is set by --revoke; Removed says whether there was consent
	// to take back.
	Revoked bool `json:"revoked,omitempty"`
	Removed bool `json:"removed,omitempty"`
	// Config is the allowed config file ("" for the embedded default).
	Config   string                    `json:"config"`
	Commands []checkers.ProjectCommand `json:"commands"`
	Changes  []string                  `json:"changes,omitempty"`
	Warnings []string                  `json:"warnings,omitempty"`
	Record   *consent.Record           `json:"-"`
}

func runAllow(_ context.Context, r *runCtx, o allowOptions) (verdict, error) {
	what := "allow"
	if o.revoke {
		what = "allow --revoke"
	}
	if err := r.personOnly(what); err != nil {
		return incomplete, err
	}
	if o.revoke {
		removed, err := consent.Revoke(r.stateDir(), r.dir, "closer allow --revoke", r.env.Now())
		if err != nil {
			return incomplete, errorf(ErrEnv, "%w", err)
		}
		rep := AllowReport{Project: consent.Resolve(r.dir), Revoked: true, Removed: removed, Commands: []checkers.ProjectCommand{}}
		if r.opts.json {
			return complete, writeJSON(r.stdout, rep)
		}
		p := r.printer()
		if removed {
			p.line("Revoked: the hooks run none of " + rep.Project + "'s commands until you run closer allow there again.")
		} else {
			p.line("Nothing to revoke: " + rep.Project + " was not allowed.")
		}
		return complete, p.err
	}
	rep, err := r.allow("closer allow")
	if err != nil {
		return incomplete, err
	}
	if r.opts.json {
		return complete, writeJSON(r.stdout, rep)
	}
	p := r.printer()
	p.line("Allowed the hooks to run in " + rep.Project + ":")
	for _, l := range rep.lines() {
		p.line("  " + l)
	}
	for _, c := range rep.Changes {
		p.line("Changed since the last consent: " + c + ".")
	}
	for _, w := range rep.Warnings {
		p.line("Note: " + w + ".")
	}
	p.line("After a change to these, the hooks keep checking with what you allowed and say what changed; run closer allow again to allow it, closer allow --revoke to take consent back.")
	return complete, p.err
}

// lines says what was allowed, a line each.
func (rep AllowReport) lines() []string {
	var out []string
	if rep.Config == "" {
		out = append(out, "the embedded default config (no config file)")
	} else {
		out = append(out, fmt.Sprintf("the config %s (%s) and every command it names", rep.Config, short(rep.Record.Config.Digest)))
	}
	for _, c := range rep.Commands {
		out = append(out, c.String())
	}
	if len(rep.Commands) == 0 {
		out = append(out, "no command: the config runs none here")
	}
	return out
}

// short abbreviates a digest for people.
func short(digest string) string {
	if len(digest) > len("sha256:")+12 {
		return digest[:len("sha256:")+12]
	}
	return digest
}

// allow records the person's consent for the project in r.dir as it is
// now (see gate.Allow).
func (r *runCtx) allow(by string) (AllowReport, error) {
	l := config.Lookup{Flag: r.opts.configPath, Env: r.env.Getenv("DONEGATE_CONFIG"), ProjectDir: r.dir}
	a, err := gate.Allow(r.stateDir(), r.dir, l, by, r.env.Now())
	var ce *config.Error
	switch {
	case errors.As(err, &ce) || errors.Is(err, config.ErrNotFound):
		return AllowReport{}, errorf(ErrConfig, "%w", err)
	case err != nil:
		return AllowReport{}, errorf(ErrEnv, "%w", err)
	}
	rep := AllowReport{Project: a.Record.Project, Commands: a.Commands, Warnings: a.Warnings, Record: &a.Record}
	if rep.Commands == nil {
		rep.Commands = []checkers.ProjectCommand{}
	}
	if a.Config != "" {
		rep.Config = r.display(a.Config)
	}
	if a.Previous != nil {
		rep.Changes = consentChanges(a.Previous, &a.Record)
	}
	return rep, nil
}

// consentChanges says what differs between two consents, for the person.
func consentChanges(old, now *consent.Record) []string {
	var out []string
	switch oc, nc := old.Config, now.Config; {
	case oc == nil && nc != nil:
		out = append(out, "the config file "+nc.Path+" (the embedded default before)")
	case oc != nil && nc == nil:
		out = append(out, "the embedded default config ("+oc.Path+" before)")
	case oc != nil && (oc.Path != nc.Path || oc.Digest != nc.Digest):
		out = append(out, fmt.Sprintf("the config %s (%s, was %s)", nc.Path, short(nc.Digest), short(oc.Digest)))
	}
	for _, c := range now.Commands {
		if !old.Allows(c) {
			what := "`" + c.Command + "` (detected from " + c.From + ")"
			if _, ok := old.AllowedCommand(c.Checker, c.Command, c.From); ok {
				what += ": " + c.From + " changed"
			}
			out = append(out, what)
		}
	}
	var gone []string
	for _, c := range old.Commands {
		if _, ok := now.AllowedCommand(c.Checker, c.Command, c.From); !ok {
			gone = append(gone, "`"+c.Command+"`")
		}
	}
	if len(gone) > 0 {
		out = append(out, "no longer detected: "+strings.Join(gone, ", "))
	}
	return out
}
