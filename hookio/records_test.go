package hookio

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/transcript"

	"github.com/donegate/donegate/internal/testsupport/testutil"
)

// TestMemoRecordsAsEncodingJSON: the Codex and Gemini records are written
// as json.Marshal wrote them and read as json.Unmarshal read them,
// damaged records included (refused where it refused them).
func TestMemoRecordsAsEncodingJSON(t *testing.T) {
	// A field added to these must be in their description.
	require.NoError(t, codexPlanFields.CheckTags())
	require.NoError(t, geminiTurnFields.CheckTags())
	rng := rand.New(rand.NewPCG(11, 12))
	texts := []string{"", "/r/rollout.jsonl", "<&> \"q\"\n", "\u2028\xff", "日本"}
	text := func() string { return texts[rng.IntN(len(texts))] }
	num := func() int64 { return []int64{0, 1, -2, 1 << 40}[rng.IntN(4)] }
	damages := []struct{ from, to string }{
		{`"offset":`, `"offset":"1","x":`}, {`"offset":`, `"offset":1.5,"x":`}, {`"dev":`, `"dev":-1,"x":`}, {`"ino":`, `"ino":null,"x":`},
		{`"prompt":`, `"prompt":1,"x":`}, {`"reasons":`, `"reasons":"x","y":`}, {`"reasons":[`, `"reasons":[1,`}, {`"reasons":[`, `"reasons":[null,`},
		{`{`, `[`}, {`"`, `'`}, {`{"`, `null`},
	}
	damage := func(s string) string {
		d := damages[rng.IntN(len(damages))]
		return strings.Replace(s, d.from, d.to, 1)
	}
	for i := range 3000 {
		c := codexPlanRecord{Transcript: text(), CodexGoalState: transcript.CodexGoalState{
			Position: transcript.Position{Offset: num(), Dev: uint64(rng.IntN(3)) << 33, Ino: uint64(rng.IntN(3)), Size: num(), Tail: text()},
			State:    text(), Title: text()}}
		g := geminiTurnRecord{Prompt: text(), Turn: text()}
		for range rng.IntN(3) {
			g.Reasons = append(g.Reasons, text())
		}
		if rng.IntN(5) == 0 {
			g.Reasons = []string{}
		}
		for _, rec := range []struct {
			v      interface{ AppendRecord([]byte) []byte }
			newRef func() any
			newGot func() interface{ DecodeRecord([]byte) error }
		}{
			{c, func() any { return &codexPlanRecord{} }, func() interface{ DecodeRecord([]byte) error } { return &codexPlanRecord{} }},
			{g, func() any { return &geminiTurnRecord{} }, func() interface{ DecodeRecord([]byte) error } { return &geminiTurnRecord{} }},
		} {
			want, err := json.Marshal(rec.v)
			require.NoError(t, err)
			require.Equal(t, testutil.SameFFFD(string(want)), testutil.SameFFFD(string(rec.v.AppendRecord(nil))))
			data := string(want)
			if i%2 == 1 {
				data = damage(data)
			}
			ref, got := rec.newRef(), rec.newGot()
			refErr := json.Unmarshal([]byte(data), ref)
			if err := got.DecodeRecord([]byte(data)); refErr != nil {
				require.Error(t, err, "encoding/json refused %s", data)
			} else {
				require.NoError(t, err, data)
				require.Equal(t, ref, got, data)
			}
		}
	}
}
