package jsonw

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Omit says whether a field is left out when its value is empty: the tag
// option omitempty.
type Omit bool

// The two ways of writing a field.
const (
	Always    Omit = false
	OmitEmpty Omit = true
)

// A Field is one field of a record type T: its key, and how its value is
// read into a T and written from one, as encoding/json does for the
// struct field it stands for.
type Field[T any] struct {
	key   string
	omit  Omit
	read  func(v gjson.Result, r *T) bool
	write func(o *Object, r *T) error
}

// Record describes a record type T by its fields, in the order of the
// struct's (the order json.Marshal writes them): the one description it
// is read and written from. Keys match exactly (encoding/json also takes
// a key in another case; the records are donegate's own writing); a key
// no field has is skipped, as json.Unmarshal skips it.
type Record[T any] []Field[T]

// Decode reads data into r as json.Unmarshal reads a T: ErrRefused where
// it would return an error (r then partly written, as by json.Unmarshal).
func (rec Record[T]) Decode(data []byte, r *T) error {
	v, ok := Parse(data)
	if !ok || !rec.Read(v, r) {
		return ErrRefused
	}
	return nil
}

// Read reads the value v into r, as json.Unmarshal reads a T within a
// larger value: false where it would fail; null leaves r as it is.
func (rec Record[T]) Read(v gjson.Result, r *T) bool {
	return Fields(v, func(key string, fv gjson.Result) bool {
		for i := range rec {
			if rec[i].key == key {
				return rec[i].read(fv, r)
			}
		}
		return true
	})
}

// Append appends r as json.Marshal writes a T; a field's error (a time
// it refuses) is returned.
func (rec Record[T]) Append(b []byte, r *T) ([]byte, error) {
	o := NewObject(b, true)
	if err := rec.Fill(o, r); err != nil {
		return nil, err
	}
	return o.End(), nil
}

// AppendOrNull is Append for a record none of whose fields fails as
// written (see TimeField's refused): null, which reads back as an empty
// record, where one does.
func (rec Record[T]) AppendOrNull(b []byte, r *T) []byte {
	out, err := rec.Append(b, r)
	if err != nil {
		return append(b, "null"...)
	}
	return out
}

// Fill adds r's fields to o, an object being written: r as the value of
// one of o's own fields (see Object.Object), or within a map's.
func (rec Record[T]) Fill(o *Object, r *T) error {
	for i := range rec {
		if err := rec[i].write(o, r); err != nil {
			return fmt.Errorf("%s: %w", rec[i].key, err)
		}
	}
	return nil
}

// StringField is a string field; p points at it in a T.
func StringField[T any](key string, p func(*T) *string, omit Omit) Field[T] {
	return Field[T]{key, omit,
		func(v gjson.Result, r *T) bool { return ReadString(v, p(r)) },
		func(o *Object, r *T) error {
			if s := *p(r); s != "" || omit == Always {
				o.String(key, s)
			}
			return nil
		}}
}

// IntField is a field of a signed integer type.
func IntField[T any, I ~int | ~int64](key string, p func(*T) *I, omit Omit) Field[T] {
	var one I = 1
	bits := 64
	if one<<32 == 0 {
		bits = 32
	}
	return Field[T]{key, omit,
		func(v gjson.Result, r *T) bool {
			n := int64(*p(r))
			ok := readInt(v, &n, bits)
			*p(r) = I(n)
			return ok
		},
		func(o *Object, r *T) error {
			if n := int64(*p(r)); n != 0 || omit == Always {
				o.Int(key, n)
			}
			return nil
		}}
}

// UintField is a uint64 field.
func UintField[T any](key string, p func(*T) *uint64, omit Omit) Field[T] {
	return Field[T]{key, omit,
		func(v gjson.Result, r *T) bool { return ReadUint64(v, p(r)) },
		func(o *Object, r *T) error {
			if n := *p(r); n != 0 || omit == Always {
				o.Uint(key, n)
			}
			return nil
		}}
}

// BoolField is a bool field.
func BoolField[T any](key string, p func(*T) *bool, omit Omit) Field[T] {
	return Field[T]{key, omit,
		func(v gjson.Result, r *T) bool { return ReadBool(v, p(r)) },
		func(o *Object, r *T) error {
			if b := *p(r); b || omit == Always {
				o.Bool(key, b)
			}
			return nil
		}}
}

// StringsField is a []string field.
func StringsField[T any](key string, p func(*T) *[]string, omit Omit) Field[T] {
	return Field[T]{key, omit,
		func(v gjson.Result, r *T) bool { return ReadStrings(v, p(r)) },
		func(o *Object, r *T) error {
			if ss := *p(r); len(ss) > 0 || omit == Always {
				o.key(key)
				o.buf = AppendStrings(o.buf, ss, o.html)
			}
			return nil
		}}
}

// TimeField is a time.Time field (never omitted: omitempty does not omit
// a struct). A time time.Time's MarshalJSON refuses (a year outside
// 0-9999, which no clock gives) is written as the JSON refused, or with
// refused nil is the record's error.
func TimeField[T any](key string, p func(*T) *time.Time, refused string) Field[T] {
	return Field[T]{key, Always,
		func(v gjson.Result, r *T) bool { return ReadTime(v, p(r)) },
		func(o *Object, r *T) error {
			err := o.Time(key, *p(r))
			switch {
			case err != nil && refused != "":
				o.Raw(key, []byte(refused))
			case err != nil:
				return err
			}
			return nil
		}}
}

// SliceField is a field of a slice of records, each described by elem.
func SliceField[T, E any](key string, p func(*T) *[]E, elem Record[E], omit Omit) Field[T] {
	return Field[T]{key, omit,
		func(v gjson.Result, r *T) bool { return ReadArray(v, p(r), elem.Read) },
		func(o *Object, r *T) error {
			s := *p(r)
			if len(s) == 0 && omit == OmitEmpty {
				return nil
			}
			if s == nil {
				o.Raw(key, []byte("null"))
				return nil
			}
			var err error
			o.Array(key, len(s), func(b []byte, i int) []byte {
				eo := NewObject(b, o.html)
				if e := elem.Fill(eo, &s[i]); e != nil && err == nil {
					err = e
				}
				return eo.End()
			})
			return err
		}}
}

// CheckTags reports where rec and T's struct fields differ: a field of
// T's (of an embedded struct's too) that rec lacks or writes under
// another key, in another place or with another omitempty. Tests run it
// for every record (reflection is for them, not for the hooks).
func (rec Record[T]) CheckTags() error {
	type tagged struct {
		key  string
		omit Omit
	}
	var want []tagged
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if f.Anonymous && tag == "" {
				walk(f.Type)
				continue
			}
			if !f.IsExported() || tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if name == "" {
				name = f.Name
			}
			want = append(want, tagged{name, Omit(strings.Contains(","+opts+",", ",omitempty,") && f.Type != reflect.TypeFor[time.Time]())})
		}
	}
	walk(reflect.TypeFor[T]())
	var errs []error
	for i := range max(len(want), len(rec)) {
		switch {
		case i >= len(rec):
			errs = append(errs, fmt.Errorf("field %q of %s has no place in its record", want[i].key, reflect.TypeFor[T]()))
		case i >= len(want):
			errs = append(errs, fmt.Errorf("the record's %q is no field of %s", rec[i].key, reflect.TypeFor[T]()))
		case want[i] != tagged{rec[i].key, rec[i].omit}:
			errs = append(errs, fmt.Errorf("place %d of %s: the struct has %q (omitempty %v), the record %q (omitempty %v)", i, reflect.TypeFor[T](), want[i].key, want[i].omit, rec[i].key, rec[i].omit))
		}
	}
	return errors.Join(errs...)
}
