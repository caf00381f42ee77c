package gate

import (
	"time"

	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsonw"
)

// The records a stop reads or writes every time (the progress, the
// prompts, the notices told, the hosts' turns, the session's start, the
// stops taken) are read and written from their descriptions (jsonw.Record;
// state.RecordDecoder, RecordAppender) as encoding/json would, without
// it: its first use of a type costs a hook's process a tenth of a
// millisecond. TestRecordsAsEncodingJSON and
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

var stallFields = jsonw.Record[stall]{
	jsonw.StringField("open", func(st *stall) *string { return &st.Open }, jsonw.Always),
	jsonw.StringField("tree", func(st *stall) *string { return &st.Tree }, jsonw.OmitEmpty),
	jsonw.IntField("holds", func(st *stall) *int { return &st.Holds }, jsonw.Always),
	jsonw.IntField("since", func(st *stall) *int { return &st.Since }, jsonw.OmitEmpty),
	jsonw.StringField("prompt", func(st *stall) *string { return &st.Prompt }, jsonw.OmitEmpty),
}

// DecodeRecord reads data as json.Unmarshal reads a map[string]stall
// (see decodeMap).
func (m *stalls) DecodeRecord(data []byte) error { return decodeMap(data, m, stallFields.Read) }

// AppendRecord writes m as json.Marshal writes a map[string]stall.
func (m stalls) AppendRecord(b []byte) []byte {
	return jsonw.AppendMap(b, m, true, func(o *jsonw.Object, key string, st stall) {
		_ = o.Object(key, func(so *jsonw.Object) error { return stallFields.Fill(so, &st) }) // no field of stall's fails
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

// seen's start, when time.Time's MarshalJSON refuses it (a year past
// 9999, which no clock gives), is written as "", which reads back as a
// damaged record: none.
var seenFields = jsonw.Record[seen]{
	jsonw.TimeField("start", func(sn *seen) *time.Time { return &sn.Start }, `""`),
	jsonw.BoolField("changed", func(sn *seen) *bool { return &sn.Changed }, jsonw.OmitEmpty),
	jsonw.StringField("head", func(sn *seen) *string { return &sn.Head }, jsonw.OmitEmpty),
	jsonw.StringsField("edited", func(sn *seen) *[]string { return &sn.Edited }, jsonw.OmitEmpty),
	jsonw.BoolField("many", func(sn *seen) *bool { return &sn.Many }, jsonw.OmitEmpty),
}

// DecodeRecord reads data as json.Unmarshal reads a seen.
func (sn *seen) DecodeRecord(data []byte) error { return seenFields.Decode(data, sn) }

// AppendRecord writes sn as json.Marshal does.
func (sn seen) AppendRecord(b []byte) []byte { return seenFields.AppendOrNull(b, &sn) }

var takenFields = jsonw.Record[takenRecord]{
	jsonw.SliceField("taken", func(rec *takenRecord) *[]takenStop { return &rec.Taken }, takenStopFields, jsonw.OmitEmpty),
}

var takenStopFields = jsonw.Record[takenStop]{
	jsonw.StringField("gate", func(st *takenStop) *string { return &st.Gate }, jsonw.Always),
	jsonw.StringField("stop", func(st *takenStop) *string { return &st.Stop }, jsonw.Always),
}

// DecodeRecord reads data as json.Unmarshal reads a takenRecord (every
// stop of a host that names its stops reads it).
func (rec *takenRecord) DecodeRecord(data []byte) error { return takenFields.Decode(data, rec) }

// AppendRecord writes rec as json.Marshal does.
func (rec takenRecord) AppendRecord(b []byte) []byte { return takenFields.AppendOrNull(b, &rec) }
