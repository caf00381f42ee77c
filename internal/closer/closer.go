// Package closer is the body of the closer executable: donegate's checks
// outside an agent host's hooks, for CI and for outer loops that run an
// agent again and again, and the person's commands around the hooks. One
// file per command (docs/development.md, Adding a closer command): check
// (the configured checker chain as a checklist), judge (an LLM checklist
// judge run through `claude -p --json-schema`), smart-check (the
// git-based completion check with a status probe, commit rescue), loop
// (an iteration runner with a circuit breaker), init and doctor (the
// setup, one setup_<host>.go per host), allow and release (the person's
// consent and release, refused in an agent's shell), explain and log
// (what the hooks decided, and why, through package gate's own
// Evaluate), export (the decisions to an OpenTelemetry collector).
//
// Answers from a model are decoded into Go types and checked against their
// go-playground/validator/v10 struct tags: the status probe's by validator
// itself, the judge's by package judge, which the judge checker shares and
// so checks them by hand (validator stays their reference in a test). The
// hooks must never import this package: validator's initialisation alone
// costs a hook process 4.5 ms (see startup_test.go).
//
// Exit codes are an API, mapped in one place (exitCode): 0 complete,
// 1 incomplete (or no verdict could be had from the judge or the probe),
// 2 usage, config or environment error.
package closer

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/agentshell"
	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/internal/version"
)

// Exit codes.
const (
	ExitComplete   = 0
	ExitIncomplete = 1
	ExitUsage      = 2
)

// Kinds of error that end a run with ExitUsage. Every error a subcommand
// returns wraps one of them or is reported as an environment error too:
// an error means no verdict could even be attempted.
var (
	ErrUsage  = errors.New("usage")
	ErrConfig = errors.New("config")
	ErrEnv    = errors.New("environment")
)

// kindError marks err as one of the kinds above without changing its
// message.
type kindError struct {
	kind, err error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// errorf returns fmt.Errorf(format, args...) marked as kind.
func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, err: fmt.Errorf(format, args...)}
}

// verdict is what a subcommand decided.
type verdict bool

const (
	complete   verdict = true
	incomplete verdict = false
)

// exitCode maps a subcommand's outcome to the process exit code: the one
// place that does.
func exitCode(v verdict, err error) int {
	switch {
	case err != nil:
		// Usage, config and environment errors alike: nothing was judged.
		return ExitUsage
	case v == complete:
		return ExitComplete
	}
	return ExitIncomplete
}

// Env is what a run sees of its process; tests replace it.
type Env struct {
	Getenv func(string) string
	// IsTerminal reports whether w is a terminal (colour is used only then).
	IsTerminal func(w io.Writer) bool
	Now        func() time.Time
	// Sleep waits d or until ctx ends (smart-check's probe interval).
	Sleep func(ctx context.Context, d time.Duration) error
	Stdin io.Reader // explain's event; nil reads as empty
	// AgentShell tells whether closer runs inside an agent's shell, where
	// the person's commands are refused (see personOnly); nil is
	// agentshell.Look.
	AgentShell func(getenv func(string) string) (agentshell.Found, bool)
}

// OSEnv is the real process environment.
func OSEnv() Env {
	return Env{Getenv: os.Getenv, IsTerminal: isTerminal, Now: time.Now, Sleep: sleep, Stdin: os.Stdin, AgentShell: agentshell.Look}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Version is closer's version: stamped at link time in a release, else
// the module version Go records (see internal/version).
func Version() string { return version.String() }

// command is one subcommand.
type command struct {
	name    string
	args    string // the non-flag part of its usage line
	summary string
	// noConfig hides --config from its help: it reads no config (init
	// writes one, and refuses the flag with a message saying so).
	noConfig bool
	// rest: the arguments left after the flags are the command's
	// (options.args: loop's, for claude); elsewhere one is an error.
	rest bool
	// bind registers the command's own flags on fs, into options of its
	// own (o holds those every command takes), and returns what runs the
	// command with them.
	bind func(fs *flag.FlagSet, o *options) runFunc
}

// runFunc runs a command.
type runFunc func(ctx context.Context, r *runCtx) (verdict, error)

var commands = []command{checkCommand, judgeCommand, smartCheckCommand, loopCommand, initCommand, allowCommand, doctorCommand, explainCommand, logCommand, exportCommand, releaseCommand}

const usageHead = `Usage: closer <command> [flags]

closer runs donegate's task-completion checks outside an agent host's
hooks: in CI, after an agent run, and around an agent in an outer loop;
and sets donegate up, checks the setup, and says what it decided.

Commands:
`

const usageTail = `
Every command takes --dir DIR, --json, --help and --version, and all but
init take --config FILE. Run closer <command> --help for its flags.

Exit codes: 0 complete, 1 incomplete (or the judge or probe gave no
verdict), 2 usage, config or environment error.
`

// PrintUsage writes what closer --help prints: the commands and what every
// one takes.
func PrintUsage(w io.Writer) {
	fmt.Fprint(w, usageHead)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.name, headline(c.summary))
	}
	fmt.Fprint(w, usageTail)
}

// Main runs closer with args (without the program name) and returns the
// exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer, env Env) int {
	if len(args) == 0 {
		PrintUsage(stderr)
		return ExitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		PrintUsage(stdout)
		return ExitComplete
	case "-version", "--version", "version":
		fmt.Fprintf(stdout, "closer %s\n", Version())
		return ExitComplete
	}
	for _, c := range commands {
		if c.name == args[0] {
			return runCommand(ctx, c, args[1:], stdout, stderr, env)
		}
	}
	fmt.Fprintf(stderr, "closer: unknown command %q (commands: %s; see closer --help)\n", args[0], commandNames())
	return ExitUsage
}

func commandNames() string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return strings.Join(names, ", ")
}

// options are the flags every command takes; each command's own are in
// its own options type (checkOptions, logOptions, ...), bound by its bind.
type options struct {
	configPath string
	dir        string
	json       bool
	// args are the arguments after the flags, for a command that takes
	// them (command.rest).
	args []string
}

// runCtx is one run of a command: its options and where it writes.
type runCtx struct {
	name   string // "closer check"
	opts   options
	dir    string // absolute --dir
	stdout io.Writer
	stderr io.Writer
	env    Env
	color  bool
}

// newFlagSet is the flag set of the subcommand c, parsing into o; version
// is set by --version.
func newFlagSet(c command, o *options) (fs *flag.FlagSet, version *bool, run runFunc) {
	fs = flag.NewFlagSet("closer "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.configPath, "config", "", "config `file` (default: $DONEGATE_CONFIG, else DIR/.claude/donegate.json, else the embedded default)")
	fs.StringVar(&o.dir, "dir", ".", "the project `dir`")
	fs.BoolVar(&o.json, "json", false, "print JSON instead of text")
	version = fs.Bool("version", false, "print the version and exit")
	run = c.bind(fs, o)
	return fs, version, run
}

// A Command is one subcommand as its --help describes it: what
// docs/flags.md is generated from.
type Command struct {
	// Usage is its usage line: "closer check [flags]".
	Usage   string
	Summary string
	Flags   *flag.FlagSet
}

// Commands lists the subcommands, in the order closer --help lists them,
// with the flag sets they parse.
func Commands() []Command {
	out := make([]Command, len(commands))
	for i, c := range commands {
		fs, _, _ := newFlagSet(c, new(options))
		out[i] = Command{Usage: "closer " + c.name + " [flags]" + c.args, Summary: c.summary, Flags: fs}
	}
	return out
}

func runCommand(ctx context.Context, c command, args []string, stdout, stderr io.Writer, env Env) int {
	name := "closer " + c.name
	var o options
	fs, version, run := newFlagSet(c, &o)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s [flags]%s\n\n%s\n\nFlags:\n", name, c.args, c.summary)
		shown := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.VisitAll(func(f *flag.Flag) {
			if !(c.noConfig && f.Name == "config") {
				shown.Var(f.Value, f.Name, f.Usage)
			}
		})
		cli.PrintFlags(fs.Output(), shown)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return ExitComplete
		}
		fmt.Fprintf(stderr, "%s: %s (see %s --help)\n", name, cli.FlagError(err), name)
		return ExitUsage
	}
	if *version {
		fmt.Fprintf(stdout, "closer %s\n", Version())
		return ExitComplete
	}
	rest := fs.Args()
	if c.rest {
		o.args, rest = rest, nil
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q (see %s --help)\n", name, rest[0], name)
		return ExitUsage
	}
	r := &runCtx{name: name, opts: o, stdout: stdout, stderr: stderr, env: env}
	r.color = !o.json && env.IsTerminal(stdout) && env.Getenv("NO_COLOR") == ""
	v, err := r.resolveDir()
	if err == nil {
		v, err = run(ctx, r)
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s\n", name, oneLine(err.Error()))
	}
	return exitCode(v, err)
}

// resolveDir checks --dir and makes it absolute.
func (r *runCtx) resolveDir() (verdict, error) {
	abs, err := filepath.Abs(r.opts.dir)
	if err != nil {
		return incomplete, errorf(ErrUsage, "--dir %s: %w", r.opts.dir, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return incomplete, errorf(ErrEnv, "--dir %s: %w", r.opts.dir, err)
	}
	if !st.IsDir() {
		return incomplete, errorf(ErrEnv, "--dir %s: not a directory", r.opts.dir)
	}
	r.dir = abs
	return incomplete, nil
}

// loadConfig finds the config the way the hooks do, rooted at --dir: the
// flag, $DONEGATE_CONFIG, DIR/.claude/donegate.json, the embedded default.
func (r *runCtx) loadConfig() (*config.Config, error) {
	c, err := config.Resolve(config.Lookup{Flag: r.opts.configPath, Env: r.env.Getenv("DONEGATE_CONFIG"), ProjectDir: r.dir})
	if err != nil {
		return nil, errorf(ErrConfig, "%w", err)
	}
	return c, nil
}

func (r *runCtx) home() string { return paths.Home(r.env.Getenv) }

// claudeDir is the Claude config dir, as the hooks find it.
func (r *runCtx) claudeDir(transcript string) string {
	return paths.ClaudeDir(r.env.Getenv, transcript)
}

// stateDir is where the hooks keep state (and test results): the same
// cache serves both.
func (r *runCtx) stateDir() string { return paths.StateDir(r.env.Getenv) }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// helpWidth is the width help text is wrapped to.
const helpWidth = 72

// reflow wraps a help paragraph to helpWidth columns (see cli.Reflow).
func reflow(s string) string { return cli.Reflow(s, helpWidth) }

// maxHeadline is the longest command summary the usage lists whole: the
// width left on an 80-column line beside the command names.
const maxHeadline = 75

// headline is a command's summary in the usage's list: its first sentence,
// and when that does not fit a line, what comes before its colon. The
// first line alone cut doctor's sentence in the middle.
func headline(summary string) string {
	s := strings.Join(strings.Fields(summary), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > maxHeadline {
		if i := strings.IndexByte(s, ':'); i >= 0 {
			s = s[:i] + "."
		}
	}
	return s
}

// oneLine folds a message onto one line: errors are one line on stderr.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
