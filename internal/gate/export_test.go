package gate

import (
	"testing"
	"time"

	"github.com/donegate/donegate/hookio"
)

// SetQwenBudget sets the budget Qwen Code's stops are cut to, for t.
func SetQwenBudget(t testing.TB, d time.Duration) {
	old := deadlineMargin
	deadlineMargin = hookio.HostQwen.HookDeadline() - d
	t.Cleanup(func() { deadlineMargin = old })
}
