package hookio_test

import (
	"os"
	"testing"

	"github.com/donegate/donegate/hookio"
)

// BenchmarkEvent measures decoding recorded events: Peek, the two-field
// look that answers ungated tool events, and the full ParseEvent.
func BenchmarkEvent(b *testing.B) {
	for _, name := range []string{"stop-plan-open", "pretooluse-bash", "posttooluse-structuredoutput-open"} {
		data, err := os.ReadFile("../testdata/events/" + name + ".json")
		if err != nil {
			b.Fatal(err)
		}
		b.Run("Peek/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				if p := hookio.Peek(data); p.Event == "" {
					b.Fatal("no hook_event_name")
				}
			}
		})
		b.Run("ParseEvent/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				if _, err := hookio.ParseEvent(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
