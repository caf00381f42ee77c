package feedback

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// text/template is the reference of this package's executor (exec.go):
// every template here is parsed and run by both, on the same data, and
// must give the same output (a failing run's partial output too), the
// same parse error and the same execution error, word for word.

// rendered is one template run: its output and its errors as text.
type rendered struct {
	Out, ParseErr, ExecErr string
}

// renderOurs runs text through parseTemplate and the executor, untrimmed.
func renderOurs(name, text string, data any) rendered {
	t, err := parseTemplate(name, text)
	if err != nil {
		return rendered{ParseErr: err.Error()}
	}
	var b bytes.Buffer
	r := rendered{}
	if err := t.execute(&b, data); err != nil {
		r.ExecErr = err.Error()
	}
	r.Out = b.String()
	return r
}

// renderReference runs text through text/template as the package did
// before it had its own executor.
func renderReference(name, text string, data any) rendered {
	t, err := template.New(name).Funcs(template.FuncMap(Funcs)).Option("missingkey=error").Parse(text)
	if err != nil {
		return rendered{ParseErr: err.Error()}
	}
	var b bytes.Buffer
	r := rendered{}
	if err := t.Execute(&b, data); err != nil {
		r.ExecErr = err.Error()
	}
	r.Out = b.String()
	return r
}

// pair is a struct among the data: fields, an unexported one, no methods.
type pair struct {
	Name   string
	N      int
	hidden string
}

// testData is the data the differential tests run templates on: every
// kind of value feedback parameters hold (see Normalize and the checkers'
// c.Fail calls), and a few they do not, for the error paths. Both
// executors of a comparison get the same one (it prints pointers), built
// afresh for each: a template cannot change it, but a test need not
// depend on that.
func testData() map[string]any {
	return map[string]any{
		"S": "str", "E": "", "Q": `a "q" <b>&'=`, "U": "ünï\tcödé\x01 + /?",
		"T": true, "F": false,
		"I": 3, "Z": 0, "One": 1, "Neg": -2, "Fl": 1.5, "FlInt": 2.0, "Big": int64(1 << 40), "U8": uint8(7),
		"L": []string{"a", "b", "c", "d"}, "L0": []string{}, "LN": []string(nil),
		"A":   []any{"x", 2, true, nil, 1.5, map[string]any{"K": "v"}, []string{"y"}},
		"M":   map[string]any{"K": "v", "N": 2, "Sub": map[string]any{"Deep": "d"}, "b": 1, "a": 0, "Nil": nil},
		"MS":  []map[string]any{{"Path": "p1", "Why": ""}, {"Path": "p2", "Why": "w"}},
		"MSS": []map[string]string{{"Path": "x", "Found": "y"}},
		"MI":  map[int]string{3: "c", 1: "a", 2: "b"},
		"Nil": nil,
		"P":   pair{"n", 4, "h"}, "PP": &pair{"m", 5, "i"}, "NilP": (*pair)(nil),
		"Fn":    func(a int) int { return a + 1 },
		"FnErr": func() (string, error) { return "", errors.New("boom") },
	}
}

// execCases are templates the executor must run as text/template does,
// each on testData: every construct, builtin and Func, and their errors.
var execCases = []string{
	// Text, comments, trim markers.
	"plain text", "a {{/* c */}} b", "a  {{- /* c */ -}}  b", "x\n{{- .S -}}\ny", "{{.S}}  {{- .I}}",
	// Fields, dot, $, chains, missing keys, nil.
	"{{.}}", "{{$}}", "{{.S}} {{.I}} {{.Fl}} {{.FlInt}} {{.Big}} {{.U8}} {{.T}} {{.F}} {{.Neg}}",
	"{{.M.K}} {{.M.Sub.Deep}} {{.M.N}}", "{{.M.Nil}}", "{{.Nil}}", "{{.M.Missing}}", "{{.Missing}}", "{{.Missing.X}}",
	"{{.M.Sub.Nope}}", "{{.S.X}}", "{{.L.X}}", "{{.Nil.X}}", "{{.M.Nil.X}}", "{{.P.Name}} {{.P.N}} {{.PP.Name}}",
	"{{.P.hidden}}", "{{.P.Nope}}", "{{.NilP.Name}}", "{{.NilP.Nope}}", "{{.P}}", "{{.PP}}", "{{.NilP}}",
	"{{.L}} {{.L0}} {{.LN}} {{.A}} {{.M}} {{.MS}} {{.MSS}} {{.MI}}", "{{.Fn}}", "{{.Fn 1}}", "{{.S 1}}", "{{.P.Name 1}}",
	"{{(.M).K}}", "{{(.M.Sub).Deep}}", "{{(nil).X}}", "{{(.S).X}}", "{{.E}}|{{.Q}}|{{.U}}",
	// Variables.
	"{{$x := .S}}{{$x}}", "{{$x := 1}}{{$x = 2}}{{$x}}", "{{$x = 2}}", "{{$y}}", "{{$x := .M}}{{$x.K}}{{$x.Sub.Deep}}",
	"{{$x := .I}}{{if .T}}{{$x = 5}}{{$y := 6}}{{end}}{{$x}}", "{{$x := 1}}{{range .L}}{{$x = .}}{{end}}{{$x}}",
	"{{$.S}}{{with .M}}{{$.S}}{{.K}}{{end}}", "{{$x := .M}}{{$x 1}}",
	// Pipelines and parentheses.
	`{{.S | printf "%q"}}`, `{{"a" | printf "%s-%s" "b"}}`, `{{.L | join ", "}}`, `{{.I | len}}`, `{{1 | .S}}`,
	`{{(len .L) | printf "%d"}}`, `{{printf "%d %s" (len .L) (index .L 1)}}`, "{{(.S)}}", "{{(1)}}", "{{nil}}", "{{(nil)}}",
	`{{1 2}}`, `{{"s" .}}`, `{{.S | .I}}`, `{{true}} {{false}} {{1.5}} {{0x10}} {{'a'}} {{1e3}} {{-1}} {{1i}}`,
	"{{99999999999999999999}}", "{{0x1p-2}}",
	// if, else if, else; with.
	"{{if .T}}y{{end}}", "{{if .F}}y{{else}}n{{end}}", "{{if .F}}1{{else if .Z}}2{{else if .L}}3{{end}}",
	"{{if .E}}1{{else if .L0}}2{{else if .LN}}3{{else if .Nil}}4{{else if .M.Nil}}5{{else}}6{{end}}",
	"{{if .P}}s{{end}}{{if .NilP}}p{{end}}{{if .PP}}q{{end}}{{if .Fn}}f{{end}}{{if .Fl}}l{{end}}",
	"{{with .S}}{{.}}{{end}}", "{{with .E}}x{{else}}empty{{end}}", "{{with .M.Sub}}{{.Deep}}{{end}}",
	"{{with $x := .I}}{{$x}}{{.}}{{end}}", "{{with .Z}}a{{else with .S}}{{.}}{{end}}", "{{if .M.Missing}}x{{end}}",
	"{{with .Missing}}x{{end}}", "{{if}}{{end}}",
	// range.
	"{{range .L}}[{{.}}]{{end}}", "{{range $i, $e := .L}}{{$i}}={{$e}};{{end}}", "{{range $e := .L}}{{$e}}{{end}}",
	"{{range .L0}}x{{else}}none{{end}}", "{{range .LN}}x{{else}}nil{{end}}", "{{range .Nil}}x{{else}}nil{{end}}",
	"{{range $k, $v := .M}}{{$k}}:{{$v}} {{end}}", "{{range .MI}}{{.}}{{end}}", "{{range $k, $v := .MI}}{{$k}}{{end}}",
	"{{range .I}}{{.}}{{end}}", "{{range $i := .I}}{{$i}}{{end}}", "{{range $i, $e := .I}}{{end}}", "{{range .Z}}x{{else}}zero{{end}}",
	"{{range .Neg}}x{{else}}neg{{end}}", "{{range .U8}}{{.}}{{end}}", "{{range 3}}{{.}}{{end}}", "{{range .S}}x{{end}}",
	"{{range .Fl}}x{{end}}", "{{range .Fn}}x{{end}}", "{{range .P}}x{{end}}", "{{range .T}}x{{end}}",
	"{{range .L}}{{if eq . \"b\"}}{{continue}}{{end}}{{if eq . \"d\"}}{{break}}{{end}}{{.}}{{end}}",
	"{{range .L}}{{range .}}{{end}}{{end}}", "{{range .MS}}{{.Path}}{{with .Why}} ({{.}}){{end}};{{end}}",
	"{{range .MSS}}{{.Path}}={{.Found}}{{.Nope}}{{end}}", "{{range .A}}<{{.}}>{{end}}", "{{range $i, $m := .MS}}{{if $i}}, {{end}}{{$m.Path}}{{end}}",
	"{{$x := 0}}{{range $x = .L}}{{end}}{{$x}}", "{{$i := 0}}{{$e := 0}}{{range $i, $e = .L}}{{end}}{{$i}}{{$e}}",
	"{{break}}", "{{range .L}}{{$v := .}}{{end}}{{$v}}",
	// Builtins.
	"{{and 1 0 .Missing}} {{and 1 2}} {{or 0 \"\" .S}} {{or 0 .Z}} {{and .T}} {{or}}", "{{and .Missing 1}}", "{{or .S .Missing}}",
	"{{.T | and 1}} {{.Z | or 0}}", "{{not .T}} {{not .E}} {{not .L}} {{not}}", "{{not 1 2}}",
	"{{len .S}} {{len .L}} {{len .M}} {{len .LN}} {{len .A}}", "{{len .I}}", "{{len .Nil}}", "{{len .NilP}}", "{{len}}",
	"{{index .L 1}} {{index .M \"K\"}} {{index .M \"Nope\"}} {{index .MI 2}} {{index .A 5 \"K\"}} {{index .S 0}}", "{{index .L 9}}",
	"{{index .L -1}}", "{{index .L \"x\"}}", "{{index .M 1}}", "{{index .Nil 1}}", "{{index .L}}", "{{index .I 0}}", "{{index .MI .Nil}}",
	"{{slice .L 1 3}} {{slice .L 2}} {{slice .S 1 2}} {{slice .L}} {{slice .L 1 2 3}}", "{{slice .L 3 1}}", "{{slice .S 1 2 3}}",
	"{{slice .M 1}}", "{{slice .L 9}}", "{{slice .Nil 0}}",
	"{{eq .I 3}} {{eq .S \"str\"}} {{eq .I 1 2 3}} {{eq .T true}} {{eq .Fl 1.5}} {{eq .U8 7}} {{eq .Big 1}} {{eq .Nil .Nil}}",
	"{{eq .I .S}}", "{{eq .L .L}}", "{{eq .M .M}}", "{{eq .P .P}}", "{{eq .NilP .Nil}}", "{{eq .I}}", "{{eq .I .Fl}}", "{{eq .U8 .I}}",
	"{{ne .I 3}} {{ne .S \"x\"}} {{lt .I 4}} {{le .I 3}} {{gt .Neg -3}} {{ge .Fl 1.5}} {{lt .S \"t\"}} {{lt .U8 9}} {{lt .Neg .U8}}",
	"{{lt .T .F}}", "{{lt .L .L}}", "{{gt .I \"1\"}}", "{{lt 1 2 3}}", "{{eq .M.K \"v\"}} {{eq .M.Missing 1}}", "{{eq .A .A}}", "{{eq .Fn .Fn}}",
	`{{print .S 1 2 "a" "b" .L}} {{print}} {{println .S .I}} {{printf "%v|%d|%5.2f|%x" .M .I .Fl .S}} {{printf "%d" .S}} {{printf}}`,
	"{{print .NilP .Nil}} {{printf \"%v\" .NilP}} {{println}}",
	"{{html .Q}} {{js .Q}} {{js .U}} {{urlquery .Q .U}} {{html .I .S}} {{js}} {{urlquery}} {{html .NilP}}",
	"{{call .Fn 1}} {{call .Fn}}", "{{call .FnErr}}", "{{call .S}}", "{{call .Nil}}", "{{call .Fn \"x\"}}", "{{call}}", "{{.I | call .Fn}}",
	// feedback's own Funcs.
	`{{join .L ", "}} {{join .A "+"}} {{join .LN ","}} {{join .S ","}} {{join .Nil ","}}`, `{{join .L}}`, `{{join .L 1}}`,
	"{{bullets .L}}\n{{bullets .A}}\n{{bullets .L0}}", "{{head 2 .L}} {{head 9 .L}} {{head -1 .L}} {{head 1 .A}} {{head 1 .MS}}",
	"{{head 1 .S}}", "{{head .S .L}}", "{{head 1 .Nil}}", `{{join (head 3 .L) ", "}}{{if gt (len .L) 3}}, ...{{end}}`,
	`{{plural .I "x" "xs"}} {{plural .One "x" "xs"}} {{plural .Fl "x" "xs"}} {{plural .Nil "x" "xs"}} {{plural (len .A) "a" "as"}}`,
	`{{plural 1 "x"}}`, `{{"x" | plural 1 "a"}}`,
	// define, template, block.
	`{{define "t"}}[{{.}}]{{end}}{{template "t" .S}}{{template "t"}}{{template "t" .L}}`,
	`{{block "b" .M}}{{.K}}{{end}}|{{template "b" .M.Sub}}`, `{{template "nope"}}`, `{{define "t"}}{{$}}{{$x := 1}}{{end}}{{$x := 2}}{{template "t" 3}}{{$x}}`,
	`{{define "t"}}a{{end}}{{define "t"}}b{{end}}`, `{{define "t"}}{{end}}{{define "t"}}b{{end}}{{template "t"}}`,
	`{{define "u"}}{{.Missing}}{{end}}x{{template "u" .}}`, `{{define "x.tmpl"}}a{{end}}b`, `{{define "x.tmpl"}}a{{end}}`,
	// Parse errors.
	"{{.S", "{{.S}", "{{if .T}}x", "{{end}}", "{{else}}", "{{range .L}}{{else if .T}}{{end}}", "{{shout .S}}", "{{$x}}",
	"{{.S | 1}}", "{{1 | 2}}", `{{"unterminated}}`, "{{with}}{{end}}", "{{continue}}", "{{template .S}}", "{{define}}{{end}}",
	"a\nb\n{{if .I}}c", "{{/* unclosed", "{{$x := 1 := 2}}", "{{.S.}}", "{{..}}", "{{(}}", "{{)}}", "{{$x, $y := .L}}",
	"{{range $a, $b, $c := .L}}{{end}}", "{{html .S | join}}", "{{nil | print}}", "{{if nil}}{{end}}",
}

// TestExecMatchesTextTemplate: each of execCases renders on testData as
// text/template renders it.
func TestExecMatchesTextTemplate(t *testing.T) {
	for i, text := range execCases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			data := testData()
			want := renderReference("x.tmpl", text, data)
			got := renderOurs("x.tmpl", text, data)
			assert.Equal(t, want, got, "template %q", text)
		})
	}
}

// TestBuiltinsMatchTextTemplate: every built-in template renders its own
// example (as a checker builds it and as the result cache reads it back)
// as text/template renders it, and the pins of TestBuiltinWording as well.
func TestBuiltinsMatchTextTemplate(t *testing.T) {
	for _, p := range Patterns {
		t.Run(p, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("templates", p+".tmpl"))
			require.NoError(t, err)
			m := regexp.MustCompile(`^\{\{- /\* example: (.*) \*/ -\}\}\n`).FindSubmatch(src)
			if m == nil {
				t.Skipf("%s.tmpl has no example", p)
			}
			var raw map[string]any
			require.NoError(t, json.Unmarshal(m[1], &raw))
			for _, params := range []map[string]any{raw, Normalize(raw)} {
				want := renderReference(p+".tmpl", string(src), params)
				got := renderOurs(p+".tmpl", string(src), params)
				assert.Equal(t, want, got)
			}
			// Other values of each example's keys reach the other branches.
			for k := range raw {
				for _, v := range []any{"", "not-started", "timeout", "budget", "signal", "empty", "exit_code:0", 0, 1, 2, true, false, nil, []string{}, []string{"a"}} {
					params := Normalize(raw)
					params[k] = v
					want := renderReference(p+".tmpl", string(src), params)
					got := renderOurs(p+".tmpl", string(src), params)
					assert.Equal(t, want, got, "%s=%#v", k, v)
				}
			}
		})
	}
}

// TestMethodsAreNotCalled pins the one deliberate difference from
// text/template: a value's methods are not fields to the executor
// (feedback parameters have none; see exec.go).
func TestMethodsAreNotCalled(t *testing.T) {
	data := map[string]any{"D": withMethod{}}
	assert.Equal(t, rendered{Out: "called"}, renderReference("x.tmpl", "{{.D.Method}}", data))
	assert.Equal(t, rendered{ExecErr: `template: x.tmpl:1:4: executing "x.tmpl" at <.D.Method>: can't evaluate field Method in type interface {}`},
		renderOurs("x.tmpl", "{{.D.Method}}", data))
}

type withMethod struct{}

func (withMethod) Method() string { return "called" }

// FuzzExecMatchesTextTemplate: templates built from a grammar of actions
// (gen), or taken as they come, render on testData as text/template
// renders them.
func FuzzExecMatchesTextTemplate(f *testing.F) {
	for _, text := range execCases {
		f.Add(append([]byte{1}, text...))
	}
	for _, seed := range []string{"", "\x00\x01\x02\x03", "\x05\x10\x22\x31\x47\x53\x69\x7f", "\x02\x04\x06\x08\x0a\x0c\x0e\x10\x12\x14\x16"} {
		f.Add([]byte("\x00" + seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		var text string
		if in[0]&1 == 1 {
			text = string(in[1:])
			if unbounded(text) {
				return
			}
		} else {
			g := &gen{in: in[1:]}
			text = g.template()
		}
		data := testData()
		want := renderReference("x.tmpl", text, data)
		got := renderOurs("x.tmpl", text, data)
		if want != got {
			t.Fatalf("template %q:\ntext/template: %+v\nfeedback:      %+v", text, want, got)
		}
	})
}

// bigNumber finds a number that could make a range run long: a literal
// of three digits or more, a prefixed or rune literal.
var bigNumber = regexp.MustCompile(`[0-9_]{3}|0[xXbBoO]|'`)

// unbounded reports whether a template taken as it comes might run for
// long or recurse deep (in both executors alike): a template invocation
// (which may recurse), a range over a large number, or ranges nested
// deep.
func unbounded(text string) bool {
	return strings.Contains(text, "template") || strings.Contains(text, "block") ||
		bigNumber.MatchString(text) || strings.Count(text, "range") > 2
}

// gen builds a template from a grammar of text/template's actions,
// choosing each production by the next byte of in (0 once it runs out,
// which always picks the shortest choice, so every input ends).
type gen struct {
	in      []byte
	b       strings.Builder
	vars    []string
	depth   int
	inRange int
	defined []string
}

func (g *gen) next(n int) int {
	if len(g.in) == 0 {
		return 0
	}
	c := g.in[0]
	g.in = g.in[1:]
	return int(c) % n
}

func (g *gen) pick(list ...string) string { return list[g.next(len(list))] }

func (g *gen) template() string {
	for i, n := 0, g.next(3); i < n; i++ {
		name := fmt.Sprintf("d%d", i)
		g.b.WriteString(`{{define "` + name + `"}}`)
		g.list()
		g.b.WriteString("{{end}}")
		g.defined = append(g.defined, name)
	}
	g.list()
	return g.b.String()
}

func (g *gen) list() {
	g.depth++
	defer func() { g.depth-- }()
	mark := len(g.vars)
	defer func() { g.vars = g.vars[:mark] }()
	for i, n := 0, g.next(5); i < n; i++ {
		g.item()
	}
}

func (g *gen) open() string  { return g.pick("{{", "{{", "{{- ") }
func (g *gen) close() string { return g.pick("}}", "}}", " -}}") }

func (g *gen) item() {
	choice := g.next(12)
	if g.depth > 3 && choice > 5 {
		choice %= 6
	}
	switch choice {
	case 0, 1:
		g.b.WriteString(g.pick("a", " ", "\n", " x \n ", "<&>", "%d", "é"))
	case 2, 3:
		g.b.WriteString(g.open())
		g.pipeline(true)
		g.b.WriteString(g.close())
	case 4:
		g.b.WriteString(g.open() + "/* c */" + g.close())
	case 5:
		if len(g.vars) > 0 && g.next(2) == 0 {
			g.b.WriteString(g.open() + g.vars[g.next(len(g.vars))] + " = ")
		} else {
			v := fmt.Sprintf("$v%d", len(g.vars))
			g.b.WriteString(g.open() + v + " := ")
			defer func() { g.vars = append(g.vars, v) }()
		}
		g.pipeline(true)
		g.b.WriteString(g.close())
	case 6, 7:
		kw := g.pick("if", "with")
		g.b.WriteString(g.open() + kw + " ")
		g.pipeline(true)
		g.b.WriteString(g.close())
		g.list()
		for g.next(3) == 1 {
			g.b.WriteString(g.open() + "else " + kw + " ")
			g.pipeline(true)
			g.b.WriteString(g.close())
			g.list()
		}
		if g.next(2) == 1 {
			g.b.WriteString(g.open() + "else" + g.close())
			g.list()
		}
		g.b.WriteString(g.open() + "end" + g.close())
	case 8, 9:
		g.b.WriteString(g.open() + "range ")
		mark := len(g.vars)
		switch g.next(3) {
		case 1:
			g.b.WriteString("$e := ")
			g.vars = append(g.vars, "$e")
		case 2:
			g.b.WriteString("$i, $e := ")
			g.vars = append(g.vars, "$i", "$e")
		}
		g.b.WriteString(g.pick(".L", ".M", ".MS", ".A", ".MI", ".I", ".L0", ".Nil", "3", ".S", "(slice .L 1)"))
		g.b.WriteString(g.close())
		g.inRange++
		g.list()
		g.inRange--
		g.vars = g.vars[:mark]
		if g.next(2) == 1 {
			g.b.WriteString(g.open() + "else" + g.close())
			g.list()
		}
		g.b.WriteString(g.open() + "end" + g.close())
	case 10:
		if g.inRange > 0 {
			g.b.WriteString(g.open() + g.pick("break", "continue") + g.close())
			return
		}
		g.b.WriteString("b")
	case 11:
		if len(g.defined) > 0 && g.next(3) > 0 {
			g.b.WriteString(g.open() + `template "` + g.defined[g.next(len(g.defined))] + `"`)
			if g.next(2) == 1 {
				g.b.WriteString(" ")
				g.pipeline(true)
			}
			g.b.WriteString(g.close())
			return
		}
		g.b.WriteString(g.open() + `block "b` + fmt.Sprint(g.depth) + `" `)
		g.pipeline(true)
		g.b.WriteString(g.close())
		g.list()
		g.b.WriteString(g.open() + "end" + g.close())
	}
}

// pipeline writes commands joined by "|"; the later ones are mostly
// function calls, which take the value before as their last argument.
func (g *gen) pipeline(top bool) {
	g.command()
	if !top {
		return
	}
	for i, n := 0, g.next(3); i < n; i++ {
		g.b.WriteString(" | ")
		g.call()
	}
}

var genFuncs = []string{"and", "or", "not", "len", "index", "slice", "eq", "ne", "lt", "le", "gt", "ge",
	"print", "printf", "println", "html", "js", "urlquery", "call", "join", "bullets", "head", "plural"}

func (g *gen) call() {
	g.b.WriteString(genFuncs[g.next(len(genFuncs))])
	for i, n := 0, g.next(4); i < n; i++ {
		g.b.WriteString(" ")
		g.operand()
	}
}

func (g *gen) command() {
	if g.next(3) == 0 {
		g.call()
		return
	}
	g.operand()
}

func (g *gen) operand() {
	switch g.next(8) {
	case 0, 1, 2:
		g.b.WriteString(g.pick(".S", ".E", ".I", ".Z", ".One", ".Neg", ".Fl", ".T", ".F", ".L", ".L0", ".LN", ".A", ".M", ".M.K",
			".M.Sub.Deep", ".M.Nil", ".MS", ".MSS", ".MI", ".Nil", ".P", ".P.Name", ".PP.N", ".NilP", ".Fn", ".FnErr", ".Q", ".U",
			".Missing", ".M.Missing", ".Big", ".U8", ".FlInt"))
	case 3:
		g.b.WriteString(g.pick(".", "$", "$.L", "$.M.K"))
	case 4:
		if len(g.vars) > 0 {
			g.b.WriteString(g.vars[g.next(len(g.vars))] + g.pick("", "", ".K", ".Path"))
			return
		}
		g.b.WriteString("$")
	case 5:
		g.b.WriteString(g.pick(`"b"`, `"%v-%d"`, `", "`, `"K"`, `"str"`, "0", "1", "2", "-1", "1.5", "true", "false", "nil", "'x'"))
	case 6, 7:
		if g.depth > 5 {
			g.b.WriteString(".S")
			return
		}
		g.depth++
		g.b.WriteString("(")
		g.pipeline(g.next(2) == 1)
		g.b.WriteString(")")
		if g.next(4) == 0 {
			g.b.WriteString(g.pick(".K", ".Path", ".Deep"))
		}
		g.depth--
	}
}
