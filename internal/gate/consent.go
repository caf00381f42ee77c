package gate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/consent"
	"github.com/donegate/donegate/internal/state"
)

// Consent is what a run found of the person's consent to run the
// project's commands (see package internal/consent), and what it did
// for want of it.
type Consent struct {
	// Project is the project dir consent is keyed by.
	Project string
	// Record is the person's consent; nil when there is none, or when it
	// could not be read (RecordErr).
	Record    *consent.Record
	RecordErr error
	// ConfigAllowed: the commands the config in force names may run.
	ConfigAllowed bool
	// Kept: the config file is not the one the person allowed (edited,
	// removed, added, broken), and the allowed one is in force instead.
	Kept bool
	// File is the config file found on disk ("" for none).
	File string
	// NotRun are the commands the chain did not start for want of
	// consent.
	NotRun []checkers.ProjectCommand
	// Revoked: the person took the project's consent back (closer allow
	// --revoke). Lost: the session's stops had the project's consent
	// and it is gone now, though nobody revoked it.
	Revoked, Lost bool
}

// MayRun implements checkers.Consent: a command the config names runs
// when the config in force is the allowed one; a detected one when the
// record lists it with the same definition.
func (c *Consent) MayRun(cmd checkers.ProjectCommand) bool {
	if !cmd.Detected() {
		return c.ConfigAllowed
	}
	return c.ConfigAllowed && c.Record.Allows(consent.Command{Checker: cmd.Checker, Command: cmd.Command, From: cmd.From, Definition: cmd.Definition})
}

// Withheld implements checkers.Consent: why cmd, which may not run,
// holds the agent all the same; "" where it counts as not run (a
// project nobody allowed, or whose consent the person revoked). Once
// the person allowed a project, a check that cannot run is never a pass:
// what defines a detected command changed since (the agent edited the
// Makefile, the test script, .npmrc, or added a file that detects
// another command), the record cannot be read (corrupt, a link, a FIFO),
// or it went missing during a session that had it.
func (c *Consent) Withheld(cmd checkers.ProjectCommand) string {
	var why string
	switch r := c.notRunReason(cmd); r {
	case notAllowed, revoked:
		return ""
	case unreadable:
		why = "the consent recorded for this project cannot be read (" + c.RecordErr.Error() + ")"
	case lost:
		why = "the consent this session had for this project is gone, and the person did not revoke it"
	case otherConfig:
		// Not met: an allowed record keeps the allowed config in force.
		why = "the config in force is not the one the person allowed"
	case changed:
		why = checkers.DefinedBy(c.Project, cmd.From) + " changed since the person allowed this project, and donegate runs only what they allowed"
	default:
		why = "it is new since the person allowed this project, and donegate runs only what they allowed"
	}
	return cmd.String() + " was not run: " + why + ". Your work cannot be checked until the person reviews this and runs `" + AllowCommand(c.Project) +
		"` themselves (it is theirs to run, not yours): tell them what changed and why, or undo the change so that what they allowed runs again."
}

// notRun is why a command may not run, as Withheld tells the agent and
// whyNotRun the person.
type notRun int

const (
	newCommand  notRun = iota // detected, and not in the record
	unreadable                // the record cannot be read
	lost                      // the session had consent, and it is gone
	revoked                   // the person revoked it
	notAllowed                // nobody allowed the project
	otherConfig               // a config's command, the config not the allowed one
	changed                   // detected, and what defines it changed
)

// notRunReason says why cmd, which may not run, may not.
func (c *Consent) notRunReason(cmd checkers.ProjectCommand) notRun {
	switch {
	case c.RecordErr != nil:
		return unreadable
	case c.Lost:
		return lost
	case c.Revoked:
		return revoked
	case c.Record == nil:
		return notAllowed
	case !cmd.Detected():
		return otherConfig
	}
	if _, ok := c.Record.AllowedCommand(cmd.Checker, cmd.Command, cmd.From); ok {
		return changed
	}
	return newCommand
}

// project is the run's project dir as consent resolved it, else as the
// run found it (c nil: consent was not resolved).
func (c *Consent) project(r *run) string {
	if c != nil && c.Project != "" {
		return c.Project
	}
	return r.projectDir()
}

// consentSlot is the session record's slot of the project whose consent
// the session's stops found (see lostIn).
const consentSlot = "consent"

// lostIn keeps in s, the session's record, that the session had the
// project's consent (where keep), or, where the run found none, sets
// Lost when the session had it and the person did not revoke it. c may
// be nil (a run that did not resolve consent).
func (c *Consent) lostIn(s *state.Session, keep bool) {
	if c == nil {
		return
	}
	var had string
	s.Get(consentSlot, &had)
	switch {
	case c.Record != nil && had != c.Project && keep:
		_ = s.Put(consentSlot, c.Project) // a string always encodes
	case c.Record == nil && c.RecordErr == nil && !c.Revoked:
		c.Lost = had == c.Project
	}
}

// resolveConsent reads the project's consent and returns the config to
// check with: the one loaded from file (c, or the error loading it gave)
// when the person allowed it, else the allowed one the record keeps, so
// that editing, breaking or removing the config never frees the agent.
func (r *run) resolveConsent(c *config.Config, file config.File, loadErr error) (*config.Config, *Consent, error) {
	return resolveConsent(r.stateDir(), r.projectDir(), c, file, loadErr)
}

func resolveConsent(stateDir, projectDir string, c *config.Config, file config.File, loadErr error) (*config.Config, *Consent, error) {
	cs := &Consent{Project: consent.Resolve(projectDir), File: file.Path}
	rec, err := consent.LoadResolved(stateDir, cs.Project)
	switch {
	case errors.Is(err, consent.ErrNone):
		cs.Revoked = errors.Is(err, consent.ErrRevoked)
		return c, cs, loadErr
	case err != nil:
		cs.RecordErr = err
		return c, cs, loadErr
	}
	cs.Record = rec
	if sameConfig(rec.Config, file) {
		cs.ConfigAllowed = true
		return c, cs, loadErr
	}
	allowed := config.Default()
	if rec.Config != nil {
		allowed, err = config.Parse(bytes.NewReader([]byte(rec.Config.Content)), rec.Config.Path)
		if err != nil {
			// Written by an older or newer donegate that reads it otherwise:
			// nothing allowed can be checked, and the person is told.
			cs.RecordErr = fmt.Errorf("the allowed config no longer loads: %w", err)
			return c, cs, loadErr
		}
	}
	cs.ConfigAllowed, cs.Kept = true, true
	return allowed, cs, nil
}

// sameConfig reports whether the config found is the allowed one: the
// same file with the same bytes, or the embedded default both times.
func sameConfig(allowed *consent.Config, file config.File) bool {
	if allowed == nil || file.Path == "" {
		return allowed == nil && file.Path == ""
	}
	return allowed.Path == consent.Resolve(file.Path) && file.Data != nil && consent.Digest(file.Data) == allowed.Digest
}

// consentNotice is what the person is told about consent after a run,
// "" when there is nothing to tell.
func (cs *Consent) notice() string {
	if cs == nil || (len(cs.NotRun) == 0 && !cs.Kept) {
		// An unreadable record only matters to a config that runs
		// something.
		return ""
	}
	allow := AllowCommand(cs.Project)
	var parts []string
	if cs.Record == nil && cs.RecordErr == nil && !cs.Revoked && !cs.Lost && cs.File != "" {
		// A project set up before consent existed: say what changed,
		// once, rather than go quiet.
		parts = append(parts, "donegate now runs a project's commands only where you allowed them, and "+cs.File+" was set up before that")
	}
	switch {
	case cs.RecordErr != nil:
		parts = append(parts, fmt.Sprintf("donegate cannot use the consent recorded for %s (%v)", cs.Project, cs.RecordErr))
	case cs.Kept:
		what := "the config file " + cs.File + " is not the one you allowed"
		switch {
		case cs.File == "":
			what = "the config file you allowed (" + cs.Record.Config.Path + ") is gone"
		case cs.Record.Config == nil:
			what = "a config file, " + cs.File + ", appeared since you allowed this project with the embedded default"
		}
		parts = append(parts, fmt.Sprintf("%s: donegate keeps checking with the config you allowed until you review the new one and allow it", what))
	}
	// What was not run counts as checked, or holds the agent (Withheld).
	so := [2]string{", so it checked nothing of that", ", so it checked nothing of them"}
	if len(cs.NotRun) > 0 && cs.Withheld(cs.NotRun[0]) != "" {
		so = [2]string{", and it holds the agent until you allow it or the change is undone", ", and they hold the agent until you allow them or the change is undone"}
	}
	switch n := cs.NotRun; len(n) {
	case 0:
	case 1:
		parts = append(parts, fmt.Sprintf("donegate did not run %s in %s%s%s", n[0], cs.Project, cs.whyNotRun(n[0]), so[0]))
	default:
		var cmds []string
		for _, c := range n {
			cmds = append(cmds, c.String()+cs.whyNotRun(c))
		}
		parts = append(parts, fmt.Sprintf("donegate did not run these commands in %s%s: %s", cs.Project, so[1], strings.Join(cmds, "; ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ". To allow what the project holds now, run: " + allow
}

// whyNotRun says why consent does not cover cmd, after its name.
func (cs *Consent) whyNotRun(cmd checkers.ProjectCommand) string {
	switch cs.notRunReason(cmd) {
	case unreadable:
		return ": its consent record cannot be read"
	case lost:
		return ": the consent this session had is gone, and you did not revoke it"
	case revoked:
		return ": you revoked this project's consent"
	case notAllowed:
		return ": nobody has allowed this project's commands"
	case otherConfig:
		return ": the config in force is not the one you allowed"
	case changed:
		return ": " + checkers.DefinedBy(cs.Project, cmd.From) + " changed since you allowed it"
	}
	return ": new since you allowed this project"
}

// AllowCommand is the command that allows the project in dir, as the
// person is told it.
func AllowCommand(dir string) string { return "closer allow --dir " + cli.ShellQuote(dir) }

// toldSlot is the session record's slot for the notices last told to
// the person, by topic (see tellOnce).
const toldSlot = "told"

// tellOnce reports whether notice is new to the session under topic
// ("consent", "config"): told once a session, and again when it says
// something else. A dry run changes nothing and tells.
func (r *run) tellOnce(topic, notice string) bool {
	if notice == "" || r.event.SessionID == "" {
		return notice != ""
	}
	tell := true
	store := state.Store{Dir: r.stateDir(), ReadOnly: r.opts.DryRun}
	err := store.Update(r.event.SessionID, func(s *state.Session) error {
		told := stringMap{}
		if s.Get(toldSlot, &told) && told[topic] == notice {
			tell = false
			return nil
		}
		told[topic] = notice
		return s.Put(toldSlot, told)
	})
	if err != nil {
		fmt.Fprintf(r.stderr, "%s: %v\n", r.name, err)
	}
	return tell
}

// Allowed is what Allow recorded.
type Allowed struct {
	Record consent.Record
	// Config is the allowed config file, "" for the embedded default.
	Config string
	// Commands are every command the allowed config runs in the project,
	// those it names and those detected.
	Commands []checkers.ProjectCommand
	// Previous is the consent this one replaced, nil when there was none.
	Previous *consent.Record
	// Warnings say what could not be listed or read, for the person.
	Warnings []string
}

// Allow records the person's consent for the project in dir as it is
// now: the config the hooks would load there (found through l) and the
// commands detected from its files, which a hook then runs. by names what
// gave it ("closer allow"). A config that does not load is refused: what
// it runs cannot be known. Only closer, run by the person, calls it; the
// hooks never give consent.
func Allow(stateDir, dir string, l config.Lookup, by string, now time.Time) (Allowed, error) {
	cfg, file, err := config.ResolveFile(l)
	if err != nil {
		return Allowed{}, fmt.Errorf("%w; fix the config, then allow it", err)
	}
	a := Allowed{Record: consent.Record{Project: dir, AllowedAt: now.UTC(), By: by}}
	if file.Path != "" {
		a.Config = file.Path
		a.Record.Config = &consent.Config{Path: consent.Resolve(file.Path), Digest: consent.Digest(file.Data), Content: string(file.Data)}
	}
	a.Commands, err = checkers.ProjectCommands(cfg, dir)
	if err != nil {
		// A preset that detects no tool fails at every check too; what
		// could be listed is allowed, and the person told.
		a.Warnings = append(a.Warnings, "not every command could be listed: "+err.Error())
	}
	for _, c := range a.Commands {
		if c.Detected() {
			a.Record.Commands = append(a.Record.Commands, consent.Command{Checker: c.Checker, Command: c.Command, From: c.From, Definition: c.Definition})
		}
	}
	old, err := consent.Load(stateDir, dir)
	switch {
	case err == nil:
		a.Previous = old
	case !errors.Is(err, consent.ErrNone):
		a.Warnings = append(a.Warnings, "the old consent was unreadable and is replaced: "+err.Error())
	}
	if err := consent.Save(stateDir, a.Record); err != nil {
		return Allowed{}, err
	}
	return a, nil
}

// ConsentStatus is what a hook would find of consent in a project now,
// worked out without running anything: for closer doctor and closer
// check.
type ConsentStatus struct {
	Consent
	// Commands are every command the config in force runs in the project.
	Commands []checkers.ProjectCommand
	// ListErr says what could not be listed (a preset that detects no
	// tool).
	ListErr error
}

// StatusOf works out the consent status of the project in dir, its
// config found through l, as a hook there would (see resolveConsent):
// NotRun lists what a hook would not run. An error is a config that does
// not load and no allowed one to stand in for it.
func StatusOf(stateDir, dir string, l config.Lookup) (ConsentStatus, error) {
	c, file, err := config.ResolveFile(l)
	c, cs, err := resolveConsent(stateDir, dir, c, file, err)
	if err != nil {
		return ConsentStatus{Consent: *cs}, err
	}
	st := ConsentStatus{Consent: *cs}
	st.Commands, st.ListErr = checkers.ProjectCommands(c, dir)
	for _, cmd := range st.Commands {
		if !cs.MayRun(cmd) {
			st.NotRun = append(st.NotRun, cmd)
		}
	}
	return st, nil
}

// WhyNotRun says why consent does not cover cmd: "nobody has allowed this
// project's commands", "Makefile changed since you allowed it".
func (cs *Consent) WhyNotRun(cmd checkers.ProjectCommand) string {
	return strings.TrimPrefix(cs.whyNotRun(cmd), ": ")
}
