package closer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Codex's managed requirements (requirements.toml, written by an admin or
// a device-management tool) may hold hooks in the inline [hooks] tables
// of its config.toml. Codex runs those without anyone's review: measured
// with 0.171.0, a Stop hook in /etc/codex/requirements.toml held `codex
// exec` with neither --trust nor --dangerously-bypass-hook-trust, and the
// model read it as <hook_prompt hook_run_id="stop:0:/etc/codex/requirements.toml">.
// It is the route for machines where nobody can answer a trust prompt
// (CI, shared runners): closer init --host codex --managed writes there.

// codexRequirementsPath is where Codex reads its system requirements on
// Linux and macOS; $DONEGATE_CODEX_REQUIREMENTS names another file (a
// file an admin ships to machines, say).
const codexRequirementsPath = "/etc/codex/requirements.toml"

// codexRequirements is the managed requirements file closer reads and
// init --managed writes.
func (r *runCtx) codexRequirements() string {
	if p := r.env.Getenv("DONEGATE_CODEX_REQUIREMENTS"); filepath.IsAbs(p) {
		return p
	}
	return codexRequirementsPath
}

// codexManagedComment heads the tables init adds to a requirements file.
const codexManagedComment = "# donegate's hooks (closer init --host codex --managed): Codex runs hooks of\n# its managed requirements without review.\n"

// codexManagedChange works out the change that adds s's entries missing
// from the managed requirements file: TOML tables appended after what the
// file holds, which stays byte for byte as it was. nil when every entry is
// there already.
func (r *runCtx) codexManagedChange(s hostSetup, commands map[string]string, rep *InitReport) (*change, error) {
	target := r.codexRequirements()
	path, root, err := resolveDest(target, filepath.Dir(target), true)
	if err != nil {
		return nil, errorf(ErrEnv, "%w", err)
	}
	old, mode, err := readSettings(path)
	if err != nil {
		return nil, errorf(ErrEnv, "%w", err)
	}
	source := "Codex managed requirements " + path
	present := func(data []byte) ([]registration, error) {
		if data == nil {
			return nil, nil
		}
		hooks, err := parseHostHooks(s, hostFile{path: path, toml: true}, data)
		if err != nil {
			return nil, err
		}
		return r.registrations(source, hooks, ""), nil
	}
	found, err := present(old)
	if err != nil {
		return nil, errorf(ErrConfig, "%s: %w; it is left as it is: fix it first", r.display(path), err)
	}
	var missing []hookReg
	for _, reg := range s.regs {
		if !slices.ContainsFunc(found, func(f registration) bool { return runsEntry(f, reg.event, reg.matcher, reg.program, reg.flags) }) {
			missing = append(missing, reg)
		}
	}
	if len(missing) == 0 {
		rep.Files = append(rep.Files, InitFile{Path: r.display(path), Action: "unchanged", hooks: true})
		rep.Notes = append(rep.Notes, r.display(path)+": the donegate hooks are registered already")
		return nil, nil
	}
	tables := codexHookTables(missing, s.timeout, commands)
	merged := bytes.Clone(old)
	if len(merged) > 0 && !bytes.HasSuffix(merged, []byte("\n")) {
		merged = append(merged, '\n')
	}
	if len(merged) > 0 {
		merged = append(merged, '\n')
	}
	merged = append(merged, codexManagedComment...)
	merged = append(merged, tables...)
	// What was appended must read back as those entries: a file whose
	// hooks.Stop is an inline array, say, cannot take another table.
	after, err := present(merged)
	added := err == nil && !slices.ContainsFunc(missing, func(reg hookReg) bool {
		return !slices.ContainsFunc(after, func(f registration) bool { return runsEntry(f, reg.event, reg.matcher, reg.program, reg.flags) })
	})
	if !added {
		return nil, errorf(ErrConfig, "%s: donegate's hooks cannot be appended to it as TOML tables (its [hooks] are written another way); it is left as it is: add these by hand:\n%s", r.display(path), tables)
	}
	return &change{path: path, root: root, display: r.display(path), old: old, new: merged, mode: mode, hooks: true}, nil
}

// codexHookTables is regs as Codex's inline hook tables, in order: an
// array of tables per entry ([[hooks.Stop]]) holding its handler
// ([[hooks.Stop.hooks]]).
func codexHookTables(regs []hookReg, timeout int, commands map[string]string) []byte {
	var b strings.Builder
	for i, reg := range regs {
		if i > 0 {
			b.WriteString("\n")
		}
		command := commands[reg.program]
		if reg.flags != "" {
			command += " " + reg.flags
		}
		fmt.Fprintf(&b, "[[hooks.%s]]\n", reg.event)
		if reg.matcher != "" {
			fmt.Fprintf(&b, "matcher = %s\n", tomlString(reg.matcher))
		}
		fmt.Fprintf(&b, "\n[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %s\ntimeout = %d\n", reg.event, tomlString(command), timeout)
	}
	return []byte(b.String())
}

// tomlString is s as a TOML basic string. JSON's string escapes are
// TOML's (\", \\, \n, \uXXXX, ...), but for DEL, which JSON leaves as it
// is and a TOML string may not hold.
func tomlString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.ReplaceAll(strings.TrimSuffix(b.String(), "\n"), "\x7f", `\u007f`)
}
