package hookio_test

import (
	"os"
	"testing"

	"github.com/donegate/donegate/hookio"
)

// BenchmarkEvent measures decoding recorded events: Peek, the two-field
// look that answers ungated tool events, DetectHost, and the full
// ParseEvent (which detects the host first).
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
		// What telling the host adds to every Claude Code event.
		b.Run("DetectHost/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				if h := hookio.DetectHost(data, os.Getenv); h != hookio.HostClaude {
					b.Fatal(h)
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
