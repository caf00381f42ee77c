package jsonw_test

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/jsonw"
)

type elem struct {
	Name string `json:"name"`
	N    int    `json:"n,omitempty"`
}

type embedded struct {
	Inner string `json:"inner,omitempty"`
}

// every has a field of each kind a Record describes.
type every struct {
	S     string    `json:"s"`
	SO    string    `json:"so,omitempty"`
	I     int       `json:"i"`
	I64   int64     `json:"i64,omitempty"`
	U     uint64    `json:"u,omitempty"`
	B     bool      `json:"b"`
	BO    bool      `json:"bo,omitempty"`
	SS    []string  `json:"ss,omitempty"`
	SSA   []string  `json:"ssa"`
	When  time.Time `json:"when"`
	Elems []elem    `json:"elems,omitempty"`
	All   []elem    `json:"all"`
	embedded
}

var elemRecord = jsonw.Record[elem]{
	jsonw.StringField("name", func(e *elem) *string { return &e.Name }, jsonw.Always),
	jsonw.IntField("n", func(e *elem) *int { return &e.N }, jsonw.OmitEmpty),
}

var everyRecord = jsonw.Record[every]{
	jsonw.StringField("s", func(r *every) *string { return &r.S }, jsonw.Always),
	jsonw.StringField("so", func(r *every) *string { return &r.SO }, jsonw.OmitEmpty),
	jsonw.IntField("i", func(r *every) *int { return &r.I }, jsonw.Always),
	jsonw.IntField("i64", func(r *every) *int64 { return &r.I64 }, jsonw.OmitEmpty),
	jsonw.UintField("u", func(r *every) *uint64 { return &r.U }, jsonw.OmitEmpty),
	jsonw.BoolField("b", func(r *every) *bool { return &r.B }, jsonw.Always),
	jsonw.BoolField("bo", func(r *every) *bool { return &r.BO }, jsonw.OmitEmpty),
	jsonw.StringsField("ss", func(r *every) *[]string { return &r.SS }, jsonw.OmitEmpty),
	jsonw.StringsField("ssa", func(r *every) *[]string { return &r.SSA }, jsonw.Always),
	jsonw.TimeField("when", func(r *every) *time.Time { return &r.When }, ""),
	jsonw.SliceField("elems", func(r *every) *[]elem { return &r.Elems }, elemRecord, jsonw.OmitEmpty),
	jsonw.SliceField("all", func(r *every) *[]elem { return &r.All }, elemRecord, jsonw.Always),
	jsonw.StringField("inner", func(r *every) *string { return &r.Inner }, jsonw.OmitEmpty),
}

func TestRecordTags(t *testing.T) {
	require.NoError(t, everyRecord.CheckTags())
	require.NoError(t, elemRecord.CheckTags())
	// Each way a description can differ from its struct is found.
	for name, rec := range map[string]jsonw.Record[elem]{
		"missing":  elemRecord[:1],
		"extra":    append(elemRecord[:2:2], jsonw.StringField("x", func(e *elem) *string { return &e.Name }, jsonw.Always)),
		"key":      {elemRecord[0], jsonw.IntField("count", func(e *elem) *int { return &e.N }, jsonw.OmitEmpty)},
		"omit":     {elemRecord[0], jsonw.IntField("n", func(e *elem) *int { return &e.N }, jsonw.Always)},
		"reversed": {elemRecord[1], elemRecord[0]},
	} {
		assert.Error(t, rec.CheckTags(), name)
	}
}

// TestRecordAsEncodingJSON holds a Record's writing and reading to
// encoding/json's for the struct it describes: random values, and their
// JSON damaged in the ways a reader meets.
func TestRecordAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	texts := []string{"", "x", "<&> \"q\"\n", "\u2028\xff", "日本"}
	text := func() string { return texts[rng.IntN(len(texts))] }
	strs := func() []string {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return []string{}
		}
		return []string{text(), text()}
	}
	elems := func() []elem {
		switch rng.IntN(4) {
		case 0:
			return nil
		case 1:
			return []elem{}
		}
		return []elem{{Name: text(), N: rng.IntN(3) - 1}, {Name: text()}}
	}
	damages := []struct{ from, to string }{
		{`"i":`, `"i":"1","x":`}, {`"i":`, `"i":1.5,"x":`}, {`"i":`, `"i":null,"x":`}, {`"u":`, `"u":-1,"x":`},
		{`"s":`, `"s":1,"x":`}, {`"b":`, `"b":"yes","x":`}, {`"when":`, `"when":"today","x":`}, {`"when":`, `"when":null,"x":`},
		{`"ssa":`, `"ssa":[1],"x":`}, {`"all":`, `"all":{},"x":`}, {`"all":`, `"all":[null,1],"x":`}, {`"name":`, `"name":2,"x":`},
		{`{`, `[`}, {`"`, `'`}, {`{"`, `null`}, {`"s":`, `"zz":{"a":[1]},"s":`},
	}
	for i := range 3000 {
		r := every{S: text(), SO: text(), I: rng.IntN(5) - 2, I64: []int64{0, 1, -2, 1 << 40}[rng.IntN(4)], U: uint64(rng.IntN(3)) << 40,
			B: rng.IntN(2) == 0, BO: rng.IntN(2) == 0, SS: strs(), SSA: strs(), Elems: elems(), All: elems(), embedded: embedded{Inner: text()}}
		if rng.IntN(4) > 0 {
			r.When = time.Unix(int64(rng.IntN(1<<31)), int64(rng.IntN(1e9))).In(time.FixedZone("", 1800*(rng.IntN(5)-2)))
		}
		want, err := json.Marshal(r)
		require.NoError(t, err)
		got, err := everyRecord.Append([]byte("prefix"), &r)
		require.NoError(t, err)
		require.Equal(t, "prefix"+string(want), string(got), "value %d", i)

		data := string(want)
		if rng.IntN(2) == 0 {
			d := damages[rng.IntN(len(damages))]
			data = strings.Replace(data, d.from, d.to, 1)
		}
		var fromJSON, fromRecord every
		errJSON := json.Unmarshal([]byte(data), &fromJSON)
		errRecord := everyRecord.Decode([]byte(data), &fromRecord)
		require.Equal(t, errJSON == nil, errRecord == nil, "%s: encoding/json %v, the record %v", data, errJSON, errRecord)
		if errJSON == nil {
			assert.True(t, fromJSON.When.Equal(fromRecord.When), data)
			fromJSON.When, fromRecord.When = time.Time{}, time.Time{}
			assert.Equal(t, fromJSON, fromRecord, data)
		}
	}
}

func TestTimeFieldRefused(t *testing.T) {
	type stamped struct {
		At time.Time `json:"at"`
	}
	at := func(r *stamped) *time.Time { return &r.At }
	far := stamped{At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}
	_, err := jsonw.Record[stamped]{jsonw.TimeField("at", at, "")}.Append(nil, &far)
	assert.Error(t, err, "as json.Marshal refuses it")
	got := jsonw.Record[stamped]{jsonw.TimeField("at", at, "null")}.AppendOrNull(nil, &far)
	assert.Equal(t, `{"at":null}`, string(got))
	assert.Equal(t, "null", string(jsonw.Record[stamped]{jsonw.TimeField("at", at, "")}.AppendOrNull(nil, &far)))
}
