package checkers_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/donegate/donegate/checkers"
)

// BenchmarkComposite measures the composite runner: its own overhead with
// members that answer at once, and what parallel buys with members that
// each take a millisecond (four of them: about 4 ms in order, 1 ms at
// once), for "all" with every member complete, the slowest case.
func BenchmarkComposite(b *testing.B) {
	for _, delay := range []time.Duration{0, time.Millisecond} {
		for _, parallel := range []bool{false, true} {
			var members []checkers.Member
			for i := range 4 {
				members = append(members, checkers.Member{Label: fmt.Sprint(i), Checker: timed{delay: delay, r: checkers.OK("done")}})
			}
			comp := checkers.Composite{Parallel: parallel, Members: members}
			b.Run(fmt.Sprintf("members=4/delay=%v/parallel=%v", delay, parallel), func(b *testing.B) {
				for range b.N {
					r, err := comp.Check(context.Background(), &checkers.Context{})
					if err != nil || !r.Complete {
						b.Fatalf("got %+v, %v", r, err)
					}
				}
			})
		}
	}
}
