package hookio

import (
	"github.com/donegate/donegate/internal/jsonw"
)

// The hosts' records in a session's Memo are read at every stop of
// theirs, so each is read and written from its description (a
// jsonw.Record) as encoding/json would, without it (the state package's
// RecordDecoder and RecordAppender; see package jsonw):
// TestMemoRecordsAsEncodingJSON holds them to it.

var codexPlanFields = jsonw.Record[codexPlanRecord]{
	jsonw.StringField("transcript", func(r *codexPlanRecord) *string { return &r.Transcript }, jsonw.OmitEmpty),
	jsonw.IntField("offset", func(r *codexPlanRecord) *int64 { return &r.Offset }, jsonw.OmitEmpty),
	jsonw.UintField("dev", func(r *codexPlanRecord) *uint64 { return &r.Dev }, jsonw.OmitEmpty),
	jsonw.UintField("ino", func(r *codexPlanRecord) *uint64 { return &r.Ino }, jsonw.OmitEmpty),
	jsonw.IntField("size", func(r *codexPlanRecord) *int64 { return &r.Size }, jsonw.OmitEmpty),
	jsonw.StringField("tail", func(r *codexPlanRecord) *string { return &r.Tail }, jsonw.OmitEmpty),
	jsonw.StringField("state", func(r *codexPlanRecord) *string { return &r.State }, jsonw.OmitEmpty),
	jsonw.StringField("title", func(r *codexPlanRecord) *string { return &r.Title }, jsonw.OmitEmpty),
}

// DecodeRecord reads data as json.Unmarshal reads a codexPlanRecord.
func (r *codexPlanRecord) DecodeRecord(data []byte) error { return codexPlanFields.Decode(data, r) }

// AppendRecord writes r as json.Marshal does.
func (r codexPlanRecord) AppendRecord(b []byte) []byte { return codexPlanFields.AppendOrNull(b, &r) }

var geminiTurnFields = jsonw.Record[geminiTurnRecord]{
	jsonw.StringField("prompt", func(r *geminiTurnRecord) *string { return &r.Prompt }, jsonw.Always),
	jsonw.StringField("turn", func(r *geminiTurnRecord) *string { return &r.Turn }, jsonw.Always),
	jsonw.StringsField("reasons", func(r *geminiTurnRecord) *[]string { return &r.Reasons }, jsonw.OmitEmpty),
}

// DecodeRecord reads data as json.Unmarshal reads a geminiTurnRecord.
func (r *geminiTurnRecord) DecodeRecord(data []byte) error { return geminiTurnFields.Decode(data, r) }

// AppendRecord writes r as json.Marshal does.
func (r geminiTurnRecord) AppendRecord(b []byte) []byte { return geminiTurnFields.AppendOrNull(b, &r) }
