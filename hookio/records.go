package hookio

import (
	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsonw"
)

// The hosts' records in a session's Memo are read at every stop of
// theirs, so they code their own JSON as encoding/json would (the state
// package's RecordDecoder and RecordAppender; see package jsonw):
// TestMemoRecordsAsEncodingJSON holds them to it.

// DecodeRecord reads data as json.Unmarshal reads a codexPlanRecord.
func (r *codexPlanRecord) DecodeRecord(data []byte) error {
	return jsonw.DecodeFields(data, func(key string, v gjson.Result) bool {
		switch key {
		case "transcript":
			return jsonw.ReadString(v, &r.Transcript)
		case "offset":
			return jsonw.ReadInt64(v, &r.Offset)
		case "dev":
			return jsonw.ReadUint64(v, &r.Dev)
		case "ino":
			return jsonw.ReadUint64(v, &r.Ino)
		case "size":
			return jsonw.ReadInt64(v, &r.Size)
		case "tail":
			return jsonw.ReadString(v, &r.Tail)
		case "state":
			return jsonw.ReadString(v, &r.State)
		case "title":
			return jsonw.ReadString(v, &r.Title)
		}
		return true
	})
}

// AppendRecord writes r as json.Marshal does.
func (r codexPlanRecord) AppendRecord(b []byte) []byte {
	o := jsonw.NewObject(b, true)
	o.StringOmitEmpty("transcript", r.Transcript)
	o.IntOmitEmpty("offset", r.Offset)
	o.UintOmitEmpty("dev", r.Dev)
	o.UintOmitEmpty("ino", r.Ino)
	o.IntOmitEmpty("size", r.Size)
	o.StringOmitEmpty("tail", r.Tail)
	o.StringOmitEmpty("state", r.State)
	o.StringOmitEmpty("title", r.Title)
	return o.End()
}

// DecodeRecord reads data as json.Unmarshal reads a geminiTurnRecord.
func (r *geminiTurnRecord) DecodeRecord(data []byte) error {
	return jsonw.DecodeFields(data, func(key string, v gjson.Result) bool {
		switch key {
		case "prompt":
			return jsonw.ReadString(v, &r.Prompt)
		case "turn":
			return jsonw.ReadString(v, &r.Turn)
		case "reasons":
			return jsonw.ReadStrings(v, &r.Reasons)
		}
		return true
	})
}

// AppendRecord writes r as json.Marshal does.
func (r geminiTurnRecord) AppendRecord(b []byte) []byte {
	o := jsonw.NewObject(b, true)
	o.String("prompt", r.Prompt)
	o.String("turn", r.Turn)
	o.StringsOmitEmpty("reasons", r.Reasons)
	return o.End()
}
