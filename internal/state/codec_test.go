package state

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/limit"

	"github.com/donegate/donegate/internal/testsupport/testutil"
)

// randomSession is a record with every field set or not, at random.
func randomSession(rng *rand.Rand) *Session {
	texts := []string{"", "p1", "<&> \"q\"\n", "\u2028\xff", "日本"}
	text := func() string { return texts[rng.IntN(len(texts))] }
	when := func() time.Time {
		if rng.IntN(4) == 0 {
			return time.Time{}
		}
		return time.Unix(int64(rng.IntN(1<<31)), int64(rng.IntN(1e9))).In(time.FixedZone("", 1800*(rng.IntN(5)-2)))
	}
	s := &Session{LegacyPromptID: text()}
	if rng.IntN(5) > 0 {
		s.Counters = map[string]*limit.Counter{}
		for range rng.IntN(4) {
			if rng.IntN(6) == 0 {
				s.Counters[text()] = nil
				continue
			}
			s.Counters[text()+"stop"] = &limit.Counter{PromptID: text(), Blocks: rng.IntN(9) - 1, FirstBlock: when(), Exhausted: rng.IntN(2) == 0, Touched: when()}
		}
	}
	raws := []string{`{"a":1}`, `[1,"<x>"]`, `null`, `"s"`, `{"progress":{"stop":{"open":"ab","holds":2}}}`, `{ "spaced" : [ 1 , 2 ] }`}
	raw := func() json.RawMessage { return json.RawMessage(raws[rng.IntN(len(raws))]) }
	if rng.IntN(3) > 0 {
		s.Checkers = map[string]json.RawMessage{}
		for range rng.IntN(4) {
			s.Checkers[text()+"slot"] = raw()
		}
	}
	if rng.IntN(3) == 0 {
		s.LegacyBaselines = raw()
	}
	if rng.IntN(3) == 0 {
		s.LegacyPhase = raw()
	}
	return s
}

// damage changes one value of a record's JSON to one of another type, or
// breaks its syntax.
func damage(rng *rand.Rand, line string) string {
	swaps := []struct{ from, to string }{
		{`"blocks":`, `"blocks":"1",`}, {`"blocks":`, `"blocks":1.5,"x":`}, {`"blocks":`, `"blocks":1e3,"x":`},
		{`"blocks":`, `"blocks":99999999999999999999,"x":`}, {`"touched":`, `"touched":"yesterday","x":`},
		{`"touched":`, `"touched":null,"x":`}, {`"exhausted":`, `"exhausted":1,"x":`}, {`"counters":`, `"counters":[],"x":`},
		{`"counters":`, `"counters":{"stop":[]},"x":`}, {`"counters":`, `"counters":{"stop":null},"x":`},
		{`"checkers":`, `"checkers":"x","x":`}, {`"prompt_id":`, `"prompt_id":3,"x":`}, {`"prompt_id":`, `"prompt_id":null,"x":`},
		{`{`, `[`}, {`}`, ``}, {`"`, `'`},
	}
	sw := swaps[rng.IntN(len(swaps))]
	return strings.Replace(line, sw.from, sw.to, 1)
}

// TestRecordsAsEncodingJSON: a record is written as json.Marshal wrote
// it, and read as json.Unmarshal read it: the same Session, or refused
// (the count starts over) where it refused, damaged records included.
func TestRecordsAsEncodingJSON(t *testing.T) {
	// A field added to these must be read and written by the codec.
	require.Equal(t, 5, reflect.TypeFor[Session]().NumField(), "Session's fields")
	require.NoError(t, counterFields.CheckTags(), "a field added to limit.Counter must be in its description")
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 3000 {
		s := randomSession(rng)
		want, err := json.Marshal(s)
		require.NoError(t, err)
		got, err := s.appendJSON(nil)
		require.NoError(t, err)
		require.Equal(t, testutil.SameFFFD(string(want)), testutil.SameFFFD(string(got)), "%d", i)

		line := string(want)
		if i%2 == 1 {
			line = damage(rng, line)
		}
		var ref Session
		refErr := json.Unmarshal([]byte(line), &ref)
		dec, decErr := decodeSession([]byte(line))
		if refErr != nil {
			require.Error(t, decErr, "encoding/json refused %s (%v)", line, refErr)
			continue
		}
		require.NoError(t, decErr, "%s", line)
		require.True(t, equalSessions(&ref, dec), "%s\nencoding/json: %+v\ndecoded: %+v", line, ref, *dec)
	}
}

// equalSessions compares two records as the hook uses them: times by
// instant, raw values by their JSON.
func equalSessions(a, b *Session) bool {
	norm := func(s *Session) string {
		c := *s
		for k, v := range c.Counters {
			if v != nil {
				v2 := *v
				v2.FirstBlock, v2.Touched = v2.FirstBlock.UTC(), v2.Touched.UTC()
				c.Counters[k] = &v2
			}
		}
		out, err := json.Marshal(c)
		if err != nil {
			return "error: " + err.Error()
		}
		return string(out)
	}
	return norm(a) == norm(b)
}

// TestNeedsCompact: a raw value is compacted only where json.Marshal
// would write it otherwise (white space outside strings, or characters
// it escapes), not for the white space of its texts: a kept event's
// words are written as they came, in one pass.
func TestNeedsCompact(t *testing.T) {
	tests := []struct {
		raw  string
		want bool
	}{
		{`{"a":"b c\td"}`, false},
		{`{"a":"say \"x y\" \\ ok"}`, false},
		{`["x y",1,{"k":"v w"}]`, false},
		{`{"a": "b"}`, true},
		{"{\"a\":\"b\"}\n", true},
		{`{"a":"<b>"}`, true},
		{`{"a":"x & y"}`, true},
		{"{\"a\":\"\u2028\"}", true},
		{`{"a":"\" "}`, false},
		{`{"a":"\\" , "b":1}`, true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, needsCompact([]byte(tt.raw)), tt.raw)
		out, err := compact(json.RawMessage(tt.raw))
		require.NoError(t, err)
		want, err := json.Marshal(json.RawMessage(tt.raw))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(out), tt.raw)
	}
}
