package gate

import (
	"testing"
	"time"
)

// SetQwenBudget sets the budget Qwen Code's stops are cut to, for t.
func SetQwenBudget(t testing.TB, d time.Duration) {
	old := qwenBudget
	qwenBudget = d
	t.Cleanup(func() { qwenBudget = old })
}
