package checkers_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/donegate/donegate/internal/testsupport/proctest"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
)

// timed answers after a delay, or when its context ends (then it reports
// that it was cancelled, as a cut-short command would).
type timed struct {
	delay     time.Duration
	r         checkers.Result
	err       error
	cancelled *atomic.Int32
	returned  *atomic.Int32
}

func (s timed) Check(ctx context.Context, _ *checkers.Context) (checkers.Result, error) {
	defer func() {
		if s.returned != nil {
			s.returned.Add(1)
		}
	}()
	select {
	case <-time.After(s.delay):
		return s.r, s.err
	case <-ctx.Done():
		if s.cancelled != nil {
			s.cancelled.Add(1)
		}
		return checkers.Incomplete("cancelled"), nil
	}
}

// TestParallelMatchesSequential: whatever the timing, a parallel composite
// gives the answer the declared order gives.
func TestParallelMatchesSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		n := 1 + rng.IntN(4)
		var members []checkers.Member
		for j := 0; j < n; j++ {
			m := timed{delay: time.Duration(rng.IntN(3)) * time.Millisecond}
			switch rng.IntN(3) {
			case 0:
				m.r = checkers.OK(fmt.Sprintf("ok %d", j))
			case 1:
				m.r = checkers.Incomplete(fmt.Sprintf("open %d", j))
			case 2:
				m.err = fmt.Errorf("broken %d", j)
			}
			members = append(members, checkers.Member{Label: fmt.Sprint(j), Checker: m})
		}
		for _, any := range []bool{false, true} {
			seq := checkers.Composite{Any: any, Members: members}
			par := checkers.Composite{Any: any, Parallel: true, Members: members}
			r1, err1 := seq.Check(context.Background(), &checkers.Context{})
			r2, err2 := par.Check(context.Background(), &checkers.Context{})
			require.Equal(t, r1, r2, "case %d any=%v", i, any)
			require.Equal(t, fmt.Sprint(err1), fmt.Sprint(err2), "case %d any=%v", i, any)
		}
	}
}

func TestParallelCancelsTheRestAndWaitsForThem(t *testing.T) {
	var cancelled, returned atomic.Int32
	hang := timed{delay: time.Hour, cancelled: &cancelled, returned: &returned}
	tests := []struct {
		name    string
		any     bool
		members []checkers.Checker
		want    checkers.Result
	}{
		{"all: a failure decides", false, []checkers.Checker{
			timed{r: checkers.Incomplete("tests fail"), returned: &returned}, hang, hang},
			checkers.Incomplete("tests fail")},
		{"any: a success decides", true, []checkers.Checker{
			timed{r: checkers.OK("pdf written"), returned: &returned}, hang},
			checkers.OK("pdf written")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cancelled.Store(0)
			returned.Store(0)
			comp := checkers.Composite{Any: tt.any, Parallel: true}
			for i, m := range tt.members {
				comp.Members = append(comp.Members, checkers.Member{Label: fmt.Sprint(i), Checker: m})
			}
			// The members that hang end only when cancelled.
			var r checkers.Result
			var err error
			proctest.WithinAMinute(t, func() { r, err = comp.Check(context.Background(), &checkers.Context{}) })
			require.NoError(t, err)
			assert.Equal(t, tt.want, r)
			assert.Equal(t, int32(len(tt.members)-1), cancelled.Load(), "the members still running are cancelled")
			assert.Equal(t, int32(len(tt.members)), returned.Load(), "every member has returned before Check does")
		})
	}
}

func TestParallelWaitsForAnEarlierMember(t *testing.T) {
	// The later member fails first, but the earlier one's failure is the
	// answer in declared order.
	comp := checkers.Composite{Parallel: true, Members: []checkers.Member{
		{Label: "slow", Checker: timed{delay: 30 * time.Millisecond, r: checkers.Incomplete("slow failure")}},
		{Label: "fast", Checker: timed{r: checkers.Incomplete("fast failure")}},
	}}
	r, err := comp.Check(context.Background(), &checkers.Context{})
	require.NoError(t, err)
	assert.Equal(t, checkers.Incomplete("slow failure"), r)

	comp.Members[0].Checker = timed{delay: 30 * time.Millisecond, err: errors.New("cannot run")}
	_, err = comp.Check(context.Background(), &checkers.Context{})
	require.EqualError(t, err, "checker 1 (slow): cannot run")
}
