// Package cli holds what donegate's executables share about their command
// line: flags listed the way the docs write them, and paths quoted for
// the command lines they write or print.
package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// PrintFlags lists the flags of fs in the double-dash form the docs and
// the error messages use (--config FILE), where the flag package's own
// PrintDefaults writes one dash. A flag's usage may name its value in
// backquotes, as with the flag package; the name is shown in capitals.
// A default other than the zero value is shown as PrintDefaults shows it.
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + strings.ToUpper(name)
		}
		if def := Default(f); def != "" {
			usage += " (default " + def + ")"
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
	})
}

// Default is the default of f as PrintFlags shows it, "" when it is the
// zero value: a string quoted, as PrintDefaults quotes it.
func Default(f *flag.Flag) string {
	switch f.DefValue {
	case "", "0", "false", "0s", "[]":
		return ""
	}
	if isQuoted(f) {
		return fmt.Sprintf("%q", f.DefValue)
	}
	return f.DefValue
}

// isQuoted reports whether a flag's default is a string, which
// PrintDefaults quotes.
func isQuoted(f *flag.Flag) bool {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, s := g.Get().(string)
	return s
}

// FlagError rewords an error of flag.FlagSet.Parse in the double-dash form:
// "flag provided but not defined: -bogus" becomes "unknown flag --bogus".
func FlagError(err error) string {
	msg := err.Error()
	for _, r := range []struct{ prefix, form string }{
		{"flag provided but not defined: -", "unknown flag --%s"},
		{"flag needs an argument: -", "flag --%s needs a value"},
	} {
		if rest, ok := strings.CutPrefix(msg, r.prefix); ok {
			return fmt.Sprintf(r.form, rest)
		}
	}
	// invalid value "x" for flag -name: reason
	if i := strings.Index(msg, " for flag -"); i >= 0 && strings.HasPrefix(msg, "invalid ") {
		return msg[:i] + " for flag --" + msg[i+len(" for flag -"):]
	}
	return msg
}

// ShellQuote quotes path for sh -c (Claude Code runs a hook command
// with it, and a person pastes a printed command into one) when it
// holds anything but safe characters; a leading ~ is quoted too.
func ShellQuote(path string) string {
	safe := true
	for _, c := range path {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+@%:,=", c)) {
			safe = false
			break
		}
	}
	if safe && path != "" {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}

// Reflow wraps a help paragraph whose text is partly generated (lists of
// hosts, of files) to width columns, a word never split.
func Reflow(s string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range strings.Fields(s) {
		switch {
		case col == 0:
		case col+1+len(w) > width:
			b.WriteByte('\n')
			col = 0
		default:
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}
