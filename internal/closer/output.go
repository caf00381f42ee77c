package closer

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/donegate/donegate/hookio"
)

// printer writes the human output: one line per item, ✓ or ✗, the
// evidence indented under it; colour only on a terminal. It remembers the
// first write error.
type printer struct {
	w     io.Writer
	color bool
	err   error
}

func (r *runCtx) printer() *printer { return &printer{w: r.stdout, color: r.color} }

func (p *printer) line(s string) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintln(p.w, s)
}

// maxEvidenceRunes bounds the evidence shown under an item in text output
// (--json has all of it): about 15 lines of a terminal.
const maxEvidenceRunes = 1200

// item prints one checklist line and its evidence. Evidence that is too
// long keeps its head and its tail, with a note of what was cut between
// them, as the hooks' feedback does (hookio.Cut): keeping only the last 15
// lines dropped a failing assertion under five `npm notice` lines, and the
// sentence that said what failed with it.
func (p *printer) item(done bool, title, evidence string) {
	mark := p.red("✗")
	if done {
		mark = p.green("✓")
	}
	p.line(mark + " " + title)
	ev := hookio.StripANSI(strings.TrimSpace(evidence))
	if ev == "" {
		return
	}
	if cut := hookio.Cut(ev, maxEvidenceRunes); cut != ev {
		ev = cut + "\n(--json shows all of it)"
	}
	p.line(p.dim(indent(ev, "    ")))
}

func (p *printer) paint(code, s string) string {
	if !p.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p *printer) green(s string) string { return p.paint("32", s) }
func (p *printer) red(s string) string   { return p.paint("31", s) }
func (p *printer) dim(s string) string   { return p.paint("2", s) }

// writeJSON writes v as one JSON object on one line.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}
