package closer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// jnode is a JSON value that keeps the order of its object's keys:
// encoding/json decodes objects into maps, and init must give back a
// settings file with every key where its owner put it. A value decoded
// from a file keeps its text, written back as it was unless the value
// changed: the diff of a change shows ours, not a reformatted file.
type jnode struct {
	raw   []byte // the text it was decoded from; nil for a new value
	dirty bool   // changed since: written anew, its unchanged parts as they were

	kind    byte            // '{', '[' or 0 for a scalar
	members []jmember       // kind '{', in the file's order
	items   []*jnode        // kind '['
	scalar  json.RawMessage // kind 0: the value as JSON
}

type jmember struct {
	key string
	// rawKey is the key's text in the file, written back as it was: a
	// key with a lone surrogate or invalid UTF-8 decodes to U+FFFD, and
	// re-encoding it would change the key. nil for a new key.
	rawKey []byte
	value  *jnode
}

// get returns the value of key in an object, the last one when the key
// is repeated (as JSON.parse, which Claude Code uses, and encoding/json
// do), or nil.
func (n *jnode) get(key string) *jnode {
	if n.kind != '{' {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].value
		}
	}
	return nil
}

// str returns a string scalar's value and whether n is one.
func (n *jnode) str() (string, bool) {
	if n == nil || n.kind != 0 || len(n.scalar) == 0 || n.scalar[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(n.scalar, &s); err != nil {
		return "", false
	}
	return s, true
}

func (n *jnode) set(key string, v *jnode) {
	n.members = append(n.members, jmember{key: key, value: v})
	n.dirty = true
}

// typeName names n's JSON type for error messages.
func (n *jnode) typeName() string {
	switch {
	case n.kind == '{':
		return "an object"
	case n.kind == '[':
		return "an array"
	case n.scalar[0] == '"':
		return "a string"
	case n.scalar[0] == 't' || n.scalar[0] == 'f':
		return "a boolean"
	case n.scalar[0] == 'n':
		return "null"
	}
	return "a number"
}

func newObject() *jnode { return &jnode{kind: '{'} }

func newScalar(v any) *jnode {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// Encoding a string or a number cannot fail.
	_ = enc.Encode(v)
	return &jnode{scalar: bytes.TrimSuffix(b.Bytes(), []byte("\n"))}
}

// parseJSON decodes one JSON document into a jnode. A syntax error names
// its line and column: the user has to find it in their file.
func parseJSON(data []byte) (*jnode, error) {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			// Offset counts the bytes read, the offending one included.
			line, col := lineCol(data, se.Offset-1)
			return nil, fmt.Errorf("not valid JSON: line %d, column %d: %s", line, col, se.Error())
		}
		if err == nil {
			err = errors.New("trailing data after the value")
		}
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return decodeNode(dec, data)
}

// decodeNode decodes the next value of dec, which reads data, with its
// text.
func decodeNode(dec *json.Decoder, data []byte) (*jnode, error) {
	// The decoder's offset is past the last token: the value starts after
	// the white space, comma or colon that follow it.
	start := int(dec.InputOffset())
	for start < len(data) && strings.IndexByte(" \t\r\n,:", data[start]) >= 0 {
		start++
	}
	n, err := decodeValue(dec, data)
	if err != nil {
		return nil, err
	}
	n.raw = data[start:dec.InputOffset()]
	return n, nil
}

func decodeValue(dec *json.Decoder, data []byte) (*jnode, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := newObject()
			for dec.More() {
				// As in decodeNode: the key starts after the white space
				// or comma that follow the last token, and the decoder
				// stops right after its closing quote.
				start := int(dec.InputOffset())
				for start < len(data) && strings.IndexByte(" \t\r\n,", data[start]) >= 0 {
					start++
				}
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				rawKey := data[start:dec.InputOffset()]
				v, err := decodeNode(dec, data)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, jmember{key: key, rawKey: rawKey, value: v})
			}
			_, err := dec.Token() // '}'
			return n, err
		case '[':
			n := &jnode{kind: '['}
			for dec.More() {
				v, err := decodeNode(dec, data)
				if err != nil {
					return nil, err
				}
				n.items = append(n.items, v)
			}
			_, err := dec.Token() // ']'
			return n, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		// As written: 600 stays 600, 1e3 stays 1e3.
		return &jnode{scalar: json.RawMessage(t.String())}, nil
	}
	return newScalar(tok), nil
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// detectIndent returns the indentation unit of a JSON text: the leading
// white space of its first indented line, else two spaces.
func detectIndent(data []byte) string {
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		if trimmed != "" && len(trimmed) < len(line) {
			return line[:len(line)-len(trimmed)]
		}
	}
	return "  "
}

// detectNewline returns the line end of a JSON text: "\r\n" when its
// first line ends so, else "\n": the lines init adds end as the file's.
func detectNewline(data []byte) string {
	if i := bytes.IndexByte(data, '\n'); i > 0 && data[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// encode writes n indented with indent, one member or item a line, as
// json.MarshalIndent does, with nl ending each line; without a final one.
func (n *jnode) encode(indent, nl string) []byte {
	var b bytes.Buffer
	n.write(&b, indent, nl, 0)
	return b.Bytes()
}

func (n *jnode) write(w io.Writer, indent, nl string, depth int) {
	if n.raw != nil && !n.dirty {
		w.Write(n.raw)
		return
	}
	pad := nl + strings.Repeat(indent, depth+1)
	switch n.kind {
	case '{':
		if len(n.members) == 0 {
			io.WriteString(w, "{}")
			return
		}
		io.WriteString(w, "{")
		for i, m := range n.members {
			if i > 0 {
				io.WriteString(w, ",")
			}
			io.WriteString(w, pad)
			if m.rawKey != nil {
				w.Write(m.rawKey)
			} else {
				w.Write(newScalar(m.key).scalar)
			}
			io.WriteString(w, ": ")
			m.value.write(w, indent, nl, depth+1)
		}
		io.WriteString(w, nl+strings.Repeat(indent, depth)+"}")
	case '[':
		if len(n.items) == 0 {
			io.WriteString(w, "[]")
			return
		}
		io.WriteString(w, "[")
		for i, it := range n.items {
			if i > 0 {
				io.WriteString(w, ",")
			}
			io.WriteString(w, pad)
			it.write(w, indent, nl, depth+1)
		}
		io.WriteString(w, nl+strings.Repeat(indent, depth)+"]")
	default:
		w.Write(n.scalar)
	}
}
