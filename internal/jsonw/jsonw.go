// Package jsonw writes the JSON of the few records every hook writes at
// every stop or tool call (its answer, the session's count, the decision
// log's line) without encoding/json, and reads them back with gjson: in a
// process that lives a few milliseconds, encoding/json's first use of a
// type (reflecting over its fields, building its coder) is most of what
// writing or reading it costs, about a fifth of a millisecond for these
// (docs/performance.md). Each record writes and reads its own fields;
// its tests hold both to encoding/json for the same value.
package jsonw

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, as encoding/json writes it:
// '"', '\\' and the control characters escaped (\b, \f, \n, \r and \t by
// their short forms), an invalid byte of UTF-8 written as \ufffd (Go
// 1.27's encoding/json writes U+FFFD itself: the same string), U+2028
// and U+2029 escaped (JavaScript reads them as line ends), and with html
// set '<', '>' and '&' escaped too, as json.Marshal does (an Encoder with
// SetEscapeHTML(false) does not).
func AppendString(dst []byte, s string, html bool) []byte {
	dst = append(dst, '"')
	done := 0 // s[:done] is in dst
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			var esc string
			switch {
			case c == '"':
				esc = `\"`
			case c == '\\':
				esc = `\\`
			case c == '\n':
				esc = `\n`
			case c == '\r':
				esc = `\r`
			case c == '\t':
				esc = `\t`
			case c == '\b':
				esc = `\b`
			case c == '\f':
				esc = `\f`
			case c < 0x20, html && (c == '<' || c == '>' || c == '&'):
				dst = append(dst, s[done:i]...)
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
				i++
				done = i
				continue
			default:
				i++
				continue
			}
			dst = append(dst, s[done:i]...)
			dst = append(dst, esc...)
			i++
			done = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[done:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[done:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		done = i
	}
	dst = append(dst, s[done:]...)
	return append(dst, '"')
}

// An Object appends a JSON object's fields to a buffer, in the order
// they are added. Its strings are escaped as AppendString's html says.
type Object struct {
	buf    []byte
	fields int
	html   bool
}

// NewObject begins an object at the end of dst.
func NewObject(dst []byte, html bool) *Object {
	return &Object{buf: append(dst, '{'), html: html}
}

// key begins the field called key; its value is appended next.
func (o *Object) key(key string) {
	if o.fields > 0 {
		o.buf = append(o.buf, ',')
	}
	o.fields++
	o.buf = AppendString(o.buf, key, o.html)
	o.buf = append(o.buf, ':')
}

// String adds a string field.
func (o *Object) String(key, v string) {
	o.key(key)
	o.buf = AppendString(o.buf, v, o.html)
}

// StringOmitEmpty adds a string field unless v is empty, as the tag
// option omitempty does.
func (o *Object) StringOmitEmpty(key, v string) {
	if v != "" {
		o.String(key, v)
	}
}

// Int adds an integer field.
func (o *Object) Int(key string, v int64) {
	o.key(key)
	o.buf = strconv.AppendInt(o.buf, v, 10)
}

// IntOmitEmpty adds an integer field unless v is 0.
func (o *Object) IntOmitEmpty(key string, v int64) {
	if v != 0 {
		o.Int(key, v)
	}
}

// Uint adds an unsigned integer field.
func (o *Object) Uint(key string, v uint64) {
	o.key(key)
	o.buf = strconv.AppendUint(o.buf, v, 10)
}

// Bool adds a boolean field.
func (o *Object) Bool(key string, v bool) {
	o.key(key)
	o.buf = strconv.AppendBool(o.buf, v)
}

// BoolOmitEmpty adds a boolean field unless v is false.
func (o *Object) BoolOmitEmpty(key string, v bool) {
	if v {
		o.Bool(key, v)
	}
}

// Time adds a time field as time.Time's MarshalJSON writes it (RFC 3339
// with nanoseconds); a time it refuses (a year outside 0-9999) is an
// error, as for encoding/json.
func (o *Object) Time(key string, t time.Time) error {
	b, err := t.MarshalJSON()
	if err != nil {
		return err
	}
	o.key(key)
	o.buf = append(o.buf, b...)
	return nil
}

// Raw adds a field whose value is the JSON raw, written as it is: the
// caller's to have made valid and compact.
func (o *Object) Raw(key string, raw []byte) {
	o.key(key)
	o.buf = append(o.buf, raw...)
}

// Object adds a field whose value is the object fill writes; an error of
// fill's is returned, the object then half written.
func (o *Object) Object(key string, fill func(*Object) error) error {
	o.key(key)
	in := &Object{buf: append(o.buf, '{'), html: o.html}
	err := fill(in)
	o.buf = in.End()
	return err
}

// Array adds a field whose value is an array of n elements, each
// appended by elem.
func (o *Object) Array(key string, n int, elem func(b []byte, i int) []byte) {
	o.key(key)
	o.buf = AppendArray(o.buf, n, elem)
}

// StringsOmitEmpty adds a field whose value is ss, as AppendStrings
// writes it, unless ss is empty (omitempty).
func (o *Object) StringsOmitEmpty(key string, ss []string) {
	if len(ss) == 0 {
		return
	}
	o.key(key)
	o.buf = AppendStrings(o.buf, ss, o.html)
}

// End closes the object and returns the buffer.
func (o *Object) End() []byte { return append(o.buf, '}') }

// AppendArray appends an array of n elements, each appended by elem.
func AppendArray(b []byte, n int, elem func(b []byte, i int) []byte) []byte {
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, i)
	}
	return append(b, ']')
}

// AppendStrings appends ss as json.Marshal writes a []string: null for
// nil.
func AppendStrings(b []byte, ss []string, html bool) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	return AppendArray(b, len(ss), func(b []byte, i int) []byte { return AppendString(b, ss[i], html) })
}

// AppendMap appends m as json.Marshal writes a map with string keys:
// null for nil, the keys sorted, each value added by field.
func AppendMap[V any](b []byte, m map[string]V, html bool, field func(o *Object, key string, v V)) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	o := NewObject(b, html)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		field(o, k, m[k])
	}
	return o.End()
}

// Parse returns the JSON value data holds; false when data is not JSON.
func Parse(data []byte) (gjson.Result, bool) {
	if !gjson.ValidBytes(data) {
		return gjson.Result{}, false
	}
	return gjson.ParseBytes(data), true
}

// Fields calls field for each field of v, an object, until one refuses
// its value, and reports whether all were taken; null has no fields. Any
// other value is refused, as json.Unmarshal refuses it for a struct or a
// map.
func Fields(v gjson.Result, field func(key string, v gjson.Result) bool) bool {
	switch {
	case v.Type == gjson.Null:
		return true
	case !v.IsObject():
		return false
	}
	ok := true
	v.ForEach(func(k, fv gjson.Result) bool {
		ok = field(k.Str, fv)
		return ok
	})
	return ok
}

// ParseFields is Fields on the JSON value data holds; false also when
// data is not JSON.
func ParseFields(data []byte, field func(key string, v gjson.Result) bool) bool {
	v, ok := Parse(data)
	return ok && Fields(v, field)
}

// ErrRefused is DecodeFields' error.
var ErrRefused = errors.New("not the record's JSON")

// DecodeFields is ParseFields for a record's DecodeRecord: ErrRefused
// where ParseFields reports false.
func DecodeFields(data []byte, field func(key string, v gjson.Result) bool) error {
	if !ParseFields(data, field) {
		return ErrRefused
	}
	return nil
}

// The readers below take a value as json.Unmarshal takes it into a Go
// value of the type: false where it returned an error; null leaves dst as
// it is.

// ReadString reads a string.
func ReadString(v gjson.Result, dst *string) bool {
	switch v.Type {
	case gjson.Null:
		return true
	case gjson.String:
		*dst = v.Str
		return true
	}
	return false
}

// ReadInt reads a number with no fraction or exponent that fits an int.
func ReadInt(v gjson.Result, dst *int) bool {
	n := int64(*dst)
	ok := readInt(v, &n, strconv.IntSize)
	*dst = int(n)
	return ok
}

// ReadInt64 reads a number with no fraction or exponent that fits an
// int64.
func ReadInt64(v gjson.Result, dst *int64) bool { return readInt(v, dst, 64) }

func readInt(v gjson.Result, dst *int64, bits int) bool {
	switch v.Type {
	case gjson.Null:
		return true
	case gjson.Number:
		n, err := strconv.ParseInt(v.Raw, 10, bits)
		if err != nil {
			return false
		}
		*dst = n
		return true
	}
	return false
}

// ReadUint64 reads a number with no sign, fraction or exponent that fits
// a uint64.
func ReadUint64(v gjson.Result, dst *uint64) bool {
	switch v.Type {
	case gjson.Null:
		return true
	case gjson.Number:
		n, err := strconv.ParseUint(v.Raw, 10, 64)
		if err != nil {
			return false
		}
		*dst = n
		return true
	}
	return false
}

// ReadArray reads an array, each element with read; null makes dst nil,
// as json.Unmarshal does for a slice. A refused element leaves dst as it
// was.
func ReadArray[T any](v gjson.Result, dst *[]T, read func(gjson.Result, *T) bool) bool {
	switch {
	case v.Type == gjson.Null:
		*dst = nil
		return true
	case !v.IsArray():
		return false
	}
	out := []T{}
	ok := true
	v.ForEach(func(_, ev gjson.Result) bool {
		var e T
		ok = read(ev, &e)
		out = append(out, e)
		return ok
	})
	if ok {
		*dst = out
	}
	return ok
}

// ReadStrings reads an array of strings (see ReadArray).
func ReadStrings(v gjson.Result, dst *[]string) bool { return ReadArray(v, dst, ReadString) }

// ReadBool reads true or false.
func ReadBool(v gjson.Result, dst *bool) bool {
	switch v.Type {
	case gjson.Null:
		return true
	case gjson.True, gjson.False:
		*dst = v.Type == gjson.True
		return true
	}
	return false
}

// ReadTime reads a time as time.Time's UnmarshalJSON does: an RFC 3339
// string.
func ReadTime(v gjson.Result, dst *time.Time) bool {
	if v.Type != gjson.Null && v.Type != gjson.String {
		return false
	}
	return dst.UnmarshalJSON([]byte(v.Raw)) == nil
}
