package feedback

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/stretchr/testify/assert"
)

// The bounds (bound.go) change nothing for a template within them: every
// case here loads and renders as text/template alone loads and renders
// it, with the same parse error, output and execution error. (The cases
// held the copy of text/template's executor that feedback once had to
// text/template; issue 18.)

// pair is a struct among the data: fields, an unexported one, no methods.
type pair struct {
	Name   string
	N      int
	hidden string
}

// testData is the data the cases run on: every kind of value feedback
// parameters hold (see Normalize and the checkers' c.Fail calls), and a
// few they do not, for the error paths.
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

// execCases are templates a user's retry template may be, each on
// testData: every construct, builtin and Func, and their errors.
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

// rendered is one template run: its output and its errors as text.
type rendered struct {
	Out, ParseErr, ExecErr string
}

// TestBoundsChangeNothingWithinThem: each of execCases renders on testData
// through parseTemplate and executeBounded as through text/template
// alone.
func TestBoundsChangeNothingWithinThem(t *testing.T) {
	for i, text := range execCases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			// One value for both runs: it prints pointers.
			data := testData()
			var want rendered
			if tmpl, err := template.New("x.tmpl").Funcs(Funcs).Option("missingkey=error").Parse(text); err != nil {
				want.ParseErr = err.Error()
			} else {
				var b bytes.Buffer
				if err := tmpl.Execute(&b, data); err != nil {
					want.ExecErr = err.Error()
				} else {
					want.Out = strings.TrimSpace(b.String())
				}
			}
			var got rendered
			if tmpl, err := parseTemplate("x.tmpl", text); err != nil {
				got.ParseErr = err.Error()
			} else if out, err := executeBounded(tmpl, data, time.Now().Add(time.Hour)); err != nil {
				got.ExecErr = err.Error()
			} else {
				got.Out = out
			}
			assert.Equal(t, want, got, "template %q", text)
		})
	}
}
