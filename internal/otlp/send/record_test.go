package send

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"

	"github.com/donegate/donegate/internal/decisionlog"
)

func attrsOf(r log.Record) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	r.WalkAttributes(func(kv attribute.KeyValue) bool {
		m[string(kv.Key)] = kv.Value
		return true
	})
	return m
}

func TestRecord(t *testing.T) {
	when := time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)
	held := decisionlog.Entry{Time: when, Project: "/p", Host: "claude", Session: "s1", Turn: "p1", Hook: "stop-hook", Event: "Stop",
		Mode: "enforce", Decision: "blocked", Blocks: 2, MaxBlocks: 5, Why: "tests fail", Reason: "fix TestAdd",
		Checks: []decisionlog.Check{{Label: "plan", Complete: true, TookMS: 1}, {Label: "test", TookMS: 900, Reused: true, Fresh: []string{"a", "b"}}}}
	r := record(held)
	a := attrsOf(r)
	assert.Equal(t, when, r.Timestamp())
	assert.Equal(t, EventName, r.EventName())
	assert.Equal(t, log.SeverityWarn, r.Severity())
	assert.Equal(t, "blocked: tests fail", r.Body().AsString())
	assert.Equal(t, "s1", a["gen_ai.conversation.id"].AsString())
	assert.Equal(t, "p1", a["prompt.id"].AsString(), "Claude Code's prompt_id is its telemetry's prompt.id")
	assert.Equal(t, "p1", a["donegate.turn"].AsString())
	assert.Equal(t, int64(2), a["donegate.blocks"].AsInt64())
	assert.Equal(t, int64(5), a["donegate.max_blocks"].AsInt64())
	assert.Equal(t, []string{"test"}, a["donegate.checks.open"].AsStringSlice())
	assert.Equal(t, int64(901), a["donegate.checks.took_ms"].AsInt64())
	assert.Equal(t, int64(1), a["donegate.checks.reused"].AsInt64())
	assert.Len(t, a["donegate.checks"].AsSlice(), 2)

	// Codex's turn id is no prompt.id; a let-go is INFO; what is empty
	// is not sent.
	done := decisionlog.Entry{Time: when, Project: "/p", Host: "codex", Session: "s2", Turn: "t1", Hook: "stop-hook", Event: "Stop", Decision: "complete"}
	r = record(done)
	a = attrsOf(r)
	assert.Equal(t, log.SeverityInfo, r.Severity())
	assert.NotContains(t, a, "prompt.id")
	assert.Equal(t, "t1", a["donegate.turn"].AsString())
	for _, k := range []string{"donegate.why", "donegate.reason", "donegate.tool", "donegate.blocks", "donegate.checks"} {
		assert.NotContains(t, a, k)
	}
}
