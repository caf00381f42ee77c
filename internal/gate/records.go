package gate

import (
	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsonw"
)

// The records a stop reads or writes every time (the progress, the
// prompts, the notices told, the hosts' turns, the session's start, the
// stops taken) code their own JSON (state.RecordDecoder, RecordAppender):
// encoding/json's first use of a type costs a hook's process a tenth of
// a millisecond. TestRecordsAsEncodingJSON and
// TestMoreRecordsAsEncodingJSON hold them to encoding/json.

// decodeMap reads data as json.Unmarshal reads a map with string keys,
// each value with read, whole or not at all; but null leaves m as it is,
// where json.Unmarshal made it nil, which the callers then wrote into (a
// panic: exit 2 at every stop).
func decodeMap[M ~map[string]V, V any](data []byte, m *M, read func(gjson.Result, *V) bool) error {
	out := M{}
	if err := jsonw.DecodeFields(data, func(key string, v gjson.Result) bool {
		var val V
		ok := read(v, &val)
		out[key] = val
		return ok
	}); err != nil {
		return err
	}
	if *m == nil {
		*m = out
		return nil
	}
	for k, v := range out {
		(*m)[k] = v
	}
	return nil
}

// stalls is the progress record: each gate's holds without progress.
type stalls map[string]stall

// DecodeRecord reads data as json.Unmarshal reads a map[string]stall
// (see decodeMap).
func (m *stalls) DecodeRecord(data []byte) error {
	return decodeMap(data, m, func(v gjson.Result, st *stall) bool {
		return jsonw.Fields(v, func(f string, fv gjson.Result) bool {
			switch f {
			case "open":
				return jsonw.ReadString(fv, &st.Open)
			case "tree":
				return jsonw.ReadString(fv, &st.Tree)
			case "prompt":
				return jsonw.ReadString(fv, &st.Prompt)
			case "holds":
				return jsonw.ReadInt(fv, &st.Holds)
			case "since":
				return jsonw.ReadInt(fv, &st.Since)
			}
			return true
		})
	})
}

// AppendRecord writes m as json.Marshal writes a map[string]stall.
func (m stalls) AppendRecord(b []byte) []byte {
	return jsonw.AppendMap(b, m, true, func(o *jsonw.Object, key string, st stall) {
		_ = o.Object(key, func(so *jsonw.Object) error {
			so.String("open", st.Open)
			so.StringOmitEmpty("tree", st.Tree)
			so.Int("holds", int64(st.Holds))
			so.IntOmitEmpty("since", int64(st.Since))
			so.StringOmitEmpty("prompt", st.Prompt)
			return nil
		})
	})
}

// promptList is the prompts record: the turns of the person's prompts.
type promptList []string

// DecodeRecord reads data as json.Unmarshal reads a []string, whole or
// not at all.
func (l *promptList) DecodeRecord(data []byte) error {
	v, ok := jsonw.Parse(data)
	if !ok || !jsonw.ReadStrings(v, (*[]string)(l)) {
		return jsonw.ErrRefused
	}
	return nil
}

// AppendRecord writes l as json.Marshal writes a []string.
func (l promptList) AppendRecord(b []byte) []byte { return jsonw.AppendStrings(b, l, true) }

// stringMap is a record of strings by key: the notices told by topic
// (tellOnce), the hosts' turns by gate (hostTurn).
type stringMap map[string]string

// DecodeRecord reads data as json.Unmarshal reads a map[string]string
// (see decodeMap).
func (m *stringMap) DecodeRecord(data []byte) error { return decodeMap(data, m, jsonw.ReadString) }

// AppendRecord writes m as json.Marshal writes a map[string]string.
func (m stringMap) AppendRecord(b []byte) []byte {
	return jsonw.AppendMap(b, m, true, func(o *jsonw.Object, key, s string) { o.String(key, s) })
}

// DecodeRecord reads data as json.Unmarshal reads a seen.
func (sn *seen) DecodeRecord(data []byte) error {
	return jsonw.DecodeFields(data, func(key string, v gjson.Result) bool {
		switch key {
		case "start":
			return jsonw.ReadTime(v, &sn.Start)
		case "changed":
			return jsonw.ReadBool(v, &sn.Changed)
		case "head":
			return jsonw.ReadString(v, &sn.Head)
		case "edited":
			return jsonw.ReadStrings(v, &sn.Edited)
		case "many":
			return jsonw.ReadBool(v, &sn.Many)
		}
		return true
	})
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
	o.StringOmitEmpty("head", sn.Head)
	o.StringsOmitEmpty("edited", sn.Edited)
	o.BoolOmitEmpty("many", sn.Many)
	return o.End()
}

// DecodeRecord reads data as json.Unmarshal reads a takenRecord (every
// stop of a host that names its stops reads it).
func (rec *takenRecord) DecodeRecord(data []byte) error {
	return jsonw.DecodeFields(data, func(key string, v gjson.Result) bool {
		if key != "taken" {
			return true
		}
		return jsonw.ReadArray(v, &rec.Taken, func(sv gjson.Result, st *takenStop) bool {
			return jsonw.Fields(sv, func(f string, fv gjson.Result) bool {
				switch f {
				case "gate":
					return jsonw.ReadString(fv, &st.Gate)
				case "stop":
					return jsonw.ReadString(fv, &st.Stop)
				}
				return true
			})
		})
	})
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
