package jsonw_test

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tidwall/gjson"

	"github.com/donegate/donegate/internal/jsonw"

	"github.com/donegate/donegate/internal/testsupport/testutil"
)

// encodingJSON is s as encoding/json writes it, HTML characters escaped
// (json.Marshal) or not (an Encoder with SetEscapeHTML(false)), passed
// through testutil.SameFFFD.
func encodingJSON(t testing.TB, s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	require.NoError(t, enc.Encode(s))
	return testutil.SameFFFD(strings.TrimSuffix(b.String(), "\n"))
}

// TestInvalidUTF8: an invalid byte is written as the escape, each byte
// on its own, and reads back as U+FFFD.
func TestInvalidUTF8(t *testing.T) {
	got := jsonw.AppendString(nil, "a\xffb\xe2\x80", true)
	assert.Equal(t, `"a\ufffdb\ufffd\ufffd"`, string(got))
	var back string
	require.NoError(t, json.Unmarshal(got, &back))
	assert.Equal(t, "a\ufffdb\ufffd\ufffd", back)
}

// pieces are what a string is made of in TestStringsAsEncodingJSON: every
// ASCII byte, the escapes' corner cases and broken UTF-8.
var pieces = func() []string {
	var ps []string
	for c := range 0x80 {
		ps = append(ps, string(rune(c)))
	}
	return append(ps, "é", "日本", "\u2028", "\u2029", "\u2027", "\ufffd", "😀",
		"\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf0\x9f\x98", "\xc0\xaf", "\x7f", "</script>", "&amp;")
}()

func TestStringsAsEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `"quoted" \ back`, "\b\f\n\r\t\x00\x1f", "<a href='x'>&</a>", "\u2028\u2029", "bad \xff\xfe utf-8", "cut \xe2\x80"} {
		for _, html := range []bool{true, false} {
			assert.Equal(t, encodingJSON(t, s, html), testutil.SameFFFD(string(jsonw.AppendString(nil, s, html))), "%q html=%v", s, html)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s, html := b.String(), rng.IntN(2) == 0
		require.Equal(t, encodingJSON(t, s, html), testutil.SameFFFD(string(jsonw.AppendString([]byte("x"), s, html))[1:]), "%q html=%v", s, html)
	}
}

func FuzzString(f *testing.F) {
	for _, p := range pieces {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{true, false} {
			if got, want := testutil.SameFFFD(string(jsonw.AppendString(nil, s, html))), encodingJSON(t, s, html); got != want {
				t.Fatalf("%q html=%v: got %s, encoding/json %s", s, html, got, want)
			}
		}
	})
}

// TestObjectAsEncodingJSON: an object written field by field is the
// bytes encoding/json writes for the struct with the same fields.
func TestObjectAsEncodingJSON(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type record struct {
		S      string          `json:"s"`
		Ints   []int           `json:"ints"`
		E      string          `json:"e,omitempty"`
		Set    string          `json:"set,omitempty"`
		I      int             `json:"i"`
		Z      int             `json:"z,omitempty"`
		NZ     int64           `json:"nz,omitempty"`
		U      uint64          `json:"u,omitempty"`
		UZ     uint64          `json:"uz,omitempty"`
		B      bool            `json:"b"`
		F      bool            `json:"f,omitempty"`
		T      bool            `json:"t,omitempty"`
		When   time.Time       `json:"when"`
		Raw    json.RawMessage `json:"raw"`
		Inner  inner           `json:"inner"`
		Spaced string          `json:"spaced <&>"`
	}
	when := time.Date(2026, 11, 28, 1, 2, 3, 4005, time.FixedZone("", 3600))
	r := record{S: "a<b", Ints: []int{3, -1}, U: 1<<64 - 1, Set: "x\n", I: -3, NZ: 1 << 40, B: false, T: true, When: when, Raw: json.RawMessage(`{"k":[1,2]}`), Inner: inner{N: 7}, Spaced: "v"}
	for _, html := range []bool{true, false} {
		o := jsonw.NewObject([]byte("prefix"), html)
		o.String("s", r.S)
		o.Array("ints", len(r.Ints), func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(r.Ints[i]), 10) })
		o.StringOmitEmpty("e", r.E)
		o.StringOmitEmpty("set", r.Set)
		o.Int("i", int64(r.I))
		o.IntOmitEmpty("z", int64(r.Z))
		o.IntOmitEmpty("nz", r.NZ)
		o.Uint("u", r.U) // UZ, 0, is omitted
		o.Bool("b", r.B)
		o.BoolOmitEmpty("f", r.F)
		o.BoolOmitEmpty("t", r.T)
		require.NoError(t, o.Time("when", r.When))
		o.Raw("raw", r.Raw)
		require.NoError(t, o.Object("inner", func(in *jsonw.Object) error {
			in.Int("n", int64(r.Inner.N))
			return nil
		}))
		o.String("spaced <&>", r.Spaced)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(html)
		require.NoError(t, enc.Encode(r))
		assert.Equal(t, "prefix"+strings.TrimSuffix(want.String(), "\n"), string(o.End()), "html=%v", html)
	}
	o := jsonw.NewObject(nil, true)
	assert.Error(t, o.Time("t", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)), "a year json.Marshal refuses")
	assert.Equal(t, "{}", string(o.End()))
	assert.Equal(t, "[]", string(jsonw.AppendArray(nil, 0, nil)))
}

// TestReadersAsEncodingJSON: each reader takes a value where
// json.Unmarshal takes it into the Go type, to the same value, and
// refuses it where json.Unmarshal does; null leaves the value as it was.
func TestReadersAsEncodingJSON(t *testing.T) {
	values := []string{`null`, `"s"`, `"<\u00e9>\n"`, `""`, `0`, `-3`, `12`, `1.5`, `1e3`, `-0`, `99999999999999999999`, `18446744073709551615`, `-9223372036854775808`,
		`true`, `false`, `[]`, `{}`, `"2026-11-28T01:02:03.000000004+01:00"`, `"2026-11-28"`, `"yesterday"`}
	for _, raw := range values {
		v, ok := jsonw.Parse([]byte(raw))
		require.True(t, ok, raw)
		check := func(name string, got bool, ref error, gotV, refV any) {
			t.Helper()
			if ref != nil {
				assert.False(t, got, "%s %s: encoding/json refused it (%v)", name, raw, ref)
				return
			}
			if assert.True(t, got, "%s %s", name, raw) {
				assert.Equal(t, refV, gotV, "%s %s", name, raw)
			}
		}
		s, rs := "before", "before"
		check("ReadString", jsonw.ReadString(v, &s), json.Unmarshal([]byte(raw), &rs), s, rs)
		n, rn := 7, 7
		check("ReadInt", jsonw.ReadInt(v, &n), json.Unmarshal([]byte(raw), &rn), n, rn)
		n64, rn64 := int64(7), int64(7)
		check("ReadInt64", jsonw.ReadInt64(v, &n64), json.Unmarshal([]byte(raw), &rn64), n64, rn64)
		u, ru := uint64(7), uint64(7)
		check("ReadUint64", jsonw.ReadUint64(v, &u), json.Unmarshal([]byte(raw), &ru), u, ru)
		b, rb := true, true
		check("ReadBool", jsonw.ReadBool(v, &b), json.Unmarshal([]byte(raw), &rb), b, rb)
		before := time.Unix(1, 0)
		tm, rt := before, before
		check("ReadTime", jsonw.ReadTime(v, &tm), json.Unmarshal([]byte(raw), &rt), tm, rt)
	}
	for _, bad := range []string{``, `{`, `"`, `[1,]`, `nul`} {
		_, ok := jsonw.Parse([]byte(bad))
		assert.False(t, ok, bad)
	}
}

// TestFields: an object's fields in order, none for null, a refusal for
// anything else or for a field its reader refuses.
func TestFields(t *testing.T) {
	var keys []string
	collect := func(k string, v gjson.Result) bool { keys = append(keys, k+"="+v.Raw); return v.Raw != "0" }
	assert.True(t, jsonw.ParseFields([]byte(`{"a":1,"b":"x"}`), collect))
	assert.Equal(t, []string{"a=1", `b="x"`}, keys)
	keys = nil
	assert.False(t, jsonw.ParseFields([]byte(`{"a":0,"b":2}`), collect), "a refused value")
	assert.Equal(t, []string{"a=0"}, keys, "no field after the refused one")
	assert.True(t, jsonw.ParseFields([]byte(`null`), collect))
	for _, bad := range []string{`[]`, `"s"`, `1`, `{`, ``} {
		assert.False(t, jsonw.ParseFields([]byte(bad), collect), bad)
	}
}
