package gate

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/testutil"
)

// TestRecordsAsEncodingJSON: the progress and prompts records are
// written as json.Marshal wrote a map[string]stall and a []string, and
// read as json.Unmarshal read them, damaged records included (refused
// where it refused them).
func TestRecordsAsEncodingJSON(t *testing.T) {
	require.NoError(t, stallFields.CheckTags(), "a field added to stall must be in its description")
	rng := rand.New(rand.NewPCG(9, 10))
	texts := []string{"", "stop", "<&> \"q\"\n", "\u2028\xff", "日本"}
	text := func() string { return texts[rng.IntN(len(texts))] }
	damages := []struct{ from, to string }{
		{`"holds":`, `"holds":"1",`}, {`"holds":`, `"holds":1.5,"x":`}, {`"holds":`, `"holds":null,"x":`}, {`"since":`, `"since":"2",`},
		{`"open":`, `"open":1,"x":`}, {`"open":`, `"open":null,"x":`}, {`{"`, `["`}, {`:{`, `:[],"x":{`}, {`:{`, `:null,"x":{`},
		{`"`, `'`}, {`["`, `[1,"`}, {`["`, `[null,"`}, {`]`, `}`},
	}
	damage := func(s string) string {
		d := damages[rng.IntN(len(damages))]
		return strings.Replace(s, d.from, d.to, 1)
	}
	for i := range 3000 {
		var m stalls
		if rng.IntN(6) > 0 {
			m = stalls{}
			for range rng.IntN(4) {
				m[text()] = stall{Open: text(), Tree: text(), Holds: rng.IntN(5) - 1, Since: rng.IntN(5) - 1, Prompt: text()}
			}
		}
		var l promptList
		if rng.IntN(6) > 0 {
			l = promptList{}
			for range rng.IntN(4) {
				l = append(l, text())
			}
		}
		wantM, err := json.Marshal(map[string]stall(m))
		require.NoError(t, err)
		require.Equal(t, testutil.SameFFFD(string(wantM)), testutil.SameFFFD(string(m.AppendRecord(nil))))
		wantL, err := json.Marshal([]string(l))
		require.NoError(t, err)
		require.Equal(t, testutil.SameFFFD(string(wantL)), testutil.SameFFFD(string(l.AppendRecord(nil))))

		dataM, dataL := string(wantM), string(wantL)
		if i%2 == 1 {
			dataM, dataL = damage(dataM), damage(dataL)
		}
		refM := map[string]stall{}
		refErr := json.Unmarshal([]byte(dataM), &refM)
		gotM := stalls{}
		if err := gotM.DecodeRecord([]byte(dataM)); refErr != nil {
			require.Error(t, err, "encoding/json refused %s", dataM)
		} else {
			require.NoError(t, err, dataM)
			if refM == nil {
				// null: no record, the map kept (json.Unmarshal made it
				// nil, which stalled then wrote into).
				refM = map[string]stall{}
			}
			require.Equal(t, refM, map[string]stall(gotM), dataM)
		}
		var refL []string
		refErr = json.Unmarshal([]byte(dataL), &refL)
		var gotL promptList
		if err := gotL.DecodeRecord([]byte(dataL)); refErr != nil {
			require.Error(t, err, "encoding/json refused %s", dataL)
		} else {
			require.NoError(t, err, dataL)
			require.Equal(t, refL, []string(gotL), dataL)
		}
	}
}

// TestMoreRecordsAsEncodingJSON: the told and turns records (a
// map[string]string), the session's start (seen) and the stops taken, as
// TestRecordsAsEncodingJSON holds the others.
func TestMoreRecordsAsEncodingJSON(t *testing.T) {
	require.NoError(t, seenFields.CheckTags())
	require.NoError(t, takenFields.CheckTags())
	require.NoError(t, takenStopFields.CheckTags())
	rng := rand.New(rand.NewPCG(13, 14))
	texts := []string{"", "stop", "<&> \"q\"\n", "\u2028\xff", "日本"}
	text := func() string { return texts[rng.IntN(len(texts))] }
	damages := []struct{ from, to string }{
		{`":"`, `":1,"x":"`}, {`":"`, `":null,"x":"`}, {`"start":`, `"start":"today","x":`}, {`"start":`, `"start":null,"x":`},
		{`"changed":`, `"changed":"yes","x":`}, {`{`, `[`}, {`"`, `'`}, {`{"`, `null`},
		{`"taken":[`, `"taken":[1,`}, {`"taken":[`, `"taken":[null,`}, {`"taken":`, `"taken":{},"x":`}, {`"gate":`, `"gate":2,"x":`},
	}
	damage := func(s string) string {
		d := damages[rng.IntN(len(damages))]
		return strings.Replace(s, d.from, d.to, 1)
	}
	for i := range 3000 {
		var m stringMap
		if rng.IntN(6) > 0 {
			m = stringMap{}
			for range rng.IntN(4) {
				m[text()] = text()
			}
		}
		sn := seen{Changed: rng.IntN(2) == 0, Head: text(), Many: rng.IntN(2) == 0}
		for range rng.IntN(3) {
			sn.Edited = append(sn.Edited, text())
		}
		if rng.IntN(4) > 0 {
			sn.Start = time.Unix(int64(rng.IntN(1<<31)), int64(rng.IntN(1e9))).In(time.FixedZone("", 1800*(rng.IntN(5)-2)))
		}
		var tk takenRecord
		for range rng.IntN(4) {
			tk.Taken = append(tk.Taken, takenStop{Gate: text(), Stop: text()})
		}
		wantT, err := json.Marshal(tk)
		require.NoError(t, err)
		require.Equal(t, testutil.SameFFFD(string(wantT)), testutil.SameFFFD(string(tk.AppendRecord(nil))))
		dataT := string(wantT)
		if i%2 == 1 {
			dataT = damage(dataT)
		}
		var refT, gotT takenRecord
		if refErr := json.Unmarshal([]byte(dataT), &refT); refErr != nil {
			require.Error(t, gotT.DecodeRecord([]byte(dataT)), "encoding/json refused %s", dataT)
		} else {
			require.NoError(t, gotT.DecodeRecord([]byte(dataT)), dataT)
			require.Equal(t, refT, gotT, dataT)
		}
		wantM, err := json.Marshal(map[string]string(m))
		require.NoError(t, err)
		require.Equal(t, testutil.SameFFFD(string(wantM)), testutil.SameFFFD(string(m.AppendRecord(nil))))
		wantS, err := json.Marshal(sn)
		require.NoError(t, err)
		require.Equal(t, testutil.SameFFFD(string(wantS)), testutil.SameFFFD(string(sn.AppendRecord(nil))))

		dataM, dataS := string(wantM), string(wantS)
		if i%2 == 1 {
			dataM, dataS = damage(dataM), damage(dataS)
		}
		refM := map[string]string{}
		refErr := json.Unmarshal([]byte(dataM), &refM)
		gotM := stringMap{}
		if err := gotM.DecodeRecord([]byte(dataM)); refErr != nil {
			require.Error(t, err, "encoding/json refused %s", dataM)
		} else {
			require.NoError(t, err, dataM)
			if refM == nil {
				refM = map[string]string{} // null: the map kept (see DecodeRecord)
			}
			require.Equal(t, refM, map[string]string(gotM), dataM)
		}
		var refS, gotS seen
		refErr = json.Unmarshal([]byte(dataS), &refS)
		if err := gotS.DecodeRecord([]byte(dataS)); refErr != nil {
			require.Error(t, err, "encoding/json refused %s", dataS)
		} else {
			require.NoError(t, err, dataS)
			require.True(t, refS.Start.Equal(gotS.Start) && refS.Changed == gotS.Changed, "%s: %+v, %+v", dataS, refS, gotS)
		}
	}
}
