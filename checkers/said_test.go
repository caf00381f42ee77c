package checkers_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/donegate/donegate/checkers"
	"github.com/donegate/donegate/internal/feedback"
)

// builtin is the built-in templates alone: a Set with none of a user's.
var builtin = &feedback.Set{}

// assertSaid checks what a checker told: got says want (complete and
// feedback), reports pattern when it is incomplete, and its parameters,
// as the result cache stores them (JSON), word it the same again.
func assertSaid(t *testing.T, want checkers.Result, pattern string, got checkers.Result) {
	t.Helper()
	assert.Equal(t, want, checkers.Result{Complete: got.Complete, Feedback: got.Feedback})
	if got.Complete {
		assert.Empty(t, got.Pattern, "a complete result has no failure pattern")
		return
	}
	assert.Equal(t, pattern, got.Pattern)
	data, err := json.Marshal(got.Params)
	require.NoError(t, err)
	var back map[string]any
	require.NoError(t, json.Unmarshal(data, &back))
	text, err := builtin.Render(got.Pattern, feedback.Normalize(back))
	require.NoError(t, err)
	assert.Equal(t, got.Feedback, text, "the parameters, stored and read back, word it otherwise")
}
