package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsonw"
	"github.com/donegate/donegate/internal/limit"
)

// The record is read and written by hand (a count from its description,
// a jsonw.Record), not with encoding/json: every stop reads and writes it, in a process that lives
// a few milliseconds, and encoding/json's first decode and encode of a
// type cost it about a tenth of a millisecond (see package jsonw).
// TestRecordsAsEncodingJSON holds both to what encoding/json made of the
// same record; records written by earlier versions read the same.

// errDamaged is decodeSession's answer for a record encoding/json would
// have refused (a value of the wrong JSON type, a count that is not an
// integer, a time that is not RFC 3339): the count starts over.
var errDamaged = errors.New("state: damaged record")

// decodeSession reads a record: a JSON object whose fields are those of
// Session (others are left alone; null is no value, as for
// encoding/json). Anything else is errDamaged.
func decodeSession(line []byte) (*Session, error) {
	s := &Session{}
	if !jsonw.ParseFields(line, func(key string, v gjson.Result) bool {
		switch key {
		case "prompt_id":
			return jsonw.ReadString(v, &s.LegacyPromptID)
		case "counters":
			return counters(v, &s.Counters)
		case "checkers":
			return raws(v, &s.Checkers)
		case "baselines":
			s.LegacyBaselines = json.RawMessage(v.Raw)
		case "phase":
			s.LegacyPhase = json.RawMessage(v.Raw)
		}
		return true
	}) {
		return nil, errDamaged
	}
	return s, nil
}

// counters reads the counts by gate, each an object or null (no count).
func counters(v gjson.Result, dst *map[string]*limit.Counter) bool {
	if v.Type == gjson.Null {
		return true
	}
	if *dst == nil {
		*dst = map[string]*limit.Counter{}
	}
	return jsonw.Fields(v, func(key string, cv gjson.Result) bool {
		if cv.Type == gjson.Null {
			(*dst)[key] = nil
			return true
		}
		c := (*dst)[key]
		if c == nil {
			c = &limit.Counter{}
		}
		(*dst)[key] = c
		return counterFields.Read(cv, c)
	})
}

// counterFields describe a count; its times are refused, as by
// json.Marshal, outside the years 0-9999.
var counterFields = jsonw.Record[limit.Counter]{
	jsonw.StringField("prompt_id", func(c *limit.Counter) *string { return &c.PromptID }, jsonw.OmitEmpty),
	jsonw.IntField("blocks", func(c *limit.Counter) *int { return &c.Blocks }, jsonw.Always),
	jsonw.TimeField("first_block", func(c *limit.Counter) *time.Time { return &c.FirstBlock }, ""),
	jsonw.BoolField("exhausted", func(c *limit.Counter) *bool { return &c.Exhausted }, jsonw.OmitEmpty),
	jsonw.TimeField("touched", func(c *limit.Counter) *time.Time { return &c.Touched }, ""),
}

// raws reads an object of any JSON values, each kept as it is written.
func raws(v gjson.Result, dst *map[string]json.RawMessage) bool {
	if v.Type == gjson.Null {
		return true
	}
	if *dst == nil {
		*dst = map[string]json.RawMessage{}
	}
	return jsonw.Fields(v, func(key string, rv gjson.Result) bool {
		(*dst)[key] = json.RawMessage(rv.Raw)
		return true
	})
}

// appendJSON writes s as one line of JSON, as json.Marshal wrote it: the
// fields in Session's order, maps by sorted key, raw values compact.
func (s *Session) appendJSON(b []byte) ([]byte, error) {
	o := jsonw.NewObject(b, true)
	o.StringOmitEmpty("prompt_id", s.LegacyPromptID)
	if s.Counters == nil {
		o.Raw("counters", []byte("null"))
	} else if err := o.Object("counters", func(co *jsonw.Object) error {
		for _, k := range slices.Sorted(maps.Keys(s.Counters)) {
			if err := appendCounter(co, k, s.Counters[k]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if len(s.Checkers) > 0 {
		if err := o.Object("checkers", func(co *jsonw.Object) error {
			for _, k := range slices.Sorted(maps.Keys(s.Checkers)) {
				raw, err := compact(s.Checkers[k])
				if err != nil {
					return err
				}
				co.Raw(k, raw)
			}
			return nil
		}); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		key string
		raw json.RawMessage
	}{{"baselines", s.LegacyBaselines}, {"phase", s.LegacyPhase}} {
		if len(f.raw) > 0 {
			raw, err := compact(f.raw)
			if err != nil {
				return nil, err
			}
			o.Raw(f.key, raw)
		}
	}
	return o.End(), nil
}

// appendCounter adds the count c (nil: null) to o as the field key.
func appendCounter(o *jsonw.Object, key string, c *limit.Counter) error {
	if c == nil {
		o.Raw(key, []byte("null"))
		return nil
	}
	return o.Object(key, func(fo *jsonw.Object) error { return counterFields.Fill(fo, c) })
}

// needsCompact reports whether raw, valid JSON, differs from what
// json.Marshal writes of it as a json.RawMessage: white space outside its
// strings, or '<', '>', '&', U+2028 or U+2029 (in valid JSON these are
// within strings). The white space within strings (a kept event's texts)
// is no reason to compact: one pass, no copy.
func needsCompact(raw []byte) bool {
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '<' || c == '>' || c == '&':
			return true
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			return true
		case inString && c == '\\':
			i++ // the escaped byte, a quote perhaps
		case c == '"':
			inString = !inString
		case !inString && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			return true
		}
	}
	return false
}

// compact returns raw as json.Marshal writes a json.RawMessage: without
// white space outside its strings (the record is one line), with '<',
// '>', '&', U+2028 and U+2029 escaped (in valid JSON they are within
// strings); and refuses what is not JSON, as json.Marshal does. What Put
// and decodeSession keep needs neither most of the time.
func compact(raw json.RawMessage) (json.RawMessage, error) {
	if !gjson.ValidBytes(raw) {
		return nil, errors.New("state: a record's value is not JSON")
	}
	if !needsCompact(raw) {
		return raw, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	out := b.Bytes()
	for _, r := range []struct{ from, to string }{{"<", `\u003c`}, {">", `\u003e`}, {"&", `\u0026`}, {"\u2028", `\u2028`}, {"\u2029", `\u2029`}} {
		out = bytes.ReplaceAll(out, []byte(r.from), []byte(r.to))
	}
	return out, nil
}
