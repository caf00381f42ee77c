package hookio

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/internal/testsupport/testutil"
)

// TestAnswersAsEncodingJSON: an answer written by hand is the bytes
// encoding/json writes for it (an Encoder with SetEscapeHTML(false)),
// for every field set or left empty.
func TestAnswersAsEncodingJSON(t *testing.T) {
	// A field added to one of these must be written by its appendJSON and
	// set below.
	require.Equal(t, 5, reflect.TypeFor[answer]().NumField(), "answer's fields")
	require.Equal(t, 11, reflect.TypeFor[hostAnswer]().NumField(), "hostAnswer's fields")
	require.Equal(t, 6, reflect.TypeFor[hookSpecific]().NumField(), "hookSpecific's fields")
	rng := rand.New(rand.NewPCG(3, 4))
	texts := []string{"", "x", "You have 2 incomplete task(s): <a> & \"b\"\n\tc", "\u2028 \xff \x01", "日本"}
	text := func() string { return texts[rng.IntN(len(texts))] }
	specific := func() *hookSpecific {
		if rng.IntN(3) == 0 {
			return nil
		}
		return &hookSpecific{HookEventName: text(), Decision: text(), Reason: text(), PermissionDecision: text(),
			PermissionDecisionReason: text(), AdditionalContext: text()}
	}
	want := func(v any) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(v))
		return b.String()
	}
	got := func(a interface{ appendJSON([]byte) []byte }) string {
		var b bytes.Buffer
		require.NoError(t, encode(&b, a))
		return b.String()
	}
	for range 3000 {
		a := answer{NeedsMoreTurns: rng.IntN(2) == 0, Decision: text(), Reason: text(), HookSpecificOutput: specific(), SystemMessage: text()}
		require.Equal(t, testutil.SameFFFD(want(a)), testutil.SameFFFD(got(a)))
		h := hostAnswer{Decision: text(), Reason: text(), PermissionDecision: text(), PermissionDecisionReason: text(),
			FollowupMessage: text(), AdditionalContext: text(), Permission: text(), UserMessage: text(), AgentMessage: text(),
			HookSpecificOutput: specific(), SystemMessage: text()}
		require.Equal(t, testutil.SameFFFD(want(h)), testutil.SameFFFD(got(h)))
	}
}
