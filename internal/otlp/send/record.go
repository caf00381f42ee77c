package send

import (
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"

	"github.com/donegate/donegate/hookio"
	"github.com/donegate/donegate/internal/decisionlog"
	"github.com/donegate/donegate/internal/gate"
)

// EventName is every exported decision's event name; DroppedEventName
// the record that says decisions rotated out of the log before they were
// sent.
const (
	EventName        = "donegate.decision"
	DroppedEventName = "donegate.export.dropped"
)

// droppedRecord says that decisions rotated out of the decision log
// before they were sent, found at when.
func droppedRecord(when time.Time) log.Record {
	var r log.Record
	r.SetEventName(DroppedEventName)
	r.SetTimestamp(when)
	r.SetObservedTimestamp(when)
	r.SetSeverity(log.SeverityWarn)
	r.SetSeverityText("WARN")
	r.SetBody(attribute.StringValue("decisions rotated out of donegate's decision log before they were sent: the collector is missing some"))
	return r
}

// holds are the decisions that kept the agent working or refused its
// call: exported at severity WARN, the rest at INFO.
var holds = map[string]bool{string(gate.KindBlocked): true, string(gate.KindRefused): true, string(gate.KindObserved): true}

// record is e as an OTLP log record: the decision's time, a body that
// says it in a line, and the attributes docs/export.md lists.
func record(e decisionlog.Entry) log.Record {
	var r log.Record
	r.SetEventName(EventName)
	r.SetTimestamp(e.Time)
	r.SetObservedTimestamp(time.Now())
	r.SetSeverity(log.SeverityInfo)
	r.SetSeverityText("INFO")
	if holds[e.Decision] {
		r.SetSeverity(log.SeverityWarn)
		r.SetSeverityText("WARN")
	}
	body := e.Decision
	if e.Why != "" {
		body += ": " + e.Why
	}
	r.SetBody(attribute.StringValue(body))

	attrs := []attribute.KeyValue{
		attribute.String("donegate.decision", e.Decision),
		attribute.String("donegate.host", e.Host),
		attribute.String("gen_ai.conversation.id", e.Session),
		attribute.String("donegate.project", e.Project),
		attribute.String("donegate.hook", e.Hook),
		attribute.String("donegate.event", e.Event),
	}
	if e.Turn != "" {
		attrs = append(attrs, attribute.String("donegate.turn", e.Turn))
		if key := hookio.Host(e.Host).TurnTelemetryKey(); key != "" {
			attrs = append(attrs, attribute.String(key, e.Turn))
		}
	}
	optional := []struct{ key, value string }{
		{"donegate.tool", e.Tool}, {"donegate.mode", e.Mode}, {"donegate.why", e.Why}, {"donegate.reason", e.Reason},
	}
	for _, o := range optional {
		if o.value != "" {
			attrs = append(attrs, attribute.String(o.key, o.value))
		}
	}
	if e.MaxBlocks > 0 || e.Blocks > 0 {
		attrs = append(attrs, attribute.Int("donegate.blocks", e.Blocks), attribute.Int("donegate.max_blocks", e.MaxBlocks))
	}
	if len(e.Checks) > 0 {
		var checks []attribute.Value
		var open []string
		var took int64
		reused := 0
		for _, c := range e.Checks {
			kv := []attribute.KeyValue{
				attribute.String("label", c.Label),
				attribute.Bool("complete", c.Complete),
				attribute.Int64("took_ms", c.TookMS),
				attribute.Bool("reused", c.Reused),
			}
			if c.NotRun {
				kv = append(kv, attribute.Bool("not_run", true))
			}
			if c.Error != "" {
				kv = append(kv, attribute.String("error", c.Error))
			}
			if len(c.Fresh) > 0 {
				kv = append(kv, attribute.String("fresh", strings.Join(c.Fresh, "; ")))
			}
			checks = append(checks, attribute.MapValue(kv...))
			if !c.Complete {
				open = append(open, c.Label)
			}
			took += c.TookMS
			if c.Reused {
				reused++
			}
		}
		attrs = append(attrs,
			attribute.Slice("donegate.checks", checks...),
			attribute.StringSlice("donegate.checks.open", open),
			attribute.Int64("donegate.checks.took_ms", took),
			attribute.Int("donegate.checks.reused", reused),
		)
	}
	r.AddAttributes(attrs...)
	return r
}
