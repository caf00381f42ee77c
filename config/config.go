// Package config reads donegate's JSON configuration: where it is looked
// up, its defaults, strict decoding and validation. A *Config returned by
// Parse or Load is valid, so the rest of donegate never re-checks it.
//
// Every problem is reported with the file and the JSON path at fault
// (checkers[1].timeout), all problems at once, so a person fixes a config in
// one pass: first those of shape (syntax, unknown or duplicate keys, wrong
// types, unreadable durations and patterns) in the order of the file, then
// those of value (a missing command, max_blocks below 1) in the order of
// the fields.
package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/feedback"
	"github.com/donegate/donegate/internal/jsondepth"
	"github.com/donegate/donegate/internal/paths"
	"github.com/donegate/donegate/internal/regular"
)

// Modes (see Config.Mode).
const (
	ModeEnforce = "enforce"
	ModeObserve = "observe"
	ModeOff     = "off"
)

// FileName is the project config file, under .claude/ of the project.
const FileName = "donegate.json"

// DefaultSource names the embedded default in messages.
const DefaultSource = "embedded default"

//go:embed default.json
var defaultJSON []byte

// Config is the whole configuration.
type Config struct {
	// Schema is where an editor finds the JSON schema of the file, to
	// complete and check it (schema/donegate.schema.json); donegate
	// ignores its value.
	Schema string `json:"$schema,omitempty"`
	// Dialect is the shape of the hooks' answers: "claude-code", or "sdk"
	// for Agent SDK hosts that read its shapes (Claude Code ignores them).
	// Left out: "claude-code".
	Dialect string `json:"dialect" validate:"oneof=claude-code sdk"`
	// Checkers is the chain, at least one; it passes when every checker
	// passes. Left out: [{"type": "plan"}, {"type": "test"}], the test
	// checker running the project's detected test command.
	Checkers []Checker `json:"checkers" validate:"min=1,dive"`
	Limits   Limits    `json:"limits"`
	// OnError says what a broken config or a checker that cannot run
	// does: "allow" lets the agent stop with a visible message, "block"
	// keeps it going with the problem as the reason. Left out: "allow".
	OnError string `json:"on_error" validate:"oneof=allow block"`
	// Mode is what the hooks do with what they decide: "enforce" holds
	// the agent while work is open; "observe" checks, decides and records
	// everything but holds nobody (the person is told what would have
	// held); "off" answers at once, checking nothing. $DONEGATE_MODE, set
	// where the host starts, wins over it. Left out: "enforce".
	Mode string `json:"mode,omitempty" validate:"omitempty,oneof=enforce observe off"`
	// HoldUnchanged keeps the checks of the project's state (tests,
	// commands, files, git, ...) holding in a session whose agent has
	// changed nothing since donegate saw it begin. Left out: false, so a
	// question answered is not held by a failing suite nobody touched.
	HoldUnchanged bool `json:"hold_unchanged,omitempty"`
	// ReuseAgentRuns lets the agent's own passing run of a check's
	// command, through its shell tool, stand for the check at the next
	// stop while the working tree is unchanged. What the agent's shell
	// prints it can forge (a function or alias named like the command, a
	// shim on its PATH), so only the config the person allowed turns it
	// on. Left out: false, every check is run by donegate.
	ReuseAgentRuns bool `json:"reuse_agent_runs,omitempty"`
	// GateTools are the tools whose use posttooluse-hook gates. Left out:
	// ["StructuredOutput"].
	GateTools []string `json:"gate_tools" validate:"dive,required"`
	// CompletionSignal, when set, says when a gated tool call declares
	// the work complete: when any one of these conditions holds on the
	// tool's input. A call that declares nothing (an honest "blocked")
	// passes at once, unchecked. Left out: every gated call is checked.
	CompletionSignal []Condition `json:"completion_signal,omitempty" validate:"omitempty,min=1,dive"`
	// RetryTemplates is a directory of retry templates, <pattern>.tmpl
	// (text/template), that word failures in place of the built-in ones;
	// relative to the config file's directory, ~/ for the home. Left out:
	// the built-in templates alone.
	RetryTemplates string `json:"retry_templates"`

	// Source is the file the config came from, or DefaultSource.
	Source string `json:"-"`
	// Templates are the retry templates, those of RetryTemplates loaded
	// and parsed with the config; nil for the built-in ones alone.
	Templates *feedback.Set `json:"-"`
	// Warnings say what of the config could not be used and what stands
	// in for it (a retry template that does not parse: the built-in
	// wording), for the person; the rest of the config works.
	Warnings []string `json:"-"`
}

// Limits keep donegate from trapping an agent.
type Limits struct {
	// MaxBlocks is how many times one prompt's stop is blocked before
	// donegate lets the agent stop anyway. Left out: 5.
	MaxBlocks int `json:"max_blocks" validate:"gte=1"`
	// Deadline, when set, lets the agent stop once this long has passed
	// since the first block for the prompt. Left out: none.
	Deadline Duration `json:"deadline" validate:"gte=0"`
	// Budget bounds one hook run; keep it below the hook's "timeout" in
	// the settings (600 s when unset), or Claude Code kills the hook and
	// nothing is decided. Left out: 540s.
	Budget Duration `json:"budget" validate:"gt=0"`
	// MaxHoldsPerPrompt bounds the holds of one gate since the person's
	// last prompt, whatever the host's turns and the working tree do (a
	// host that begins turns of its own, a file rewritten every turn):
	// past it the agent is let go and the person told. Left out: three
	// times max_blocks.
	MaxHoldsPerPrompt int `json:"max_holds_per_prompt,omitempty" validate:"omitempty,gte=1"`
}

// HoldsPerPrompt is MaxHoldsPerPrompt, or its default: three times
// MaxBlocks.
func (l Limits) HoldsPerPrompt() int {
	if l.MaxHoldsPerPrompt > 0 {
		return l.MaxHoldsPerPrompt
	}
	return 3 * l.MaxBlocks
}

// Checker is one configured checker: the keys every checker has, and the
// options of its type. Which options a type takes is registered with
// RegisterType; decoding rejects a key the type does not take.
type Checker struct {
	// Type is a registered type's name; the decoder refuses any other, so
	// the value rules only require it.
	Type string `json:"type" validate:"required"`
	// Name labels the checker in reports and errors.
	Name string `json:"name,omitempty"`
	// On lists the events the checker runs at: "stop" (the main agent
	// ends its turn), "subagent_stop", "tool_use" (a gated tool such as
	// StructuredOutput) and "manual" (closer check). Left out: those of
	// the nearest composite around it that sets On, else its type's own:
	// all four for plan; for a composite, wherever a member runs; stop
	// for keyword and iterations; stop and tool_use for phase; stop,
	// tool_use and manual for the others. An empty list is refused.
	On []string `json:"on,omitempty" validate:"omitempty,min=1,dive,oneof=stop subagent_stop tool_use manual"`

	// Options holds the type's options: a pointer to a new value of its
	// CheckerType.Options struct, decoded and valid. The value rules read
	// its fields as the checker's own (checkers[0].command), as the file
	// has them. It must stay the last field: validator/v10, the rules'
	// reference, checks a struct's fields in order.
	Options any `json:"-"`
}

// Label is how reports name a checker: its name, else its type.
func (c *Checker) Label() string {
	if c.Name != "" {
		return c.Name
	}
	return c.Type
}

// checkerJSON is Checker without its methods, for its JSON encoding.
type checkerJSON Checker

// MarshalJSON writes the checker as the file has it: its options' keys
// beside type, name and on.
func (c Checker) MarshalJSON() ([]byte, error) {
	common, err := json.Marshal(checkerJSON(c))
	if err != nil || c.Options == nil {
		return common, err
	}
	opts, err := json.Marshal(c.Options)
	if err != nil {
		return nil, fmt.Errorf("checker %q options: %w", c.Type, err)
	}
	if len(opts) <= 2 { // {}
		return common, nil
	}
	return append(append(common[:len(common)-1], ','), opts[1:]...), nil
}

// UnmarshalJSON reads a checker of a registered type with encoding/json.
// Parse does not use it (see decode); it makes a Checker round-trip
// through JSON, and is the reference the decoder is fuzzed against.
func (c *Checker) UnmarshalJSON(b []byte) error {
	var common checkerJSON
	if err := json.Unmarshal(b, &common); err != nil {
		return err
	}
	t, ok := LookupType(common.Type)
	if !ok {
		return fmt.Errorf("unknown checker type %q", common.Type)
	}
	opts := reflect.New(t.Options)
	if err := json.Unmarshal(b, opts.Interface()); err != nil {
		return err
	}
	common.Options = opts.Interface()
	*c = Checker(common)
	return nil
}

// Duration is a time.Duration written as a Go duration string ("90s", "5m").
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats like time.Duration.
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalJSON accepts a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("expected a duration string such as \"90s\" or \"5m\"")
	}
	v, err := parseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

func parseDuration(s string) (time.Duration, error) {
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (use a Go duration such as \"90s\", \"5m\", \"1h30m\")", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("duration %q is negative", s)
	}
	return v, nil
}

// Defaults used where the config says nothing.
const (
	DefaultMaxBlocks = 5
	DefaultBudget    = 540 * time.Second
)

// DefaultGateTools are the tools posttooluse-hook gates unless gate_tools
// says otherwise: the agent's final structured output.
var DefaultGateTools = []string{"StructuredOutput"}

func defaults() *Config {
	return &Config{
		Dialect:   "claude-code",
		OnError:   "allow",
		GateTools: slices.Clone(DefaultGateTools),
		Limits: Limits{
			MaxBlocks: DefaultMaxBlocks,
			Budget:    Duration(DefaultBudget),
		},
	}
}

// Default returns the embedded default config: the plan checker and the
// project's own test command, detected when checked (a project whose files
// name none keeps the plan checker alone). With the plan alone, most
// sessions were held for nothing: on Claude Code 2.1.330 and 2.1.331 the
// default models get no plan tool unless CLAUDE_CODE_ENABLE_TODO_TOOLS=1.
//
// It is built here rather than parsed from default.json at every call: a
// stop without a config file paid a tenth of a millisecond to decode and
// check it (docs/performance.md). TestDefaultIsTheEmbeddedFile holds the
// two equal.
func Default() *Config {
	c := defaults()
	c.Checkers = make([]Checker, len(defaultTypes))
	for i, name := range defaultTypes {
		c.Checkers[i] = Checker{Type: name}
		// A type that is not linked or cannot be built (TypeError) has no
		// options: building its checker fails, and on_error decides.
		if typ := lookupType(name); typ != nil {
			c.Checkers[i].Options = reflect.New(typ.Options).Interface()
		}
	}
	c.Source = DefaultSource
	return c
}

// defaultTypes are the types of default.json's checkers, each with no
// option set.
var defaultTypes = []string{"plan", "test"}

// defaultChain returns the checkers of the embedded default, decoded as
// any file's are, so that a config without "checkers" holds the very same.
// Where it does not decode (a type not linked, or one that cannot be
// built), Default's checkers stand in, whose building fails as such.
func defaultChain() []Checker {
	c := defaults()
	if problems, _ := decode(defaultJSON, c); len(problems) > 0 || c.Checkers == nil {
		return Default().Checkers
	}
	return c.Checkers
}

// Problem is one thing wrong with a config, at a JSON path.
type Problem struct {
	Path    string // e.g. checkers[1].timeout; empty for the whole document
	Message string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// Error lists every problem found in one config source.
type Error struct {
	Source   string
	Problems []Problem
	// OnError is the on_error the broken config asks for, when it could
	// be read ("allow" otherwise): a person who asked for "block" wants a
	// broken config to block too, so the agent can fix it. It is read from
	// the bytes Parse already read, so the hooks open a config once,
	// broken or not.
	OnError string
}

// maxListedProblems bounds the problems Error spells out: a generated
// config with tens of thousands of problems made a message of megabytes,
// which a hook prints on stderr and into its systemMessage.
const maxListedProblems = 20

func (e *Error) Error() string {
	n := min(len(e.Problems), maxListedProblems)
	parts := make([]string, n, n+1)
	for i, p := range e.Problems[:n] {
		parts[i] = p.String()
	}
	if more := len(e.Problems) - n; more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more problems", more))
	}
	return fmt.Sprintf("config %s: %s", e.Source, strings.Join(parts, "; "))
}

// BlockOnError reports whether err, an error of Load, Parse or Resolve,
// comes from a config that asks for on_error "block".
func BlockOnError(err error) bool {
	var ce *Error
	return errors.As(err, &ce) && ce.OnError == "block"
}

// Parse decodes and validates a config read from r; source names it in
// errors. Fields left out take their defaults.
func Parse(r io.Reader, source string) (*Config, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config %s: read: %w", source, err)
	}
	if len(data) > maxBytes {
		return nil, &Error{Source: source, Problems: []Problem{{Message: "larger than 1 MiB"}}}
	}
	c := defaults()
	problems, undecided := decode(data, c)
	if c.Checkers == nil {
		c.Checkers = defaultChain()
	}
	// The value rules run on what decoded even when something did not, so
	// that one pass shows every problem; they stay quiet where decoding
	// already said what is wrong. Problems of shape come first, in the
	// order of the file, then those of value, in the order of the fields.
	for _, p := range validate(c) {
		if !undecided.covers(p.Path) {
			problems = append(problems, p)
		}
	}
	if len(problems) == 0 && c.RetryTemplates != "" {
		// A template that cannot be used is found when the config is read,
		// not when a failure is worded, and only costs its own wording:
		// its pattern keeps the built-in one, and the person is told.
		set, bad := feedback.LoadUsable(templateDir(c.RetryTemplates, source))
		for _, err := range bad {
			c.Warnings = append(c.Warnings, fmt.Sprintf("retry_templates: %v; the built-in wording is used instead", err))
		}
		c.Templates = set
	}
	problems = append(problems, checkLimits(c, problems)...)
	if len(problems) > 0 {
		return nil, &Error{Source: source, Problems: problems, OnError: onErrorOf(data)}
	}
	c.Source = source
	return c, nil
}

// templateDir resolves retry_templates: ~/ against the home, a relative
// path against the directory of the config file source (a config that is
// no file, the default or stdin, has the working directory).
func templateDir(dir, source string) string {
	dir = paths.Expand(os.Getenv, dir)
	if filepath.IsAbs(dir) || source == DefaultSource || source == "" || source == "-" {
		return dir
	}
	return filepath.Join(filepath.Dir(source), dir)
}

// checkLimits runs the LimitsChecker of every checker, members of
// composites included, whose options and the limits have no problem yet:
// one mistake is reported once.
func checkLimits(c *Config, problems []Problem) []Problem {
	bad := pathSet{}
	for _, p := range problems {
		bad[p.Path] = true
	}
	if bad.covers("limits.max_blocks") {
		return nil
	}
	var out []Problem
	EachChecker(c.Checkers, func(path string, ch Checker) {
		if lc, ok := ch.Options.(LimitsChecker); ok && !coversAny(bad, path) {
			for _, p := range lc.CheckLimits(c.Limits) {
				p.Path = joinPath(path, p.Path)
				out = append(out, p)
			}
		}
	})
	return out
}

// EachChecker calls f with every checker of specs and, after each, every
// checker its options hold — a composite's members, a claim's checker —
// however deep, with its path in the file ("checkers[0].claims[1].checker").
func EachChecker(specs []Checker, f func(path string, c Checker)) {
	eachChecker(specs, (*jsonPath)(nil).key("checkers"), f)
}

func eachChecker(specs []Checker, at *jsonPath, f func(string, Checker)) {
	for i, c := range specs {
		visitChecker(c, at.at(i), f)
	}
}

func visitChecker(c Checker, at *jsonPath, f func(string, Checker)) {
	f(at.String(), c)
	if c.Options != nil {
		checkersIn(reflect.ValueOf(c.Options).Elem(), at, f)
	}
}

// checkersIn finds the checkers held by the struct v, in its fields and
// in the objects its fields hold.
func checkersIn(v reflect.Value, at *jsonPath, f func(string, Checker)) {
	for i := range v.NumField() {
		field := v.Type().Field(i)
		name := jsonName(field)
		if name == "" || !field.IsExported() {
			continue
		}
		fv := v.Field(i)
		switch t := field.Type; {
		case t == reflect.TypeFor[[]Checker]():
			eachChecker(fv.Interface().([]Checker), at.key(name), f)
		case t == reflect.TypeFor[Checker]():
			visitChecker(fv.Interface().(Checker), at.key(name), f)
		case t.Kind() == reflect.Struct:
			checkersIn(fv, at.key(name), f)
		case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
			for j := range fv.Len() {
				checkersIn(fv.Index(j), at.key(name).at(j), f)
			}
		}
	}
}

// coversAny reports whether a path in s is at or under path.
func coversAny(s pathSet, path string) bool {
	for p := range s {
		if p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[") {
			return true
		}
	}
	return false
}

// onErrorOf reads the on_error of a broken config leniently, from the
// bytes Parse read: "block" only when the document is JSON (nested no
// deeper than 512 levels: gjson's validator recurses per level) and says
// so, even if it nests too deep for a config or breaks other rules.
func onErrorOf(data []byte) string {
	if jsondepth.Within(data, 512) && gjson.ValidBytes(data) && gjson.GetBytes(data, "on_error").Str == "block" {
		return "block"
	}
	return "allow"
}

// Load reads the config file at path. A path that is not a regular file (a
// FIFO, a device, a directory) is an *Error naming its kind, found without
// blocking: opening a FIFO to read waits for a writer, and the host would
// kill the hook with nothing decided.
func Load(path string) (*Config, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(data), path)
}

// maxBytes is the largest config read.
const maxBytes = 1 << 20

// ReadFile reads the config file at path as Load does: a regular file
// (a FIFO or a device is a config error, never a read that blocks), at
// most 1 MiB and a byte, which Parse then refuses.
func ReadFile(path string) ([]byte, error) {
	f, err := regular.Open(path)
	if errors.Is(err, regular.ErrNotRegular) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the Error names the path
		}
		return nil, &Error{Source: path, Problems: []Problem{{Message: err.Error() + "; a config is a JSON file"}}}
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config %s: read: %w", path, err)
	}
	return data, nil
}

// File is a config file as found: its path, "" for the embedded default,
// and its bytes as read, nil when it could not be read.
type File struct {
	Path string
	Data []byte
}

// ResolveFile is Resolve that also returns the file the config came
// from, read once: what consent to run its commands is keyed by.
func ResolveFile(l Lookup) (*Config, File, error) {
	path, err := Find(l)
	if err != nil || path == "" {
		if err != nil {
			return nil, File{}, err
		}
		return Default(), File{}, nil
	}
	f := File{Path: path}
	if f.Data, err = ReadFile(path); err != nil {
		return nil, f, err
	}
	c, err := Parse(bytes.NewReader(f.Data), path)
	return c, f, err
}

// Lookup says where to look for a config, in order of precedence.
type Lookup struct {
	Flag       string // --config
	Env        string // $DONEGATE_CONFIG
	ProjectDir string // the host's project dir ($CLAUDE_PROJECT_DIR, $GEMINI_PROJECT_DIR)
	Cwd        string // the event's cwd
}

// NeutralFileName is the project config of a project that does not use
// Claude Code (or would rather not keep donegate's config under .claude):
// <dir>/.donegate.json, read after <dir>/.claude/donegate.json.
const NeutralFileName = ".donegate.json"

// ProjectFiles are the config files Find looks for in a dir, in order:
// .claude/donegate.json (where closer init --host claude writes it),
// then the host-neutral .donegate.json (every other host's).
func ProjectFiles(dir string) []string {
	return []string{filepath.Join(dir, ".claude", FileName), filepath.Join(dir, NeutralFileName)}
}

// ErrNotFound is returned by Find when an explicitly named config is missing.
var ErrNotFound = errors.New("config file not found")

// Find returns the path of the config to use, or "" for the embedded
// default: the file the flag names, else the environment's, else the
// first of ProjectFiles in the project dir, then in the cwd. A file named
// by the flag or the environment must exist; the project files are used
// only when present. Find only stats paths, so it never blocks; a path
// that is there but is not a regular file (a FIFO) is returned, for Load
// to report, rather than silently replaced by the default. A directory in
// place of a project file is skipped.
func Find(l Lookup) (string, error) {
	for _, named := range []struct{ what, path string }{{"--config", l.Flag}, {"DONEGATE_CONFIG", l.Env}} {
		if named.path == "" {
			continue
		}
		if _, err := os.Stat(named.path); err != nil {
			return "", fmt.Errorf("%s %s: %w", named.what, named.path, ErrNotFound)
		}
		return named.path, nil
	}
	for i, dir := range []string{l.ProjectDir, l.Cwd} {
		if dir == "" || (i == 1 && dir == l.ProjectDir) {
			continue // under Claude Code the cwd is most often the project dir
		}
		for _, p := range ProjectFiles(dir) {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		}
	}
	return "", nil
}

// Resolve finds and loads the config for l: the file Find names, else the
// embedded default.
func Resolve(l Lookup) (*Config, error) {
	path, err := Find(l)
	if err != nil {
		return nil, err
	}
	if path == "" {
		return Default(), nil
	}
	return Load(path)
}
