package closer

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/hookio"
)

// hostFile is a file a host reads hooks from.
type hostFile struct {
	what, path string
	toml       bool // TOML whose [hooks] tables hold the entries (Codex's config.toml)
}

// hostFiles are the files s's host reads hooks from, user-level first.
func (r *runCtx) hostFiles(s hostSetup) []hostFile {
	if s.files != nil {
		return s.files(r, s)
	}
	var files []hostFile
	if u := r.userFile(s); u != "" {
		files = append(files, hostFile{what: "user settings", path: u})
	}
	return append(files, hostFile{what: "project settings", path: filepath.Join(r.dir, s.project)})
}

// hostRegistrations reads donegate's registrations out of every hook
// file s's host reads; what cannot be read is a finding.
func (r *runCtx) hostRegistrations(s hostSetup, rep *DoctorReport) []registration {
	var regs []registration
	for _, f := range r.hostFiles(s) {
		data, _, err := readSettings(f.path)
		if err == nil && data == nil {
			continue
		}
		source := s.title() + " " + f.what + " " + f.path
		if err != nil {
			rep.add(string(s.host), statusFail, "make the file readable", "%s: %v", source, err)
			continue
		}
		hooks, err := parseHostHooks(s, f, data)
		if err != nil {
			rep.add(string(s.host), statusFail, "correct the file: "+s.title()+" does not use a hook file it cannot read", "%s cannot be read: %v", source, err)
			continue
		}
		if s.flatHooks && runtime.GOOS == "windows" {
			for _, ev := range bashOnly(data) {
				rep.add(string(s.host), statusFail, "run closer init --host "+string(s.host)+" on this machine: it adds the powershell command",
					"stop-hook at %s in %s has a bash command only: %s runs an entry's powershell on Windows, so it runs nothing here", ev, source, s.title())
			}
		}
		for _, reg := range r.registrations(source, hooks, "") {
			reg.file = f.path
			switch {
			case reg.timeoutSet && s.millisFrom > 0 && reg.timeout >= time.Duration(s.millisFrom)*s.unit:
				// registrations() read the number as seconds.
				reg.timeout = reg.timeout / time.Second * time.Millisecond
			case reg.timeoutSet && s.millisFrom > 0:
				rep.add(string(s.host), statusWarn, fmt.Sprintf(`write the timeout in milliseconds, which every version reads: "timeout": %d`, int(reg.timeout/time.Second)*1000),
					"%s at %s in %s: its timeout (%d) is %s to %s 0.23.3 and later but %d ms to earlier versions, which then kill the hook before donegate decides",
					reg.hook, reg.event, source, int(reg.timeout/time.Second), reg.timeout, s.title(), int(reg.timeout/time.Second))
			case reg.timeoutSet && s.unit != time.Second:
				// registrations() read the number as seconds.
				reg.timeout = reg.timeout / time.Second * s.unit
			case !reg.timeoutSet:
				reg.timeout = s.defaultTimeout
			}
			regs = append(regs, reg)
		}
	}
	return append(regs, r.hostPluginRegistrations(s, rep)...)
}

// hostPluginRegistrations reads the hooks of donegate's plugins that s's
// host loads (see hostSetup.plugins).
func (r *runCtx) hostPluginRegistrations(s hostSetup, rep *DoctorReport) []registration {
	if s.plugins == nil {
		return nil
	}
	plugins := s.plugins(r, rep)
	slices.SortFunc(plugins, func(a, b hostPlugin) int { return strings.Compare(a.source, b.source) })
	var regs []registration
	for _, p := range plugins {
		file := filepath.Join(p.root, "hooks", "hooks.json")
		data, _, err := readSettings(file)
		if err == nil && data == nil {
			err = os.ErrNotExist
		}
		var st settingsJSON
		if err == nil {
			st, err = parseSettings(data)
		}
		if err != nil {
			rep.add(string(s.host), statusFail, "reinstall it", "%s: its hooks cannot be read: %v", p.source, err)
			continue
		}
		for _, reg := range r.registrations(p.source, st.Hooks, p.root) {
			reg.file, reg.keySource = file, p.keySource
			switch {
			case reg.timeoutSet && s.unit != time.Second:
				reg.timeout = reg.timeout / time.Second * s.unit
			case !reg.timeoutSet:
				reg.timeout = s.defaultTimeout
			}
			regs = append(regs, reg)
		}
	}
	return regs
}

// parseHostHooks decodes the hooks of one of a host's files into the
// matcher groups of Claude Code's settings: Copilot's flat entries each
// become a group of one.
func parseHostHooks(s hostSetup, f hostFile, data []byte) (map[string][]hookMatcher, error) {
	switch {
	case f.toml:
		var doc map[string]any
		if err := decodeTOML(data, &doc); err != nil {
			return nil, err
		}
		tables, _ := doc["hooks"].(map[string]any)
		hooks := map[string][]hookMatcher{}
		for ev, v := range tables {
			if _, isList := v.([]map[string]any); !isList {
				continue // [hooks.state] and the like: not an event
			}
			// Through JSON: the tables have the JSON file's fields.
			b, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("hooks.%s: %w", ev, err)
			}
			var groups []hookMatcher
			if err := json.Unmarshal(b, &groups); err != nil {
				return nil, fmt.Errorf("hooks.%s: %w", ev, err)
			}
			hooks[ev] = groups
		}
		return hooks, nil
	case s.flatHooks:
		var doc flatHookFile
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, err
		}
		hooks := map[string][]hookMatcher{}
		for ev, entries := range doc.Hooks {
			var g hookMatcher
			for _, e := range entries {
				g.Hooks = append(g.Hooks, hookHandler{Type: e.Type, Command: flatCommand(e.Bash, e.PowerShell, runtime.GOOS == "windows"), Timeout: e.TimeoutSec})
			}
			hooks[ev] = []hookMatcher{g}
		}
		return hooks, nil
	}
	st, err := parseSettings(data)
	return st.Hooks, err
}

// flatHookFile is what doctor reads of a flat hook file (Copilot CLI's).
type flatHookFile struct {
	Hooks map[string][]struct {
		Type       string   `json:"type"`
		Bash       string   `json:"bash"`
		PowerShell string   `json:"powershell"`
		TimeoutSec *float64 `json:"timeoutSec"`
	} `json:"hooks"`
}

// bashOnly lists the events of a flat hook file (Copilot CLI's) whose
// entry runs donegate's stop-hook in bash but has no powershell: set up
// on Linux or macOS, such an entry runs nothing on Windows.
func bashOnly(data []byte) []string {
	var doc flatHookFile
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var events []string
	for ev, entries := range doc.Hooks {
		for _, e := range entries {
			if e.PowerShell == "" && isOurs(e.Bash, "stop-hook") {
				events = append(events, ev)
				break
			}
		}
	}
	slices.Sort(events)
	return events
}

// flatCommand is the command a flat hook entry runs: on Windows its
// powershell (a quoted path called with &, as init writes it, read as the
// path), elsewhere its bash.
func flatCommand(bash, powerShell string, windows bool) string {
	if windows {
		return strings.TrimPrefix(powerShell, "& ")
	}
	return bash
}

// hostInUse reports whether the project has s's host's dir. A user
// file alone (~/.gemini/settings.json holds Gemini's login) says nothing
// of this project: doctorHosts also counts a host whose files register
// donegate.
func (r *runCtx) hostInUse(s hostSetup) bool {
	st, err := os.Stat(filepath.Join(r.dir, s.marker))
	return err == nil && st.IsDir()
}

// doctorHosts checks the registrations of every host but Claude Code
// that the project or the user set up, and returns them (for the
// binaries and state checks). othersOnly is true when another host is
// set up and nothing says Claude Code is used here: no .claude/ (and no
// registration of its own, which the caller checks).
func (r *runCtx) doctorHosts(rep *DoctorReport, cfg *config.Config) (regs []registration, othersOnly bool) {
	others := false
	for _, s := range otherSetups() {
		if s.plugin {
			// No hook file: the host's doctor finds its plugin.
			if r.hostInUse(s) || s.installed(r) {
				others = true
				s.doctor(r, rep, s, nil)
			}
			continue
		}
		var scratch DoctorReport
		if !r.hostInUse(s) && len(r.hostRegistrations(s, &scratch)) == 0 {
			continue
		}
		others = true
		found := r.hostRegistrations(s, rep)
		r.judgeRegistrations(rep, s, found, cfg)
		if s.doctor != nil {
			s.doctor(r, rep, s, found)
		}
		regs = append(regs, found...)
	}
	// Claude Code on PATH says nothing of this project: a person who
	// uses it elsewhere may have set this one up for another host.
	return regs, others && !r.hostInUse(defaultSetup())
}

// guardEvent is the host's event init registers the guard at (its name
// for PreToolUse), "" for a host the guard does not serve.
func (s hostSetup) guardEvent() string { return s.roleEvent(hookio.RoleGuardShell) }

// roleEvent is the host's event init registers the entry of role at, ""
// where it registers none.
func (s hostSetup) roleEvent(role hookio.Role) string {
	for _, reg := range s.regs {
		if reg.role == role {
			return reg.event
		}
	}
	return ""
}

// hostEntries lists the entries init writes for s.
func hostEntries(s hostSetup) string {
	var e []string
	for _, reg := range s.regs {
		e = append(e, regCommand(reg.program, reg.flags)+" at "+reg.event)
	}
	return andList(e)
}

// hostFileList names the hook files s's host reads.
func (r *runCtx) hostFileList(s hostSetup) string {
	var names []string
	if s.flatHooks {
		// Every .json of the dirs of its hook files.
		names = append(names, filepath.Join(r.dir, filepath.Dir(s.project))+"/*.json")
		if u := r.userFile(s); u != "" {
			names = append(names, filepath.Dir(u)+"/*.json")
		}
		return strings.Join(names, ", ")
	}
	for _, f := range r.hostFiles(s) {
		names = append(names, f.path)
	}
	return strings.Join(names, ", ")
}

// maxTOMLNesting bounds how deep the arrays and inline tables of a
// config.toml doctor reads may nest. The TOML parser's time grows with
// the square of the nesting of inline tables (measured: 4,000 levels in
// 20 KB took 1.6 s, 16,000 in 80 KB 15 s), and a project's
// .codex/config.toml is the repository's to write: a hostile one hung
// closer doctor. Codex's own configs nest a few levels.
const maxTOMLNesting = 64

// decodeTOML decodes a TOML document into v, after refusing one nested
// deeper than maxTOMLNesting.
func decodeTOML(data []byte, v any) error {
	if d := tomlNesting(data); d > maxTOMLNesting {
		return fmt.Errorf("tables, arrays or inline tables nested %d levels deep or more, over the %d doctor reads", d, maxTOMLNesting)
	}
	_, err := toml.Decode(string(data), v)
	return err
}

// tomlNesting returns how deep a TOML text nests, outside its strings
// and comments: its brackets and braces, and the dotted keys a line or an
// inline table names (`[a.b.c]`, `a.b.c = 1` each nest a table per
// segment: a header of 200 KB of `a.` exhausted 6 GiB in the decoder). It
// stops counting past maxTOMLNesting. A table header ([a] or [[a]])
// counts as a nesting of one or two, and one more per dot in its name:
// its line closes it; a dotted key, one per dot. Strings are
// skipped as TOML reads them, escapes included: `"""x\"""y"""` is one
// string (read as it ends at the escaped quotes, the rest of the file
// passed as a string and went uncounted).
func tomlNesting(data []byte) int {
	depth, deepest := 0, 0
	keyPos := true // at the start of a key: a line's, or after { or , in an inline table
	var stack []byte
	deeper := func(d int) bool {
		deepest = max(deepest, min(d, maxTOMLNesting+1))
		return deepest > maxTOMLNesting
	}
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '\n':
			keyPos = len(stack) == 0 || stack[len(stack)-1] == '{'
			continue
		case c == ' ' || c == '\t' || c == '\r':
			continue
		case c == '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
			continue
		case c == '"' || c == '\'':
			i = tomlStringEnd(data, i)
			if i < 0 {
				return deepest
			}
			continue
		}
		if keyPos && c != '[' && c != ']' && c != '{' && c != '}' && c != ',' {
			// A key, maybe dotted: each segment is a table.
			dots := 0
			for ; i < len(data) && data[i] != '=' && data[i] != '\n' && data[i] != '}' && data[i] != ','; i++ {
				switch data[i] {
				case '.':
					dots++
				case '"', '\'':
					if i = tomlStringEnd(data, i); i < 0 {
						return deepest
					}
				}
			}
			if deeper(depth + dots) {
				return deepest
			}
			keyPos = false
			i--
			continue
		}
		switch c {
		case '[', '{':
			if c == '[' && len(stack) == 0 && keyPos {
				// A table header: its dotted name nests a table per
				// segment, inside the one or two brackets.
				dots, j := 0, i
				for ; j < len(data) && data[j] != '\n'; j++ {
					switch data[j] {
					case '.':
						dots++
					case '"', '\'':
						if j = tomlStringEnd(data, j); j < 0 {
							return deepest
						}
					}
				}
				brackets := 1
				if i+1 < len(data) && data[i+1] == '[' {
					brackets = 2
				}
				if deeper(depth + brackets + dots) {
					return deepest
				}
			}
			depth++
			stack = append(stack, c)
			if deeper(depth) {
				return deepest
			}
			keyPos = c == '{'
		case ']', '}':
			depth = max(depth-1, 0)
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			keyPos = false
		case ',':
			keyPos = len(stack) > 0 && stack[len(stack)-1] == '{'
		default:
			keyPos = false
		}
	}
	return deepest
}

// tomlStringEnd returns the index of the last byte of the TOML string
// that starts at data[i] (a quote), or -1 if it does not end: basic
// strings with their escapes, literal strings without, each in its
// one-line and multi-line (triple-quoted) forms; a multi-line string's
// closing quotes may be followed by up to two more.
func tomlStringEnd(data []byte, i int) int {
	q := data[i]
	escapes := q == '"'
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
		for j := i + 3; j < len(data); j++ {
			switch {
			case escapes && data[j] == '\\':
				j++
			case data[j] == q && j+2 < len(data) && data[j+1] == q && data[j+2] == q:
				end := j + 2
				for k := 0; k < 2 && end+1 < len(data) && data[end+1] == q; k++ {
					end++
				}
				return end
			}
		}
		return -1
	}
	for j := i + 1; j < len(data) && data[j] != '\n'; j++ {
		switch {
		case escapes && data[j] == '\\':
			j++
		case data[j] == q:
			return j
		}
	}
	return -1
}

// allOf reports whether ok holds for every one of items.
func allOf(items []string, ok func(string) bool) bool {
	for _, it := range items {
		if !ok(it) {
			return false
		}
	}
	return true
}
