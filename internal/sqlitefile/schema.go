package sqlitefile

import (
	"fmt"
	"strings"
)

// columns returns the column names of a CREATE TABLE statement, as the
// schema table keeps it (the statement as written, comments included),
// and whether the table is WITHOUT ROWID. A record stores its values in
// this order, so it is what maps a value to its column.
func columns(sql string) (names []string, withoutRowid bool, err error) {
	toks := tokens(sql)
	open := -1
	for i, t := range toks {
		if t == "(" {
			open = i
			break
		}
	}
	if open < 0 {
		return nil, false, fmt.Errorf("%w: no column list in %q", ErrUnsupported, clip(sql))
	}
	depth, start := 0, open+1
	end := -1
	for i := open; i < len(toks) && end < 0; i++ {
		switch toks[i] {
		case "(":
			depth++
		case ")":
			depth--
			if depth == 0 {
				end = i
			}
		}
		if (depth == 1 && toks[i] == ",") || end == i {
			if def := toks[start:i]; len(def) > 0 && !constraint(def[0]) {
				names = append(names, unquote(def[0]))
			}
			start = i + 1
		}
	}
	if end < 0 || len(names) == 0 {
		return nil, false, fmt.Errorf("%w: column list of %q", ErrFormat, clip(sql))
	}
	rest := toks[end+1:]
	for i := 0; i+1 < len(rest); i++ {
		if strings.EqualFold(rest[i], "WITHOUT") && strings.EqualFold(rest[i+1], "ROWID") {
			withoutRowid = true
		}
	}
	return names, withoutRowid, nil
}

// constraint reports whether a definition in the column list starting
// with word is a table constraint rather than a column.
func constraint(word string) bool {
	switch strings.ToUpper(word) {
	case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN":
		return true
	}
	return false
}

// tokens splits SQL into what columns needs: quoted names and strings
// whole, words, and single punctuation; comments and spaces dropped.
func tokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case strings.HasPrefix(s[i:], "--"):
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(s)
			}
		case strings.HasPrefix(s[i:], "/*"):
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(s)
			}
		case c == '"' || c == '\'' || c == '`' || c == '[':
			closer := c
			if c == '[' {
				closer = ']'
			}
			j := i + 1
			for j < len(s) {
				if s[j] == closer {
					// A doubled quote is one quote inside the name.
					if closer != ']' && j+1 < len(s) && s[j+1] == closer {
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(s))
			out = append(out, s[i:j])
			i = j
		case c == '(' || c == ')' || c == ',' || c == ';':
			out = append(out, string(c))
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r\f\v\"'`[(),;", rune(s[j])) &&
				!strings.HasPrefix(s[j:], "--") && !strings.HasPrefix(s[j:], "/*") {
				j++
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out
}

// unquote returns a name without its quotes, doubled quotes made single.
func unquote(t string) string {
	if len(t) >= 2 {
		switch q := t[0]; q {
		case '"', '\'', '`':
			if t[len(t)-1] == q {
				return strings.ReplaceAll(t[1:len(t)-1], string([]byte{q, q}), string(q))
			}
		case '[':
			if t[len(t)-1] == ']' {
				return t[1 : len(t)-1]
			}
		}
	}
	return t
}

// clip shortens a statement for a message.
func clip(s string) string {
	if len(s) > 80 {
		return strings.ToValidUTF8(s[:80], "") + "..."
	}
	return s
}
