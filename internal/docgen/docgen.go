// Package docgen writes the parts of the manual (docs/) that code can
// produce, so that they cannot drift from it: the checker reference in
// docs/checkers.md, from the checker registry (through the JSON Schema the
// registry generates, whose descriptions are the options' doc comments),
// and docs/flags.md, from the flag sets stop-hook, posttooluse-hook and
// every closer command parse. `go generate ./internal/docgen` (part of
// `make generate`) rewrites them; its test fails while a checked-in page
// is stale. Nothing that runs as a hook or as closer imports it.
package docgen

//go:generate go run gen.go

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/config"
	"github.com/donegate/donegate/internal/cli"
	"github.com/donegate/donegate/internal/closer"
	"github.com/donegate/donegate/internal/gate"
	"github.com/donegate/donegate/schema"
)

// The pages docgen writes, relative to the module's directory.
const (
	CheckersPage = "docs/checkers.md"
	FlagsPage    = "docs/flags.md"
)

// The markers around the generated parts of CheckersPage, the table at a
// glance and the reference; what lies outside them is written by hand.
const (
	beginTable     = "<!-- BEGIN GENERATED: the checker table, from the registry (make generate); do not edit -->\n"
	endTable       = "<!-- END GENERATED: the checker table -->\n"
	beginReference = "<!-- BEGIN GENERATED: the checker reference, from the registry (make generate); do not edit -->\n"
	endReference   = "<!-- END GENERATED: the checker reference -->\n"
)

// Pages returns each page docgen writes, by its path relative to module
// (the module's directory), as it must be checked in.
func Pages(module string) (map[string][]byte, error) {
	defs, err := checkerDefs(module)
	if err != nil {
		return nil, fmt.Errorf("checker reference: %w", err)
	}
	ref, err := checkerReference(defs)
	if err != nil {
		return nil, err
	}
	page, err := os.ReadFile(filepath.Join(module, CheckersPage))
	if err != nil {
		return nil, fmt.Errorf("checker reference: %w", err)
	}
	page, err = splice(page, beginTable, endTable, checkerTable(defs))
	if err != nil {
		return nil, fmt.Errorf("checker table: %s: %w", CheckersPage, err)
	}
	page, err = splice(page, beginReference, endReference, ref)
	if err != nil {
		return nil, fmt.Errorf("checker reference: %s: %w", CheckersPage, err)
	}
	return map[string][]byte{CheckersPage: page, FlagsPage: flags()}, nil
}

// splice replaces what lies between the markers begin and end in page
// with part.
func splice(page []byte, begin, end string, part []byte) ([]byte, error) {
	b0 := bytes.Index(page, []byte(begin))
	e0 := bytes.Index(page, []byte(end))
	if b0 < 0 || e0 < b0 {
		return nil, fmt.Errorf("no %q line followed by a %q line", strings.TrimSpace(begin), strings.TrimSpace(end))
	}
	var b bytes.Buffer
	b.Write(page[:b0+len(begin)])
	b.Write(part)
	b.Write(page[e0:])
	return b.Bytes(), nil
}

// node is one object of the JSON Schema.
type node = map[string]any

// commonKeys are the keys every checker takes, told once above the
// reference rather than in each type's table.
var commonKeys = []string{"type", "name", "on"}

// checkerDefs returns the definitions of the JSON Schema the registry
// generates, by name ("checker-plan").
func checkerDefs(module string) (map[string]node, error) {
	raw, err := schema.Generate(module)
	if err != nil {
		return nil, err
	}
	var s struct {
		Defs map[string]node `json:"$defs"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("the schema: %w", err)
	}
	return s.Defs, nil
}

// checkerTable returns the table at a glance of CheckersPage: a row per
// registered type, with its keys (those it requires marked) and its
// summary, linked to its reference.
func checkerTable(defs map[string]node) []byte {
	var b bytes.Buffer
	b.WriteString("| checker | keys | complete when |\n|---|---|---|\n")
	for _, t := range checkers.Types() {
		var keys []string
		var rows [][3]string
		keyRows(defs["checker-"+t.Name], "", &rows)
		for _, r := range rows {
			if strings.Contains(r[0], "[].") {
				continue // a key of an array's items: see the reference
			}
			k := r[0]
			if strings.HasSuffix(r[1], ", required") {
				k += " (required)"
			}
			keys = append(keys, k)
		}
		if keys == nil {
			keys = []string{"—"}
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", t.Name, t.Name, strings.Join(keys, ", "), cell(t.Summary))
	}
	return b.Bytes()
}

// checkerReference returns the reference of every registered checker
// type, in Markdown: its summary, the events it runs at and a table of its
// keys, each with its JSON, whether it is required and its description
// (the doc comment of its options field, which ends with its default).
func checkerReference(defs map[string]node) ([]byte, error) {
	var b bytes.Buffer
	for _, t := range checkers.Types() {
		def, ok := defs["checker-"+t.Name]
		if !ok {
			return nil, fmt.Errorf("checker reference: the schema has no definition of %q", t.Name)
		}
		ct, ok := config.LookupType(t.Name)
		if !ok {
			return nil, fmt.Errorf("checker reference: the config knows no type %q", t.Name)
		}
		fmt.Fprintf(&b, "\n### `%s`\n\nComplete when %s.\n\n", t.Name, text(t.Summary))
		fmt.Fprintf(&b, "Runs at (unless its `on` says otherwise): %s.", events(ct.DefaultOn))
		if ct.Only != nil {
			fmt.Fprintf(&b, " Can run only at %s.", events(ct.Only))
		}
		b.WriteString("\n")
		var rows [][3]string
		keyRows(def, "", &rows)
		if len(rows) == 0 {
			b.WriteString("\nIt takes no keys but `type`, `name` and `on`.\n")
			continue
		}
		b.WriteString("\n| key | value | meaning |\n|---|---|---|\n")
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", r[0], r[1], r[2])
		}
	}
	return b.Bytes(), nil
}

// keyRows appends a row for each key of the object schema n, and for the
// keys of the objects its arrays hold, their names prefixed with
// "key[]."; the keys every checker takes are left out.
func keyRows(n node, prefix string, rows *[][3]string) {
	props, _ := n["properties"].(node)
	required := map[string]bool{}
	if req, ok := n["required"].([]any); ok {
		for _, r := range req {
			required[r.(string)] = true
		}
	}
	names := make([]string, 0, len(props))
	for k := range props {
		if prefix == "" && slices.Contains(commonKeys, k) {
			continue
		}
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		p := props[k].(node)
		value := kind(p)
		if required[k] {
			value += ", required"
		}
		desc, _ := p["description"].(string)
		*rows = append(*rows, [3]string{"`" + prefix + k + "`", cell(value), cell(desc)})
		if items, ok := p["items"].(node); ok && items["properties"] != nil {
			keyRows(items, prefix+k+"[].", rows)
		}
	}
}

// kind says in words what JSON a schema node takes.
func kind(n node) string {
	for _, alt := range []string{"oneOf", "anyOf"} {
		alts, ok := n[alt].([]any)
		if !ok {
			continue
		}
		var ks []string
		for _, a := range alts {
			a := a.(node)
			if _, zero := a["const"]; zero && len(a) == 1 {
				// The zero value a key left out decodes to: no
				// one writes it.
				continue
			}
			ks = append(ks, kind(a))
		}
		return strings.Join(ks, " or ")
	}
	if ref, ok := n["$ref"].(string); ok && strings.HasSuffix(ref, "/checker") {
		return "a checker"
	}
	if enum, ok := n["enum"].([]any); ok {
		vs := make([]string, len(enum))
		for i, v := range enum {
			j, _ := json.Marshal(v)
			vs[i] = "`" + string(j) + "`"
		}
		return "one of " + strings.Join(vs, ", ")
	}
	switch n["type"] {
	case "string":
		if p, _ := n["pattern"].(string); strings.Contains(p, "(ns|us|") {
			return "duration"
		}
		if n["minLength"] != nil {
			return "non-empty string"
		}
		return "string"
	case "integer":
		if m, ok := n["exclusiveMinimum"]; ok {
			return "integer > " + number(m)
		}
		if m, ok := n["minimum"]; ok {
			return "integer ≥ " + number(m)
		}
		return "integer"
	case "boolean":
		return "boolean"
	case "object":
		return "object"
	case "array":
		items, _ := n["items"].(node)
		of := "array of "
		if n["minItems"] != nil {
			of = "non-empty array of "
		}
		switch {
		case items["properties"] != nil:
			return of + "objects (below)"
		case items["$ref"] != nil:
			return of + "checkers"
		}
		return of + kind(items) + " items"
	}
	return "any JSON value"
}

// number writes a JSON number of the schema as an integer when it is one.
func number(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// events writes event names as a list in words.
func events(es []string) string {
	q := make([]string, len(es))
	for i, e := range es {
		q[i] = "`" + e + "`"
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// text escapes plain text for Markdown: outside `code`, a backslash, *, _
// between spaces and < would otherwise be read as markup.
func text(s string) string {
	parts := strings.Split(s, "`")
	for i := 0; i < len(parts); i += 2 { // the even parts are outside code
		parts[i] = strings.NewReplacer(`\`, `\\`, "*", `\*`, "<", "&lt;", " _", ` \_`).Replace(parts[i])
	}
	return strings.Join(parts, "`")
}

// cell is text for a table cell: on one line, its pipes escaped (a table
// needs that inside code spans too).
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(text(s), "\n", " "), "|", `\|`)
}

// flagsHead opens FlagsPage.
const flagsHead = `# Flags

<!-- Generated from the flag sets of the binaries (make generate; internal/docgen): do not edit. -->

Every binary prints this with ` + "`--help`" + ` (` + "`closer COMMAND --help`" + ` for a
closer command) and its version with ` + "`--version`" + `. Both hooks read the event
on stdin; ` + "`stop-hook`" + ` also takes ` + "`--criteria`" + `: at ` + "`SessionStart`" + ` and
` + "`UserPromptSubmit`" + `, tell the agent what will be checked and check nothing (see
[Telling the agent up front](feedback.md#telling-the-agent-up-front)). What each
closer command does, and its exit codes: [closer](closer.md).
`

// flags returns FlagsPage: for each binary, and each closer command, its
// usage line, its summary and a table of its flags, as --help prints them.
func flags() []byte {
	var b bytes.Buffer
	b.WriteString(flagsHead)
	for _, name := range []string{gate.StopHookName, gate.ToolHookName} {
		fs, summary := gate.FlagSet(name)
		flagSection(&b, name, name+" [flags] < event.json", summary, fs)
	}
	var usage bytes.Buffer
	closer.PrintUsage(&usage)
	fmt.Fprintf(&b, "\n## closer\n\n```text\n%s```\n", usage.String())
	for _, c := range closer.Commands() {
		flagSection(&b, c.Flags.Name(), c.Usage, c.Summary, c.Flags)
	}
	return b.Bytes()
}

// flagSection writes one binary's or command's part of FlagsPage.
func flagSection(b *bytes.Buffer, name, usage, summary string, fs *flag.FlagSet) {
	fmt.Fprintf(b, "\n## %s\n\n```text\nUsage: %s\n\n%s\n```\n\n", name, usage, summary)
	b.WriteString("| flag | default | meaning |\n|---|---|---|\n")
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		name := "--" + f.Name
		if value != "" {
			name += " " + strings.ToUpper(value)
		}
		def := cli.Default(f)
		if def != "" {
			def = "`" + def + "`"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", name, cell(def), cell(usage))
	})
	b.WriteString("| `--help` | | print this and exit |\n")
}
