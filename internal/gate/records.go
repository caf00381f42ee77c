package gate

import (
	"errors"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsonw"
)

// The progress and prompts records are read and written at every hold,
// so they code their own JSON (state.RecordDecoder, RecordAppender):
// encoding/json's first use of a type costs a hook's process a tenth of
// a millisecond. TestRecordsAsEncodingJSON holds them to encoding/json.

// stalls is the progress record: each gate's holds without progress.
type stalls map[string]stall

var errRecord = errors.New("not the record's JSON")

// DecodeRecord reads data as json.Unmarshal reads a map[string]stall,
// whole or not at all; but null leaves m as it is, where json.Unmarshal
// made it nil, which a hold then wrote into (a panic).
func (m *stalls) DecodeRecord(data []byte) error {
	out := stalls{}
	if !jsonw.ParseFields(data, func(key string, sv gjson.Result) bool {
		var st stall
		ok := jsonw.Fields(sv, func(f string, fv gjson.Result) bool {
			switch f {
			case "open":
				return jsonw.ReadString(fv, &st.Open)
			case "tree":
				return jsonw.ReadString(fv, &st.Tree)
			case "prompt":
				return jsonw.ReadString(fv, &st.Prompt)
			case "holds":
				return jsonw.ReadInt(fv, &st.Holds)
			}
			return true
		})
		out[key] = st
		return ok
	}) {
		return errRecord
	}
	if *m == nil {
		*m = out
	} else {
		for k, st := range out {
			(*m)[k] = st
		}
	}
	return nil
}

// AppendRecord writes m as json.Marshal writes a map[string]stall.
func (m stalls) AppendRecord(b []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	o := jsonw.NewObject(b, true)
	for _, k := range keys {
		st := m[k]
		_ = o.Object(k, func(so *jsonw.Object) error {
			so.String("open", st.Open)
			so.StringOmitEmpty("tree", st.Tree)
			so.Int("holds", int64(st.Holds))
			so.StringOmitEmpty("prompt", st.Prompt)
			return nil
		})
	}
	return o.End()
}

// promptList is the prompts record: the turns of the person's prompts.
type promptList []string

// DecodeRecord reads data as json.Unmarshal reads a []string, whole or
// not at all.
func (l *promptList) DecodeRecord(data []byte) error {
	v, ok := jsonw.Parse(data)
	if !ok {
		return errRecord
	}
	switch {
	case v.Type == gjson.Null:
		*l = nil
		return nil
	case !v.IsArray():
		return errRecord
	}
	out := promptList{}
	v.ForEach(func(_, pv gjson.Result) bool {
		var p string
		ok = jsonw.ReadString(pv, &p)
		out = append(out, p)
		return ok
	})
	if !ok {
		return errRecord
	}
	*l = out
	return nil
}

// AppendRecord writes l as json.Marshal writes a []string.
func (l promptList) AppendRecord(b []byte) []byte {
	if l == nil {
		return append(b, "null"...)
	}
	return jsonw.AppendArray(b, len(l), func(b []byte, i int) []byte { return jsonw.AppendString(b, l[i], true) })
}

// stringMap is a record of strings by key: the notices told by topic
// (tellOnce), the hosts' turns by gate (hostTurn).
type stringMap map[string]string

// DecodeRecord reads data as json.Unmarshal reads a map[string]string,
// whole or not at all; but null leaves m as it is (json.Unmarshal made
// it nil, which tellOnce and keepTurn then wrote into: a panic).
func (m *stringMap) DecodeRecord(data []byte) error {
	out := stringMap{}
	if !jsonw.ParseFields(data, func(key string, v gjson.Result) bool {
		var s string
		ok := jsonw.ReadString(v, &s)
		out[key] = s
		return ok
	}) {
		return errRecord
	}
	if *m == nil {
		*m = out
	} else {
		for k, s := range out {
			(*m)[k] = s
		}
	}
	return nil
}

// AppendRecord writes m as json.Marshal writes a map[string]string.
func (m stringMap) AppendRecord(b []byte) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	o := jsonw.NewObject(b, true)
	for _, k := range keys {
		o.String(k, m[k])
	}
	return o.End()
}

// DecodeRecord reads data as json.Unmarshal reads a seen.
func (sn *seen) DecodeRecord(data []byte) error {
	if !jsonw.ParseFields(data, func(key string, v gjson.Result) bool {
		switch key {
		case "start":
			return jsonw.ReadTime(v, &sn.Start)
		case "changed":
			return jsonw.ReadBool(v, &sn.Changed)
		}
		return true
	}) {
		return errRecord
	}
	return nil
}

// AppendRecord writes sn as json.Marshal does. A time it refuses (a year
// past 9999, which no clock gives) is written as "", which reads back as
// a damaged record: none.
func (sn seen) AppendRecord(b []byte) []byte {
	o := jsonw.NewObject(b, true)
	if o.Time("start", sn.Start) != nil {
		o.String("start", "")
	}
	o.BoolOmitEmpty("changed", sn.Changed)
	return o.End()
}

// DecodeRecord reads data as json.Unmarshal reads a takenRecord (every
// stop of a host that names its stops reads it).
func (rec *takenRecord) DecodeRecord(data []byte) error {
	if !jsonw.ParseFields(data, func(key string, v gjson.Result) bool {
		if key != "taken" {
			return true
		}
		switch {
		case v.Type == gjson.Null:
			rec.Taken = nil
			return true
		case !v.IsArray():
			return false
		}
		taken, ok := []takenStop{}, true
		v.ForEach(func(_, sv gjson.Result) bool {
			var st takenStop
			ok = jsonw.Fields(sv, func(f string, fv gjson.Result) bool {
				switch f {
				case "gate":
					return jsonw.ReadString(fv, &st.Gate)
				case "stop":
					return jsonw.ReadString(fv, &st.Stop)
				}
				return true
			})
			taken = append(taken, st)
			return ok
		})
		if ok {
			rec.Taken = taken
		}
		return ok
	}) {
		return errRecord
	}
	return nil
}

// AppendRecord writes rec as json.Marshal does.
func (rec takenRecord) AppendRecord(b []byte) []byte {
	o := jsonw.NewObject(b, true)
	if len(rec.Taken) > 0 {
		o.Array("taken", len(rec.Taken), func(b []byte, i int) []byte {
			so := jsonw.NewObject(b, true)
			so.String("gate", rec.Taken[i].Gate)
			so.String("stop", rec.Taken[i].Stop)
			return so.End()
		})
	}
	return o.End()
}
